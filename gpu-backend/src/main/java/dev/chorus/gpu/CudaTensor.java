package dev.chorus.gpu;

import dev.chorus.gpu.memory.DeviceBuffer;
import dev.chorus.learning.tensor.Tensor;
import dev.chorus.learning.tensor.TensorBackend;

/**
 * A tensor of the CUDA backend: {@code rows * cols} floats at element {@code offset} of a device
 * buffer. A tensor made by {@code zeros} or {@code fromHost} owns its buffer and frees it when
 * closed; a view shares its base's buffer and frees nothing.
 */
final class CudaTensor implements Tensor {

    private final CudaBackend backend;
    final DeviceBuffer storage;
    final long offset;
    private final int rows;
    private final int cols;
    private final boolean owner;

    CudaTensor(CudaBackend backend, DeviceBuffer storage, long offset, int rows, int cols, boolean owner) {
        this.backend = backend;
        this.storage = storage;
        this.offset = offset;
        this.rows = rows;
        this.cols = cols;
        this.owner = owner;
    }

    /**
     * The device address of the first element.
     *
     * @throws IllegalStateException when the storage was freed
     */
    long address() {
        if (!storage.isOpen()) {
            throw new IllegalStateException(this + " used after its storage was freed");
        }
        return storage.address() + 4 * offset;
    }

    /** Elements. */
    long n() {
        return (long) rows * cols;
    }

    /** Whether this and {@code other} share at least one element. */
    boolean overlaps(CudaTensor other) {
        return storage == other.storage
                && n() > 0
                && other.n() > 0
                && offset < other.offset + other.n()
                && other.offset < offset + n();
    }

    @Override
    public int rows() {
        return rows;
    }

    @Override
    public int cols() {
        return cols;
    }

    @Override
    public TensorBackend backend() {
        return backend;
    }

    @Override
    public void close() {
        if (owner) {
            storage.close();
        }
    }

    @Override
    public String toString() {
        return "CudaTensor[" + rows + "x" + cols + (owner ? "" : " view at " + offset) + "]";
    }
}
