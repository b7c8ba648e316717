package dev.chorus.gpu.memory;

/**
 * Counters of a {@link CachingAllocator}.
 *
 * @param deviceAllocations blocks obtained from the device
 * @param deviceFrees blocks returned to the device
 * @param reuses allocations served from the cache
 * @param liveBlocks blocks handed out and not yet freed
 * @param bytesInUse bytes of those blocks (rounded sizes)
 * @param bytesCached bytes held in the cache for reuse
 */
public record AllocationStats(
        long deviceAllocations, long deviceFrees, long reuses, long liveBlocks, long bytesInUse, long bytesCached) {}
