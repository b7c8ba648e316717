package dev.chorus.gpu;

import java.lang.foreign.MemorySegment;

/**
 * Page-locked host buffers through which Java arrays reach the device. DMA needs pinned memory and a
 * heap array can move, so an upload copies the array into a slot and queues an asynchronous copy
 * from it; the slot is reused only once that copy has run, which is known without asking when the
 * stream was synchronized since, and otherwise waited for on the slot's event. Several upload slots
 * rotate, so that consecutive uploads (a batch, then its labels) never wait for each other.
 * Downloads have their own slot, since they wait for the stream anyway.
 *
 * <p>Slots grow to the largest transfer seen and are freed with the backend. Not thread-safe.
 */
final class HostStaging implements AutoCloseable {

    static final int SLOTS = 4;

    /** Smallest slot, so that small transfers (scalars, labels) never reallocate. */
    static final long MIN_BYTES = 64 * 1024;

    /** Slot sizes are rounded up to this, so that a slowly growing batch does not reallocate each time. */
    static final long GRANULE = 1 << 20;

    /** Floats per chunk of a large upload (4 MiB). */
    static final int CHUNK_FLOATS = 1 << 20;

    private static final class Slot {
        MemorySegment pinned;
        MemorySegment event;
        boolean pending;
        long recordedBefore;
    }

    private final CudaDevice device;
    private final Slot[] slots = new Slot[SLOTS];
    private final Slot downloads = new Slot();
    private int next;

    HostStaging(CudaDevice device) {
        this.device = device;
        for (int i = 0; i < SLOTS; i++) {
            slots[i] = new Slot();
        }
    }

    /** The next upload slot, of at least {@code bytes}, once its previous upload has completed. */
    private Slot acquire(long bytes) {
        Slot s = slots[next];
        next = (next + 1) % SLOTS;
        if (s.pending && device.streamSynchronizations() == s.recordedBefore) {
            device.waitEvent(s.event);
        }
        s.pending = false;
        return sized(s, bytes);
    }

    private Slot sized(Slot s, long bytes) {
        if (s.pinned == null || s.pinned.byteSize() < bytes) {
            if (s.pinned != null) {
                device.freePinned(s.pinned);
                s.pinned = null;
            }
            long size = Math.max(MIN_BYTES, (bytes + GRANULE - 1) / GRANULE * GRANULE);
            s.pinned = device.allocatePinned(size);
        }
        if (s.event == null) {
            s.event = device.createEvent(false);
        }
        return s;
    }

    /**
     * Queues an upload of {@code count} floats of {@code src} from {@code srcOffset} to {@code dst}.
     * Large uploads go in chunks, each queued as soon as it is staged, so that the DMA of one chunk
     * overlaps the staging copy of the next.
     */
    void upload(float[] src, int srcOffset, long dst, int count) {
        long bytes = 4L * count;
        Slot s = acquire(bytes);
        for (int done = 0; done < count; done += CHUNK_FLOATS) {
            int n = Math.min(CHUNK_FLOATS, count - done);
            MemorySegment.copy(src, srcOffset + done, s.pinned, java.lang.foreign.ValueLayout.JAVA_FLOAT, 4L * done, n);
            device.copyToDevice(s.pinned.asSlice(4L * done, 4L * n), dst + 4L * done, 4L * n);
        }
        device.recordEvent(s.event);
        s.pending = true;
        s.recordedBefore = device.streamSynchronizations();
    }

    /** Copies {@code count} floats at {@code src} into {@code dst[dstOffset ..]}, waiting for the stream. */
    void download(long src, float[] dst, int dstOffset, int count) {
        long bytes = 4L * count;
        Slot s = sized(downloads, bytes);
        device.copyToHost(src, s.pinned, bytes);
        device.synchronize();
        MemorySegment.copy(s.pinned, java.lang.foreign.ValueLayout.JAVA_FLOAT, 0, dst, dstOffset, count);
    }

    @Override
    public void close() {
        Slot[] all = java.util.Arrays.copyOf(slots, SLOTS + 1);
        all[SLOTS] = downloads;
        for (Slot s : all) {
            if (s.pending) {
                device.waitEvent(s.event);
                s.pending = false;
            }
            if (s.pinned != null) {
                device.freePinned(s.pinned);
                s.pinned = null;
            }
            if (s.event != null) {
                device.destroyEvent(s.event);
                s.event = null;
            }
        }
    }
}
