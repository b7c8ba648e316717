package dev.chorus.node.api;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryPoolMXBean;
import java.lang.management.MemoryType;
import java.lang.management.MemoryUsage;
import java.lang.management.OperatingSystemMXBean;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * What this process holds of the machine, as an operator watches a long-running node for leaks: resident memory,
 * threads, open file descriptors and the heap that survived the latest garbage collection. A figure the platform
 * does not report is -1.
 *
 * <p>The live heap is the sum over heap pools of their usage right after their latest collection, so it counts what
 * survived, not garbage waiting for a collection. A young collection leaves old garbage in place until the next
 * old or full collection, so the figure is an upper bound on the live set that a full collection makes exact.
 *
 * @param residentBytes resident set size ({@code VmRSS} of {@code /proc/self/status})
 * @param threads the process's operating-system threads ({@code Threads} of {@code /proc/self/status}); the JVM's
 *     own count where that file is missing
 * @param openFds file descriptors open
 * @param maxFds the process's limit on open file descriptors
 * @param heapAfterGcBytes heap in use right after the latest collection of each pool
 * @param heapMaxBytes the heap's limit ({@code -Xmx})
 */
public record ProcessFootprint(
        long residentBytes, long threads, long openFds, long maxFds, long heapAfterGcBytes, long heapMaxBytes) {

    private static final Path STATUS = Path.of("/proc/self/status");

    /** This process, now. */
    public static ProcessFootprint sample() {
        List<String> status = statusLines();
        long rss = field(status, "VmRSS:");
        long threads = field(status, "Threads:");
        if (threads < 0) {
            threads = ManagementFactory.getThreadMXBean().getThreadCount();
        }
        long open = -1;
        long max = -1;
        OperatingSystemMXBean os = ManagementFactory.getOperatingSystemMXBean();
        if (os instanceof com.sun.management.UnixOperatingSystemMXBean unix) {
            open = unix.getOpenFileDescriptorCount();
            max = unix.getMaxFileDescriptorCount();
        }
        return new ProcessFootprint(
                rss < 0 ? -1 : rss * 1024,
                threads,
                open,
                max,
                heapAfterGc(),
                Runtime.getRuntime().maxMemory());
    }

    private static long heapAfterGc() {
        long live = 0;
        boolean any = false;
        for (MemoryPoolMXBean pool : ManagementFactory.getMemoryPoolMXBeans()) {
            if (pool.getType() == MemoryType.HEAP) {
                MemoryUsage u = pool.getCollectionUsage();
                if (u != null) {
                    live += u.getUsed();
                    any = true;
                }
            }
        }
        return any ? live : -1;
    }

    private static List<String> statusLines() {
        try {
            return Files.readAllLines(STATUS);
        } catch (IOException | UnsupportedOperationException e) {
            return List.of();
        }
    }

    /**
     * The number after {@code key} on its line of a {@code /proc/PID/status} file ({@code VmRSS:} is in kB); -1 when
     * the line is missing or does not hold a number.
     */
    public static long field(List<String> statusLines, String key) {
        for (String line : statusLines) {
            if (line.startsWith(key)) {
                String[] parts = line.substring(key.length()).strip().split("\\s+");
                try {
                    return Long.parseLong(parts[0]);
                } catch (NumberFormatException e) {
                    return -1;
                }
            }
        }
        return -1;
    }
}
