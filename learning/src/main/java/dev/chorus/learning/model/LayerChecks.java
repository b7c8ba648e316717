package dev.chorus.learning.model;

import dev.chorus.learning.tensor.Tensor;
import dev.chorus.learning.tensor.TensorBackend;

/** Argument checks shared by the layers, each failing with a one-line message. */
final class LayerChecks {

    private LayerChecks() {}

    static void bindOnce(TensorBackend current, Tensor parameters, Tensor gradients, int count) {
        if (current != null) {
            throw new IllegalStateException("layer is already bound to a model");
        }
        if (count == 0) {
            return;
        }
        if (parameters == null || gradients == null) {
            throw new IllegalArgumentException("a layer with parameters needs parameter and gradient views");
        }
        if (parameters.size() != count || gradients.size() != count) {
            throw new IllegalArgumentException("layer needs " + count + " parameters, got views of " + parameters.size()
                    + " and " + gradients.size());
        }
    }

    static void input(Layer layer, TensorBackend backend, Tensor input) {
        if (backend == null) {
            throw new IllegalStateException(layer.describe() + " is not bound to a model");
        }
        if (input.backend() != backend) {
            throw new IllegalArgumentException(
                    "input belongs to backend " + input.backend().name() + ", not to the layer's " + backend.name());
        }
        if (input.cols() != layer.inputSize() || input.rows() <= 0) {
            throw new IllegalArgumentException(layer.describe() + " expects batch x " + layer.inputSize()
                    + " input, got " + input.rows() + "x" + input.cols());
        }
    }

    static void gradOutput(Layer layer, Tensor lastInput, Tensor gradOutput) {
        if (lastInput == null) {
            throw new IllegalStateException(layer.describe() + ": backward before forward");
        }
        if (gradOutput.rows() != lastInput.rows() || gradOutput.cols() != layer.outputSize()) {
            throw new IllegalArgumentException(layer.describe() + " expects a " + lastInput.rows() + "x"
                    + layer.outputSize() + " output gradient, got " + gradOutput.rows() + "x" + gradOutput.cols());
        }
    }
}
