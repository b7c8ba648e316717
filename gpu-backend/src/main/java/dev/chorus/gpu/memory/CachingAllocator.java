package dev.chorus.gpu.memory;

import dev.chorus.gpu.cuda.DeviceOutOfMemoryException;
import java.util.ArrayDeque;
import java.util.HashMap;
import java.util.Map;

/**
 * Keeps freed device blocks for reuse, binned by rounded size, because {@code cuMemFree}
 * synchronizes the whole device and {@code cuMemAlloc} is slow: a training loop that frees and
 * reallocates the same shapes would otherwise stall every step. Reuse is safe without events
 * because the backend runs all work on one stream: whatever used a block before is ordered before
 * whatever uses it next.
 *
 * <p>When the device is full, the cache is released and the allocation retried once. {@link
 * #close()} frees every cached block; blocks still in use must be freed first (their scopes
 * closed). Not thread-safe.
 */
public final class CachingAllocator implements DeviceAllocator, AutoCloseable {

    /** Sizes are rounded up to a multiple of this; it is also the alignment cuMemAlloc gives. */
    public static final long GRANULE = 512;

    private final DeviceAllocator device;
    private final Map<Long, ArrayDeque<Long>> cached = new HashMap<>();
    private final Map<Long, Long> sizeOf = new HashMap<>();
    private long deviceAllocations;
    private long deviceFrees;
    private long reuses;
    private long bytesInUse;
    private long bytesCached;
    private boolean closed;

    public CachingAllocator(DeviceAllocator device) {
        this.device = device;
    }

    static long rounded(long bytes) {
        return (bytes + GRANULE - 1) / GRANULE * GRANULE;
    }

    @Override
    public long allocate(long bytes) {
        if (closed) {
            throw new IllegalStateException("allocator is closed");
        }
        if (bytes <= 0) {
            throw new IllegalArgumentException("allocation of " + bytes + " bytes");
        }
        long size = rounded(bytes);
        ArrayDeque<Long> bin = cached.get(size);
        long address;
        if (bin != null && !bin.isEmpty()) {
            address = bin.pop();
            bytesCached -= size;
            reuses++;
        } else {
            address = allocateFromDevice(size);
        }
        sizeOf.put(address, size);
        bytesInUse += size;
        return address;
    }

    private long allocateFromDevice(long size) {
        try {
            long address = device.allocate(size);
            deviceAllocations++;
            return address;
        } catch (DeviceOutOfMemoryException e) {
            if (bytesCached == 0) {
                throw e;
            }
            releaseCached();
            long address = device.allocate(size);
            deviceAllocations++;
            return address;
        }
    }

    @Override
    public void free(long address) {
        Long size = sizeOf.remove(address);
        if (size == null) {
            throw new IllegalArgumentException("free of unknown device address 0x" + Long.toHexString(address));
        }
        bytesInUse -= size;
        if (closed) {
            device.free(address);
            deviceFrees++;
            return;
        }
        cached.computeIfAbsent(size, s -> new ArrayDeque<>()).push(address);
        bytesCached += size;
    }

    /** Returns every cached block to the device. */
    public void releaseCached() {
        for (Map.Entry<Long, ArrayDeque<Long>> e : cached.entrySet()) {
            for (long address : e.getValue()) {
                device.free(address);
                deviceFrees++;
            }
        }
        cached.clear();
        bytesCached = 0;
    }

    /** What went to the device and what was reused. */
    public AllocationStats stats() {
        return new AllocationStats(deviceAllocations, deviceFrees, reuses, sizeOf.size(), bytesInUse, bytesCached);
    }

    /**
     * Frees the cache. Blocks still in use are freed to the device as their owners return them.
     */
    @Override
    public void close() {
        if (!closed) {
            releaseCached();
            closed = true;
        }
    }
}
