package dev.chorus.learning.tensor;

/**
 * A dense row-major float32 matrix owned by one {@link TensorBackend}. Vectors are {@code 1 x n} or
 * {@code n x 1} matrices. A tensor may be a view into a larger one (see {@link
 * TensorBackend#view}); views share storage and are never closed on their own account.
 *
 * <p>Tensors are handles: their storage may live off the Java heap or on a device, so the only way
 * to read or write their contents from Java is through {@link TensorBackend#copyToHost} and {@link
 * TensorBackend#copyFromHost}. Closing a tensor frees its storage; closing a view does nothing.
 */
public interface Tensor extends AutoCloseable {

    int rows();

    int cols();

    /** Number of elements, {@code rows() * cols()}. */
    default long size() {
        return (long) rows() * cols();
    }

    /** The backend that owns this tensor; ops only accept tensors of their own backend. */
    TensorBackend backend();

    @Override
    void close();
}
