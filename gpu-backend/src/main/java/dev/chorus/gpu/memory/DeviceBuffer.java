package dev.chorus.gpu.memory;

/**
 * A block of device memory owned by a {@link DeviceScope}. Closing it returns the memory at once;
 * closing its scope returns it too. A buffer of 0 bytes has address 0 and holds no memory.
 */
public final class DeviceBuffer implements AutoCloseable {

    private final DeviceScope scope;
    private final long address;
    private final long bytes;
    private boolean open = true;

    DeviceBuffer(DeviceScope scope, long address, long bytes) {
        this.scope = scope;
        this.address = address;
        this.bytes = bytes;
    }

    /**
     * The device address.
     *
     * @throws IllegalStateException once closed
     */
    public long address() {
        if (!open) {
            throw new IllegalStateException("device buffer used after it was freed");
        }
        return address;
    }

    public long bytes() {
        return bytes;
    }

    public boolean isOpen() {
        return open;
    }

    public DeviceScope scope() {
        return scope;
    }

    /** Called by the scope when it frees this buffer. */
    void markFreed() {
        open = false;
    }

    @Override
    public void close() {
        if (open) {
            scope.release(this);
        }
    }
}
