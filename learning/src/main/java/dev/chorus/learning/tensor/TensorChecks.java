package dev.chorus.learning.tensor;

import java.util.function.BiPredicate;

/**
 * The argument checks that every {@link TensorBackend} runs before an op: that a tensor belongs to
 * the backend, that shapes and element counts agree, that views and host ranges stay in bounds.
 * Each check throws {@link IllegalArgumentException} with a one-line message naming the operands,
 * as the SPI's conventions demand, so that all backends reject the same calls in the same words.
 *
 * <p>The checks read only {@link Tensor#rows()}, {@link Tensor#cols()} and {@link Tensor#size()};
 * whether two tensors share storage is the backend's to say, and is passed in where it matters.
 */
public final class TensorChecks {

    /**
     * The largest element count of a tensor: a row-major float array of it must still be
     * allocatable on the Java heap, whose arrays stop a few elements short of {@code
     * Integer.MAX_VALUE}.
     */
    public static final int MAX_ELEMENTS = Integer.MAX_VALUE - 8;

    private TensorChecks() {}

    // ---------------------------------------------------------------- ownership and storage

    /**
     * Whether {@code x} is a tensor of class {@code type} made by {@code backend} ({@code false}
     * for null).
     */
    public static boolean belongsTo(Tensor x, Class<? extends Tensor> type, TensorBackend backend) {
        return type.isInstance(x) && x.backend() == backend;
    }

    /**
     * {@code x} as the backend's own tensor class.
     *
     * @throws IllegalArgumentException when {@code x} is null, of another class or of another
     *     backend
     */
    public static <T extends Tensor> T owned(Tensor x, Class<T> type, TensorBackend backend) {
        if (!belongsTo(x, type, backend)) {
            throw new IllegalArgumentException(
                    "tensor " + x + " does not belong to this " + backend.name() + " backend");
        }
        return type.cast(x);
    }

    /**
     * The element count {@code rows * cols} of a new tensor.
     *
     * @throws IllegalArgumentException when a dimension is negative or the count exceeds {@link
     *     #MAX_ELEMENTS}
     */
    public static int checkedSize(int rows, int cols) {
        if (rows < 0 || cols < 0 || (long) rows * cols > MAX_ELEMENTS) {
            throw new IllegalArgumentException("bad tensor shape " + rows + "x" + cols);
        }
        return rows * cols;
    }

    /**
     * Checks a {@link TensorBackend#view} request: a valid shape whose elements, from element
     * {@code offset} of {@code base}, all lie inside {@code base}.
     *
     * @throws IllegalArgumentException when the shape is bad or the range leaves {@code base}
     */
    public static void viewRange(Tensor base, long offset, int rows, int cols) {
        long n = checkedSize(rows, cols);
        if (offset < 0 || offset + n > base.size()) {
            throw new IllegalArgumentException("view [" + offset + ", +" + n + ") outside " + base);
        }
    }

    /**
     * Checks that {@code host[offset .. offset + count)} is a range of the host array, before a copy
     * between it and a tensor of {@code count} elements.
     *
     * @throws IllegalArgumentException when {@code host} is null or the range leaves it
     */
    public static void hostRange(float[] host, int offset, long count) {
        if (host == null) {
            throw new IllegalArgumentException("host array is null");
        }
        if (offset < 0 || offset + count > host.length) {
            throw new IllegalArgumentException(
                    "host range [" + offset + ", +" + count + ") outside an array of " + host.length + " floats");
        }
    }

    // ---------------------------------------------------------------- element counts and shapes

    /**
     * Checks that {@code a} and {@code b} hold as many elements, whatever their shapes (copies,
     * BLAS level 1, optimizer state).
     */
    public static void sameSize(Tensor a, Tensor b) {
        if (a.size() != b.size()) {
            throw new IllegalArgumentException("size mismatch: " + a + " vs " + b);
        }
    }

    /** Checks that {@code a} and {@code b} have the same rows and columns. */
    public static void sameShape(Tensor a, Tensor b) {
        if (a.rows() != b.rows() || a.cols() != b.cols()) {
            throw new IllegalArgumentException("shape mismatch: " + a + " vs " + b);
        }
    }

    /** Checks an element-wise {@code out = f(a, b)}: all three the same shape. */
    public static void elementWise(Tensor a, Tensor b, Tensor out) {
        sameShape(a, b);
        sameShape(a, out);
    }

