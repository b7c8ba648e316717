package dev.chorus.gpu.memory;

/**
 * Raw device memory: {@code cuMemAlloc}/{@code cuMemFree} on a GPU, anything that hands out
 * addresses in tests. Addresses are never 0.
 */
public interface DeviceAllocator {

    /**
     * @param bytes more than 0
     * @return the device address of the new block
     * @throws dev.chorus.gpu.cuda.DeviceOutOfMemoryException when the device is full
     */
    long allocate(long bytes);

    /** Returns a block that {@link #allocate} handed out. */
    void free(long address);
}
