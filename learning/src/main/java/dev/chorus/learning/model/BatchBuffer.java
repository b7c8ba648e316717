package dev.chorus.learning.model;

import dev.chorus.learning.tensor.Tensor;
import dev.chorus.learning.tensor.TensorBackend;
import java.util.HashMap;
import java.util.Map;

/**
 * A per-sample working buffer of a layer ({@code width} floats per sample) that grows to the
 * largest batch it has seen and hands out views for smaller batches. Views are cached per shape, so
 * that a training loop alternating between full and partial batches allocates nothing once warm.
 *
 * <p>A view stays valid until a larger batch forces the storage to grow; layers only use views
 * between one forward pass and the matching backward pass.
 */
public final class BatchBuffer implements AutoCloseable {

    /** Bound on cached views; past it the cache is dropped (views own no storage). */
    private static final int MAX_CACHED_VIEWS = 16;

    private final TensorBackend backend;
    private final int width;
    private final Map<Long, Tensor> views = new HashMap<>();
    private Tensor storage;
    private int capacity;

    /**
     * @param width floats per sample
     */
    public BatchBuffer(TensorBackend backend, int width) {
        if (width <= 0) {
            throw new IllegalArgumentException("buffer width must be positive, got " + width);
        }
        this.backend = backend;
        this.width = width;
    }

    /** Floats per sample. */
    public int width() {
        return width;
    }

    /** A {@code batch x width} tensor. */
    public Tensor rows(int batch) {
        return reshaped(batch, 1);
    }

    /**
     * The same storage as {@link #rows(int)}, seen as {@code batch * rowsPerSample} rows of {@code
     * width / rowsPerSample} columns (e.g. one row per output pixel of a convolution).
     */
    public Tensor reshaped(int batch, int rowsPerSample) {
        if (batch <= 0) {
            throw new IllegalArgumentException("batch size must be positive, got " + batch);
        }
        if (rowsPerSample <= 0 || width % rowsPerSample != 0) {
            throw new IllegalArgumentException(rowsPerSample + " rows per sample do not divide width " + width);
        }
        if (batch > capacity) {
            grow(batch);
        }
        long key = ((long) batch << 32) | rowsPerSample;
        Tensor view = views.get(key);
        if (view == null) {
            if (views.size() >= MAX_CACHED_VIEWS) {
                views.clear();
            }
            long rows = (long) batch * rowsPerSample;
            if (rows > Integer.MAX_VALUE) {
                throw new IllegalArgumentException("batch of " + batch + " is too large for this layer");
            }
            view = backend.view(storage, 0, (int) rows, width / rowsPerSample);
            views.put(key, view);
        }
        return view;
    }

    private void grow(int batch) {
        if ((long) batch * width > Integer.MAX_VALUE - 8) {
            throw new IllegalArgumentException(
                    "batch of " + batch + " samples x " + width + " floats is too large for one tensor");
        }
        close();
        storage = backend.zeros(batch, width);
        capacity = batch;
    }

    @Override
    public void close() {
        views.clear();
        if (storage != null) {
            storage.close();
            storage = null;
        }
        capacity = 0;
    }
}
