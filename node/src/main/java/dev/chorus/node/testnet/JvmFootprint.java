package dev.chorus.node.testnet;

import java.lang.management.ManagementFactory;
import java.lang.management.MemoryPoolMXBean;
import java.lang.management.MemoryType;
import java.lang.management.MemoryUsage;

/**
 * The memory and threads of this JVM over a testnet run, sampled at every evaluation tick. The live-heap figure is
 * the sum over heap pools of their usage right after the latest garbage collection, so it counts what survived a
 * collection, not garbage waiting for one; its maximum over the ticks is reported.
 */
final class JvmFootprint {

    private static long peakLiveHeap;
    private static int peakThreads;

    private JvmFootprint() {}

    static synchronized void sample() {
        long live = 0;
        for (MemoryPoolMXBean pool : ManagementFactory.getMemoryPoolMXBeans()) {
            if (pool.getType() == MemoryType.HEAP) {
                MemoryUsage u = pool.getCollectionUsage();
                if (u != null) {
                    live += u.getUsed();
                }
            }
        }
        peakLiveHeap = Math.max(peakLiveHeap, live);
        peakThreads = Math.max(peakThreads, ManagementFactory.getThreadMXBean().getThreadCount());
    }

    /** The largest live heap seen at a tick, in MiB. */
    static synchronized double peakLiveHeapMiB() {
        return peakLiveHeap / (1024.0 * 1024.0);
    }

    /** The heap limit (-Xmx), in MiB. */
    static double maxHeapMiB() {
        return Runtime.getRuntime().maxMemory() / (1024.0 * 1024.0);
    }

    /**
     * The JIT compilers' accumulated compilation time so far, in seconds (wall time of the compiler threads, as
     * {@link java.lang.management.CompilationMXBean#getTotalCompilationTime} counts it); NaN where the JVM does not
     * track it. A run during which it grows by much ran partly in unoptimized code.
     */
    static double compilationSeconds() {
        var jit = ManagementFactory.getCompilationMXBean();
        return jit != null && jit.isCompilationTimeMonitoringSupported()
                ? jit.getTotalCompilationTime() / 1000.0
                : Double.NaN;
    }

    static synchronized int peakThreads() {
        return peakThreads;
    }
}
