package dev.chorus.learning.tensor.reference;

import dev.chorus.learning.tensor.Tensor;
import dev.chorus.learning.tensor.TensorBackend;

/** A tensor of the reference backend: a window of a heap {@code float[]}. */
final class ReferenceTensor implements Tensor {
    final float[] data;
    final int offset;
    private final int rows;
    private final int cols;
    private final ReferenceBackend backend;

    ReferenceTensor(ReferenceBackend backend, float[] data, int offset, int rows, int cols) {
        this.backend = backend;
        this.data = data;
        this.offset = offset;
        this.rows = rows;
        this.cols = cols;
    }

    float get(int r, int c) {
        return data[offset + r * cols + c];
    }

    void set(int r, int c, float v) {
        data[offset + r * cols + c] = v;
    }

    float at(int i) {
        return data[offset + i];
    }

    void put(int i, float v) {
        data[offset + i] = v;
    }

    int n() {
        return rows * cols;
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
    public void close() {}

    @Override
    public String toString() {
        return "ReferenceTensor[" + rows + "x" + cols + "]";
    }
}
