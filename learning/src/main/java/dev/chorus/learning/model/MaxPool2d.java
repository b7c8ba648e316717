package dev.chorus.learning.model;

import dev.chorus.learning.tensor.PoolGeometry;
import dev.chorus.learning.tensor.Tensor;
import dev.chorus.learning.tensor.TensorBackend;
import java.util.SplittableRandom;

/**
 * Max pooling over channels-last images, without padding. It records where each maximum came from
 * and routes the gradient back to exactly that input (the first maximum on ties).
 */
public final class MaxPool2d implements Layer {

    private final PoolGeometry geometry;
    private TensorBackend backend;
    private BatchBuffer output;
    private BatchBuffer argmax;
    private BatchBuffer inputGrad;
    private Tensor lastArgmax;

    public MaxPool2d(PoolGeometry geometry) {
        if (geometry == null) {
            throw new IllegalArgumentException("max pooling needs a geometry");
        }
        this.geometry = geometry;
    }

    public PoolGeometry geometry() {
        return geometry;
    }

    @Override
    public int inputSize() {
        return geometry.inputSize();
    }

    @Override
    public int outputSize() {
        return geometry.outputSize();
    }

    @Override
    public int parameterCount() {
        return 0;
    }

    @Override
    public void bind(TensorBackend backend, Tensor parameters, Tensor gradients) {
        LayerChecks.bindOnce(this.backend, parameters, gradients, 0);
        this.backend = backend;
        output = new BatchBuffer(backend, geometry.outputSize());
        argmax = new BatchBuffer(backend, geometry.outputSize());
        inputGrad = new BatchBuffer(backend, geometry.inputSize());
    }

    @Override
    public void initialize(WeightInit init, SplittableRandom random, float[] parameters, int offset) {}

    @Override
    public Tensor forward(Tensor input) {
        LayerChecks.input(this, backend, input);
        int batch = input.rows();
        Tensor y = output.rows(batch);
        lastArgmax = argmax.rows(batch);
        backend.maxPool(input, geometry, y, lastArgmax);
        return y;
    }

    @Override
    public Tensor backward(Tensor gradOutput, boolean propagate) {
        LayerChecks.gradOutput(this, lastArgmax, gradOutput);
        if (!propagate) {
            return null;
        }
        Tensor dx = inputGrad.rows(gradOutput.rows());
        backend.maxPoolBackward(gradOutput, lastArgmax, geometry, dx);
        return dx;
    }

    @Override
    public String describe() {
        return "maxpool " + geometry.size() + " stride " + geometry.stride() + " on " + geometry.height() + "x"
                + geometry.width() + "x" + geometry.channels();
    }

    @Override
    public void close() {
        if (output != null) {
            output.close();
            argmax.close();
            inputGrad.close();
        }
        lastArgmax = null;
    }
}
