package dev.chorus.gpu.memory;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;

/**
 * Owns device buffers: every buffer allocated through a scope is freed when the buffer is closed
 * or, at the latest, when the scope is. Scopes nest; closing one closes its children first. The
 * backend's root scope lives as long as the backend, so nothing it allocated outlives it.
 * Not thread-safe.
 */
public final class DeviceScope implements AutoCloseable {

    private final DeviceAllocator allocator;
    private final DeviceScope parent;
    private final LinkedHashSet<DeviceBuffer> live = new LinkedHashSet<>();
    private final List<DeviceScope> children = new ArrayList<>();
    private boolean open = true;

    /** A root scope. */
    public DeviceScope(DeviceAllocator allocator) {
        this(allocator, null);
    }

    private DeviceScope(DeviceAllocator allocator, DeviceScope parent) {
        this.allocator = allocator;
        this.parent = parent;
    }

    /** A child scope, closed with this one at the latest. */
    public DeviceScope child() {
        checkOpen();
        DeviceScope c = new DeviceScope(allocator, this);
        children.add(c);
        return c;
    }

    /** A new buffer of {@code bytes} (0 allowed: no memory, address 0). */
    public DeviceBuffer allocate(long bytes) {
        checkOpen();
        if (bytes < 0) {
            throw new IllegalArgumentException("negative allocation: " + bytes);
        }
        long address = bytes == 0 ? 0 : allocator.allocate(bytes);
        DeviceBuffer b = new DeviceBuffer(this, address, bytes);
        live.add(b);
        return b;
    }

    void release(DeviceBuffer b) {
        if (live.remove(b)) {
            long address = b.address();
            b.markFreed();
            if (b.bytes() > 0) {
                allocator.free(address);
            }
        }
    }

    /** Buffers of this scope not yet freed (children not counted). */
    public int liveBuffers() {
        return live.size();
    }

    public boolean isOpen() {
        return open;
    }

    public DeviceScope parent() {
        return parent;
    }

    private void checkOpen() {
        if (!open) {
            throw new IllegalStateException("device scope is closed");
        }
    }

    /** Closes the children, then frees every buffer still live, newest first. Idempotent. */
    @Override
    public void close() {
        if (!open) {
            return;
        }
        for (int i = children.size() - 1; i >= 0; i--) {
            children.get(i).close();
        }
        children.clear();
        List<DeviceBuffer> all = new ArrayList<>(live);
        for (int i = all.size() - 1; i >= 0; i--) {
            release(all.get(i));
        }
        open = false;
        if (parent != null) {
            parent.children.remove(this);
        }
    }
}
