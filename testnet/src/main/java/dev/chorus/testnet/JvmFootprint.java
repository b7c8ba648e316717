package dev.chorus.testnet;

import java.lang.management.ManagementFactory;
import java.lang.management.MemoryPoolMXBean;
import java.lang.management.MemoryType;
import java.lang.management.MemoryUsage;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.DoubleSupplier;
import java.util.function.LongSupplier;

/**
 * The memory and threads of this JVM over a testnet run, sampled at every evaluation tick. The live-heap figure is
 * the sum over heap pools of their usage right after the latest garbage collection, so it counts what survived a
 * collection, not garbage waiting for one; its maximum over the ticks is reported.
 */
public final class JvmFootprint {

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

    /**
     * Waits until the JIT compilers have finished nothing for {@code quiet}, or until {@code limit} has passed, and
     * returns the seconds waited. On a machine with few cores, the compiler threads of a JVM that trains 16 models
     * get a small share of the CPU, and what a warm-up queued for compilation is still being compiled when the next
     * run starts: that run then pays for it, and a comparison of two runs favours the later one. With the training
     * threads stopped, the queue drains in seconds. Returns at once where the JVM does not count compilation time.
     */
    static double awaitCompilerIdle(Duration quiet, Duration limit) throws InterruptedException {
        return awaitCompilerIdle(JvmFootprint::compilationSeconds, System::nanoTime, Thread::sleep, quiet, limit);
    }

    /** Sleeps for milliseconds; {@link Thread#sleep(long)} outside tests. */
    @FunctionalInterface
    interface Sleeper {
        void sleep(long millis) throws InterruptedException;
    }

    static double awaitCompilerIdle(
            DoubleSupplier compiledSeconds, LongSupplier nanoTime, Sleeper sleeper, Duration quiet, Duration limit)
            throws InterruptedException {
        double last = compiledSeconds.getAsDouble();
        long start = nanoTime.getAsLong();
        if (Double.isNaN(last)) {
            return 0;
        }
        long poll = Math.max(1, Math.min(100, quiet.toMillis() / 4));
        long quietSince = start;
        long now = start;
        while (now - quietSince < quiet.toNanos() && now - start < limit.toNanos()) {
            sleeper.sleep(poll);
            now = nanoTime.getAsLong();
            double c = compiledSeconds.getAsDouble();
            if (c != last) {
                last = c;
                quietSince = now;
            }
        }
        return (now - start) / 1e9;
    }

    /**
     * How busy the JIT compilers were lately, from the compilation time read at points in time: a warm-up run goes
     * on while they compiled for more than a share of the latest window. The compilers' work is what the run had
     * not compiled yet; on a machine with few cores they get little CPU among the training threads, and the C2
     * compiler raises its invocation thresholds while its queue is long, so code that runs less often than the
     * training loop (the model exchange) may be compiled only a minute or more into a process.
     */
    static final class CompilerActivity {
        private final long windowNanos;
        private final double busyShare;
        private final List<Reading> readings = new ArrayList<>();

        private record Reading(long nanos, double compiledSeconds) {}

        /**
         * @param window how far back {@link #busy} looks
         * @param busyShare the share of the window's wall time spent compiling above which the compilers are busy
         */
        CompilerActivity(Duration window, double busyShare) {
            this.windowNanos = window.toNanos();
            this.busyShare = busyShare;
        }

        /** Records the compilation seconds so far ({@code NaN} where unknown) read at {@code nanos}. */
        void record(long nanos, double compiledSeconds) {
            readings.add(new Reading(nanos, compiledSeconds));
            // Keep the latest reading at or before the window's start, and none older.
            while (readings.size() > 1 && nanos - readings.get(1).nanos() >= windowNanos) {
                readings.removeFirst();
            }
        }

        /**
         * Whether, from the oldest reading kept (about a window before the latest) to the latest, the compilers
         * worked more than the busy share of the time. False with fewer than two readings or where the JVM does
         * not count compilation time.
         */
        boolean busy() {
            if (readings.size() < 2) {
                return false;
            }
            Reading first = readings.getFirst();
            Reading last = readings.getLast();
            double seconds = (last.nanos() - first.nanos()) / 1e9;
            double work = last.compiledSeconds() - first.compiledSeconds();
            return seconds > 0 && !Double.isNaN(work) && work > busyShare * seconds;
        }
    }

    static synchronized int peakThreads() {
        return peakThreads;
    }
}
