package dev.chorus.learning.tensor.nd4j;

import dev.chorus.learning.tensor.Tensor;
import dev.chorus.learning.tensor.TensorBackend;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.factory.Nd4j;

/**
 * A tensor of the {@link Nd4jBackend}: a contiguous row-major window of an off-heap ND4J buffer.
 *
 * <p>A root tensor owns one ND4J array and a shared {@link Arena} that scopes every {@link
 * MemorySegment} over it, its views' included. Closing the root closes the arena first, so any later
 * access through a view fails with an {@link IllegalStateException} instead of reading freed memory,
 * and then frees the ND4J buffer. A root that is dropped without {@code close()} is freed by ND4J's
 * garbage-collector-driven deallocator once neither it nor a view of it is reachable.
 */
public final class Nd4jTensor implements Tensor {

    private final Nd4jBackend backend;
    private final Nd4jTensor root;
    /** The root's ND4J array; null for views and for empty tensors. */
    private final INDArray array;
    /** The root's arena; views share their root's. */
    private final Arena arena;
    /** Exactly this tensor's {@code rows * cols} floats. */
    final MemorySegment segment;
    /** Offset of the first element from the root's first element, in floats. */
    final long offset;

    final int rows;
    final int cols;
    final int n;

    /** A root tensor over {@code array} (null when empty). */
    Nd4jTensor(Nd4jBackend backend, INDArray array, int rows, int cols) {
        this.backend = backend;
        this.root = this;
        this.array = array;
        this.arena = Arena.ofShared();
        this.rows = rows;
        this.cols = cols;
        this.n = rows * cols;
        this.offset = 0;
        long address = array == null ? 0 : array.data().addressPointer().address() + 4L * array.offset();
        this.segment = MemorySegment.ofAddress(address).reinterpret(4L * n, arena, null);
    }

    /** A view of {@code rows x cols} elements of {@code base} from its element {@code offset}. */
    Nd4jTensor(Nd4jTensor base, long offset, int rows, int cols) {
        this.backend = base.backend;
        this.root = base.root;
        this.array = null;
        this.arena = base.arena;
        this.rows = rows;
        this.cols = cols;
        this.n = rows * cols;
        this.offset = base.offset + offset;
        this.segment = base.segment.asSlice(4L * offset, 4L * n);
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

    boolean isRoot() {
        return root == this;
    }

    boolean isOpen() {
        return arena.scope().isAlive();
    }

    /** Address of the first element; the caller has checked that the tensor is open. */
    long address() {
        return segment.address();
    }

    /** Whether this tensor and {@code other} share at least one element. */
    boolean overlaps(Nd4jTensor other) {
        if (n == 0 || other.n == 0 || root != other.root) {
            return false;
        }
        return offset < other.offset + other.n && other.offset < offset + n;
    }

    /** Whether this tensor covers exactly the same elements as {@code other}. */
    boolean sameElements(Nd4jTensor other) {
        return root == other.root && offset == other.offset && n == other.n;
    }

    /**
     * An ND4J array ({@code rows x cols}, 'c' order) that shares this tensor's storage, for use with
     * ND4J's own API. It is valid while this tensor's root is open.
     *
     * @throws IllegalStateException when the tensor is closed or empty
     */
    public INDArray asINDArray() {
        if (!isOpen()) {
            throw new IllegalStateException(this + " is closed");
        }
        if (n == 0) {
            throw new IllegalStateException(this + " is empty; ND4J has no view of an empty buffer");
        }
        return Nd4j.create(root.array.data(), new long[] {rows, cols}, new long[] {cols, 1}, offset, 'c');
    }

    @Override
    public void close() {
        if (!isRoot()) {
            return;
        }
        synchronized (this) {
            if (!arena.scope().isAlive()) {
                return;
            }
            arena.close();
            if (array != null && array.closeable()) {
                array.close();
            }
        }
        backend.forget(this);
    }

    @Override
    public String toString() {
        return "Nd4jTensor[" + rows + "x" + cols + (isRoot() ? "" : " view at " + offset) + (isOpen() ? "" : ", closed")
                + "]";
    }
}
