package dev.chorus.learning.model;

import dev.chorus.learning.tensor.Activation;
import dev.chorus.learning.tensor.Tensor;
import dev.chorus.learning.tensor.TensorBackend;
import java.util.Locale;
import java.util.SplittableRandom;

/**
 * An element-wise non-linearity ({@link Activation#RELU}, {@link Activation#TANH} or {@link
 * Activation#SIGMOID}) over rows of {@code width} floats. It keeps its output for the backward pass,
 * since each derivative is a function of the output.
 */
public final class ActivationLayer implements Layer {

    private final Activation function;
    private final int width;
    private TensorBackend backend;
    private BatchBuffer output;
    private BatchBuffer inputGrad;
    private Tensor lastOutput;

    public ActivationLayer(Activation function, int width) {
        if (function == null || function == Activation.IDENTITY) {
            throw new IllegalArgumentException("activation layer needs relu, tanh or sigmoid, got " + function);
        }
        if (width <= 0) {
            throw new IllegalArgumentException("activation width must be positive, got " + width);
        }
        this.function = function;
        this.width = width;
    }

    public Activation function() {
        return function;
    }

    @Override
    public int inputSize() {
        return width;
    }

    @Override
    public int outputSize() {
        return width;
    }

    @Override
    public int parameterCount() {
        return 0;
    }

    @Override
    public void bind(TensorBackend backend, Tensor parameters, Tensor gradients) {
        LayerChecks.bindOnce(this.backend, parameters, gradients, 0);
        this.backend = backend;
        output = new BatchBuffer(backend, width);
        inputGrad = new BatchBuffer(backend, width);
    }

    @Override
    public void initialize(WeightInit init, SplittableRandom random, float[] parameters, int offset) {}

    @Override
    public Tensor forward(Tensor input) {
        LayerChecks.input(this, backend, input);
        Tensor y = output.rows(input.rows());
        backend.activation(function, input, y);
        lastOutput = y;
        return y;
    }

    @Override
    public Tensor backward(Tensor gradOutput, boolean propagate) {
        LayerChecks.gradOutput(this, lastOutput, gradOutput);
        if (!propagate) {
            return null;
        }
        Tensor dx = inputGrad.rows(gradOutput.rows());
        backend.activationBackward(function, lastOutput, gradOutput, dx);
        return dx;
    }

    @Override
    public String describe() {
        return function.name().toLowerCase(Locale.ROOT) + " " + width;
    }

    @Override
    public void close() {
        if (output != null) {
            output.close();
            inputGrad.close();
        }
        lastOutput = null;
    }
}
