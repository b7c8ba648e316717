package dev.chorus.aggregation;

import java.lang.management.ManagementFactory;

/** Bytes allocated by the current thread while running an action (HotSpot's per-thread counter). */
public final class AllocationMeter {

    private AllocationMeter() {}

    public static long bytesAllocatedBy(Runnable action) {
        com.sun.management.ThreadMXBean bean = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        long before = bean.getCurrentThreadAllocatedBytes();
        action.run();
        return bean.getCurrentThreadAllocatedBytes() - before;
    }
}
