package dev.chorus.learning.model;

import dev.chorus.learning.tensor.Tensor;
import dev.chorus.learning.tensor.TensorBackend;
import java.util.Arrays;
import java.util.SplittableRandom;

/**
 * A fully connected layer, {@code y = x W + b}, with {@code W} of shape {@code in x out} (so the
 * forward pass is one gemm without transposes) and {@code b} of {@code out}. In the flat parameter
 * vector, the layer's slice holds {@code W} row-major, then {@code b}.
 *
 * <p>Backward: {@code dW = x^T dy}, {@code db = column sums of dy}, {@code dx = dy W^T}.
 */
public final class Dense implements Layer {

    private final int in;
    private final int out;
    private TensorBackend backend;
    private Tensor weights;
    private Tensor bias;
    private Tensor weightGrad;
    private Tensor biasGrad;
    private BatchBuffer output;
    private BatchBuffer inputGrad;
    private Tensor lastInput;

    public Dense(int in, int out) {
        if (in <= 0 || out <= 0) {
            throw new IllegalArgumentException("dense layer sizes must be positive, got " + in + "->" + out);
        }
        this.in = in;
        this.out = out;
    }

    @Override
    public int inputSize() {
        return in;
    }

    @Override
    public int outputSize() {
        return out;
    }

    @Override
    public int parameterCount() {
        return in * out + out;
    }

    /** The {@code in x out} weight view (valid once bound). */
    public Tensor weights() {
        return weights;
    }

    /** The {@code 1 x out} bias view (valid once bound). */
    public Tensor bias() {
        return bias;
    }

    @Override
    public void bind(TensorBackend backend, Tensor parameters, Tensor gradients) {
        LayerChecks.bindOnce(this.backend, parameters, gradients, parameterCount());
        this.backend = backend;
        weights = backend.view(parameters, 0, in, out);
        bias = backend.view(parameters, (long) in * out, 1, out);
        weightGrad = backend.view(gradients, 0, in, out);
        biasGrad = backend.view(gradients, (long) in * out, 1, out);
        output = new BatchBuffer(backend, out);
        inputGrad = new BatchBuffer(backend, in);
    }

    @Override
    public void initialize(WeightInit init, SplittableRandom random, float[] parameters, int offset) {
        init.fill(random, parameters, offset, in * out, in, out);
        Arrays.fill(parameters, offset + in * out, offset + in * out + out, 0f);
    }

    @Override
    public Tensor forward(Tensor input) {
        LayerChecks.input(this, backend, input);
        Tensor y = output.rows(input.rows());
        backend.gemm(false, false, 1f, input, weights, 0f, y);
        backend.addRowVector(y, bias);
        lastInput = input;
        return y;
    }

    @Override
    public Tensor backward(Tensor gradOutput, boolean propagate) {
        LayerChecks.gradOutput(this, lastInput, gradOutput);
        backend.gemm(true, false, 1f, lastInput, gradOutput, 0f, weightGrad);
        backend.sumRows(gradOutput, 0f, biasGrad);
        if (!propagate) {
            return null;
        }
        Tensor dx = inputGrad.rows(gradOutput.rows());
        backend.gemm(false, true, 1f, gradOutput, weights, 0f, dx);
        return dx;
    }

    @Override
    public String describe() {
        return "dense " + in + "->" + out;
    }

    @Override
    public void close() {
        if (output != null) {
            output.close();
            inputGrad.close();
        }
        lastInput = null;
    }
}
