package dev.chorus.node.averaging;

import java.util.concurrent.atomic.AtomicInteger;

/**
 * The model as the network serves it: the training thread copies the flat vector into a buffer at a step boundary
 * and publishes it; network threads lease the published copy while they encode it. Two buffers alternate, so
 * publishing overwrites the one not being served; only when a slow reader still holds that one is a fresh buffer
 * allocated. Publishing never waits for a reader and a reader never sees a half-written copy.
 */
public final class SnapshotBuffer {

    /** A published snapshot, readable until {@link #close()}. */
    public interface Lease extends AutoCloseable {
        long version();

        long sampleCount();

        /** The values; read only, and only until the lease is closed. */
        float[] values();

        @Override
        void close();
    }

    private static final class Slot {
        final float[] values;
        /** Readers holding the slot; -1 while the publisher writes it. */
        final AtomicInteger refs = new AtomicInteger(-1);

        long version;
        long sampleCount;

        Slot(int n) {
            values = new float[n];
        }
    }

    private final Slot[] slots = new Slot[2];
    private volatile Slot current;
    private long allocations;

    /** Copies {@code params} and publishes the copy. Training thread only (one publisher). */
    public void publish(float[] params, long version, long sampleCount) {
        int target = slots[0] != null && slots[0] == current ? 1 : 0;
        Slot slot = slots[target];
        if (slot == null || slot.values.length != params.length || !slot.refs.compareAndSet(0, -1)) {
            slot = new Slot(params.length); // born claimed (-1)
            slots[target] = slot;
            allocations++;
        }
        System.arraycopy(params, 0, slot.values, 0, params.length);
        slot.version = version;
        slot.sampleCount = sampleCount;
        slot.refs.set(0); // releases the writes above to readers
        current = slot;
    }

    /** The latest snapshot, or null if none was published; any thread; close the lease when done. */
    public Lease acquire() {
        while (true) {
            Slot s = current;
            if (s == null) {
                return null;
            }
            int r = s.refs.get();
            if (r >= 0 && s.refs.compareAndSet(r, r + 1)) {
                return new Lease() {
                    private boolean closed;

                    @Override
                    public long version() {
                        return s.version;
                    }

                    @Override
                    public long sampleCount() {
                        return s.sampleCount;
                    }

                    @Override
                    public float[] values() {
                        return s.values;
                    }

                    @Override
                    public synchronized void close() {
                        if (!closed) {
                            closed = true;
                            s.refs.decrementAndGet();
                        }
                    }
                };
            }
            Thread.onSpinWait();
        }
    }

    /** Buffers allocated so far (2 when no reader ever held a buffer across a publish). */
    public long allocations() {
        return allocations;
    }
}