    /**
     * Checks {@link TensorBackend#gemm}'s operand shapes and that {@code c} shares no element with
     * {@code a} or {@code b}, and returns the inner dimension {@code k} (columns of {@code op(A)});
     * the product's {@code m x n} are then {@code c}'s rows and columns.
     *
     * @param overlap whether two of the backend's tensors share an element (tested as {@code
     *     overlap(c, a)} and {@code overlap(c, b)})
     * @throws IllegalArgumentException when {@code op(A)}, {@code op(B)} and {@code C} do not chain,
     *     or {@code c} aliases an input
     */
    public static <T extends Tensor> int gemm(
            boolean transA, boolean transB, T a, T b, T c, BiPredicate<? super T, ? super T> overlap) {
        int m = transA ? a.cols() : a.rows();
        int k = transA ? a.rows() : a.cols();
        int kb = transB ? b.cols() : b.rows();
        int n = transB ? b.rows() : b.cols();
        if (k != kb || c.rows() != m || c.cols() != n) {
            throw new IllegalArgumentException("gemm shapes: op(A) " + m + "x" + k + ", op(B) " + kb + "x" + n + ", C "
                    + c.rows() + "x" + c.cols());
        }
        if (overlap.test(c, a) || overlap.test(c, b)) {
            throw new IllegalArgumentException("gemm output must not alias an input");
        }
        return k;
    }

    /** Checks {@link TensorBackend#addRowVector}: {@code row} has one element per column of {@code m}. */
    public static void rowVector(Tensor m, Tensor row) {
        if (row.size() != m.cols()) {
            throw new IllegalArgumentException("row vector " + row + " does not match " + m);
        }
    }

    /** Checks {@link TensorBackend#sumRows}: {@code out} has one element per column of {@code m}. */
    public static void columnSums(Tensor m, Tensor out) {
        if (out.size() != m.cols()) {
            throw new IllegalArgumentException("output " + out + " does not match the columns of " + m);
        }
    }

    /**
     * Checks the operands of a loss ({@link TensorBackend#softmaxCrossEntropy}, {@link
     * TensorBackend#sigmoidCrossEntropy}): {@code targets} and, when not null, {@code probs} and
     * {@code grad} have the shape of {@code logits}.
     */
    public static void loss(Tensor logits, Tensor targets, Tensor probs, Tensor grad) {
        sameShape(logits, targets);
        if (probs != null) {
            sameShape(logits, probs);
        }
        if (grad != null) {
            sameShape(logits, grad);
        }
    }

    // ---------------------------------------------------------------- convolution and pooling

    /**
     * Checks the operands of {@link TensorBackend#im2col} and {@link TensorBackend#col2im}: each row
     * of {@code images} is one image of {@code g}, and {@code cols} has one row per output pixel of
     * the batch and one column per kernel tap.
     */
    public static void conv(Tensor images, ConvGeometry g, Tensor cols) {
        if (images.cols() != g.inputSize()) {
            throw new IllegalArgumentException("images " + images + " do not match " + g);
        }
        long rows = (long) images.rows() * g.outHeight() * g.outWidth();
        if (cols.rows() != rows || cols.cols() != g.taps()) {
            throw new IllegalArgumentException("im2col matrix " + cols + " should be " + rows + "x" + g.taps());
        }
    }

    /**
     * Checks the operands of {@link TensorBackend#maxPool}: {@code in} holds images of {@code g},
     * {@code out} their pooled images row for row, and {@code argmax} has the shape of {@code out}.
     */
    public static void maxPool(Tensor in, PoolGeometry g, Tensor out, Tensor argmax) {
        if (in.cols() != g.inputSize() || out.rows() != in.rows() || out.cols() != g.outputSize()) {
            throw new IllegalArgumentException("max pool shapes " + in + " -> " + out + " do not match " + g);
        }
        sameShape(out, argmax);
    }

    /**
     * Checks the operands of {@link TensorBackend#maxPoolBackward}: {@code argmax} has the shape of
     * {@code gradOut}, which holds pooled images of {@code g}, row for row with the images of {@code
     * gradIn}.
     */
    public static void maxPoolBackward(Tensor gradOut, Tensor argmax, PoolGeometry g, Tensor gradIn) {
        sameShape(gradOut, argmax);
        if (gradIn.cols() != g.inputSize() || gradOut.rows() != gradIn.rows() || gradOut.cols() != g.outputSize()) {
            throw new IllegalArgumentException("max pool backward shapes do not match " + g);
        }
    }

    // ---------------------------------------------------------------- optimizer updates

    /**
     * Checks {@link TensorBackend#adamStep}'s step number, which counts from 1 because the bias
     * correction divides by {@code 1 - beta^t}.
     */
    public static void adamStep(long step) {
        if (step < 1) {
            throw new IllegalArgumentException("Adam step counts from 1, got " + step);
        }
    }

    /** Checks an Adam step's tensors: gradients and both moments hold as many elements as the parameters. */
    public static void adamState(Tensor params, Tensor grads, Tensor m, Tensor v) {
        sameSize(params, grads);
        sameSize(params, m);
        sameSize(params, v);
    }
}
