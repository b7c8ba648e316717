package dev.chorus.gpu.memory;

import dev.chorus.gpu.cuda.CuResult;
import java.util.HashMap;
import java.util.Map;

/**
 * Hands out made-up device addresses and counts them; refuses frees of addresses it did not hand
 * out (double frees included), and can be told to run out of memory past a byte budget. Optionally
 * forwards to a real allocator instead of making addresses up.
 */
public final class CountingAllocator implements DeviceAllocator {

    private final DeviceAllocator target;
    private final Map<Long, Long> live = new HashMap<>();
    private long next = 0x10_0000;
    public long budget = Long.MAX_VALUE;
    public long allocations;
    public long frees;
    public long bytesLive;

    public CountingAllocator() {
        this(null);
    }

    /** Counts what passes through to {@code target}. */
    public CountingAllocator(DeviceAllocator target) {
        this.target = target;
    }

    @Override
    public long allocate(long bytes) {
        if (bytes <= 0) {
            throw new IllegalArgumentException("allocation of " + bytes);
        }
        if (bytesLive + bytes > budget) {
            throw CuResult.failure(CuResult.ERROR_OUT_OF_MEMORY, "cuMemAlloc");
        }
        long address;
        if (target != null) {
            address = target.allocate(bytes);
        } else {
            address = next;
            next += (bytes + 255) / 256 * 256 + 256;
        }
        live.put(address, bytes);
        allocations++;
        bytesLive += bytes;
        return address;
    }

    @Override
    public void free(long address) {
        Long bytes = live.remove(address);
        if (bytes == null) {
            throw new AssertionError("free of 0x" + Long.toHexString(address) + ", which is not live");
        }
        if (target != null) {
            target.free(address);
        }
        frees++;
        bytesLive -= bytes;
    }

    public int liveBlocks() {
        return live.size();
    }
}
