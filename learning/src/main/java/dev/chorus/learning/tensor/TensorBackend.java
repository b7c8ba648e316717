package dev.chorus.learning.tensor;

/**
 * The operations that training logistic regression, MLPs and a small CNN needs, over {@link
 * Tensor}s that this backend owns. Implementations: the plain-Java reference backend (the test
 * oracle), ND4J on the CPU, and CUDA in {@code gpu-backend}. Every backend must pass the
 * conformance suite in this module's tests.
 *
 * <p>Conventions: all tensors are dense row-major float32; an op that writes {@code out} may be
 * given {@code out} equal to one of its inputs unless its javadoc says otherwise; shapes are
 * checked and a mismatch throws {@link IllegalArgumentException}; a backend is used from one thread
 * at a time (it may use more threads inside an op).
 */
public interface TensorBackend extends AutoCloseable {

    /** Short name, as given to {@code --backend}: {@code reference}, {@code nd4j}, {@code cuda}. */
    String name();

    /** Threads this backend uses inside one op. */
    int threads();

    // ---------------------------------------------------------------- storage

    /** A new tensor filled with zeros. */
    Tensor zeros(int rows, int cols);

    /** A new tensor holding a copy of {@code data[0 .. rows*cols)}. */
    Tensor fromHost(float[] data, int rows, int cols);

    /**
     * A view of {@code rows * cols} consecutive elements of {@code base}, starting at element
     * {@code offset} of {@code base}'s row-major order. The view shares storage with {@code base}.
     */
    Tensor view(Tensor base, long offset, int rows, int cols);

    /** Fills all of {@code dst} from {@code src[srcOffset ..]}. */
    void copyFromHost(float[] src, int srcOffset, Tensor dst);

    /** Copies all of {@code src} into {@code dst[dstOffset ..]}. */
    void copyToHost(Tensor src, float[] dst, int dstOffset);

    /** {@code dst = src}; same number of elements. */
    void copy(Tensor src, Tensor dst);

    void fill(Tensor t, float value);

    // ---------------------------------------------------------------- BLAS

    /**
     * {@code c = alpha * op(a) * op(b) + beta * c}, where {@code op(x)} is {@code x} or its
     * transpose. {@code c} must not alias {@code a} or {@code b}. With {@code beta == 0} the prior
     * contents of {@code c} are ignored (even NaN).
     */
    void gemm(boolean transA, boolean transB, float alpha, Tensor a, Tensor b, float beta, Tensor c);

    /** {@code y += alpha * x}; same number of elements. */
    void axpy(float alpha, Tensor x, Tensor y);

    /** {@code x *= alpha}. */
    void scale(float alpha, Tensor x);

    /** Sum of {@code x[i] * y[i]}. */
    float dot(Tensor x, Tensor y);

    /** Sum of all elements. */
    float sum(Tensor x);

    /** Sum of squares of all elements. */
    float sumOfSquares(Tensor x);

    // ---------------------------------------------------------------- element-wise

    /** {@code out = a + b}, element-wise, same shapes. */
    void add(Tensor a, Tensor b, Tensor out);

    /** {@code out = a - b}, element-wise, same shapes. */
    void sub(Tensor a, Tensor b, Tensor out);

    /** {@code out = a * b} (Hadamard product), same shapes. */
    void mul(Tensor a, Tensor b, Tensor out);

    /** {@code m[i][j] += row[j]} for every row {@code i}; {@code row} has {@code m.cols()} elements. */
    void addRowVector(Tensor m, Tensor row);

    /**
     * {@code out[j] = beta * out[j] + sum_i m[i][j]}: column sums of {@code m} (the bias gradient);
     * {@code out} has {@code m.cols()} elements.
     */
    void sumRows(Tensor m, float beta, Tensor out);

    /** {@code out = f(in)}, element-wise. */
    void activation(Activation f, Tensor in, Tensor out);

    /**
     * {@code gradIn = gradOut * f'(x)}, where the derivative is computed from the activation's
     * output {@code out = f(x)} (see {@link Activation}).
     */
    void activationBackward(Activation f, Tensor out, Tensor gradOut, Tensor gradIn);

    // ---------------------------------------------------------------- losses

    /**
     * Softmax cross-entropy over the rows of {@code logits} ({@code batch x classes}) against
     * {@code targets} (one-hot or soft labels, same shape). Writes the softmax into {@code probs}
     * (may be null) and, when {@code grad} is not null, {@code grad = (softmax - targets) / batch}.
     * Returns the mean loss over the batch. Numerically stable (log-sum-exp).
     */
    float softmaxCrossEntropy(Tensor logits, Tensor targets, Tensor probs, Tensor grad);

    /**
     * Element-wise sigmoid binary cross-entropy of {@code logits} against {@code targets} in [0,1].
     * Writes {@code sigmoid(logits)} into {@code probs} (may be null) and, when {@code grad} is not
     * null, {@code grad = (sigmoid(logits) - targets) / n} with {@code n} the element count. Returns
     * the mean loss, computed as {@code max(x,0) - x*y + log(1 + e^-|x|)}.
     */
    float sigmoidCrossEntropy(Tensor logits, Tensor targets, Tensor probs, Tensor grad);

    // ---------------------------------------------------------------- convolution and pooling

    /**
     * Lays out the patches of a batch of NHWC images ({@code batch x g.inputSize()}) as a matrix of
     * {@code (batch * outHeight * outWidth) x g.taps()}; zero padding. See {@link ConvGeometry}.
     */
    void im2col(Tensor images, ConvGeometry g, Tensor cols);

    /**
     * The adjoint of {@link #im2col}: overwrites {@code images} ({@code batch x g.inputSize()}) with
     * the sum of every patch entry of {@code cols} scattered back to the pixel it came from.
     */
    void col2im(Tensor cols, ConvGeometry g, Tensor images);

    /**
     * Max pooling of NHWC images: {@code out} is {@code batch x g.outputSize()}; {@code argmax}
     * (same shape as {@code out}) receives, as a float, the index within the input row of the
     * element each output took (the first maximum on ties).
     */
    void maxPool(Tensor in, PoolGeometry g, Tensor out, Tensor argmax);

    /** Overwrites {@code gradIn} with {@code gradOut} routed back through {@code argmax}. */
    void maxPoolBackward(Tensor gradOut, Tensor argmax, PoolGeometry g, Tensor gradIn);

    // ---------------------------------------------------------------- optimizer updates

    /**
     * One SGD step with momentum and L2 weight decay, in PyTorch's formulation (Sutskever et al.
     * 2013): {@code g = grad + wd*p; v = momentum*v + g; p -= lr * (nesterov ? g + momentum*v : v)}.
     * With {@code momentum == 0}, {@code velocity} may be null.
     */
    void sgdStep(
            Tensor params,
            Tensor grads,
            Tensor velocity,
            float learningRate,
            float momentum,
            float weightDecay,
            boolean nesterov);

    /**
     * One Adam step (Kingma and Ba 2015) with L2 weight decay added to the gradient and bias
     * correction for step {@code t >= 1}: {@code m = b1*m + (1-b1)*g; v = b2*v + (1-b2)*g^2; p -=
     * lr/(1-b1^t) * m / (sqrt(v)/sqrt(1-b2^t) + eps)}.
     */
    void adamStep(
            Tensor params,
            Tensor grads,
            Tensor m,
            Tensor v,
            float learningRate,
            float beta1,
            float beta2,
            float epsilon,
            float weightDecay,
            long t);

    /** Releases what the backend holds (thread pools, device context). Tensors die with it. */
    @Override
    void close();
}
