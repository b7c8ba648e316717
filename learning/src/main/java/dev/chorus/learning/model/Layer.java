package dev.chorus.learning.model;

import dev.chorus.learning.tensor.Tensor;
import dev.chorus.learning.tensor.TensorBackend;
import java.util.SplittableRandom;

/**
 * One stage of a {@link Sequential} model, mapping a batch of {@code batch x inputSize()} rows to
 * {@code batch x outputSize()} rows.
 *
 * <p>A layer owns no parameter storage: the model hands it views into its flat parameter and
 * gradient tensors with {@link #bind}. It does own its working buffers (outputs, input gradients,
 * patch matrices), allocated on the first batch of each size and reused afterwards.
 *
 * <p>Contract of a step: {@link #forward} then {@link #backward} with a gradient of the same batch
 * size. The tensor that {@code forward} returns stays valid until the next {@code forward}; the
 * layer may keep a reference to its input until the matching {@code backward}. {@code backward}
 * overwrites (does not accumulate into) the layer's parameter gradients.
 */
public interface Layer extends AutoCloseable {

    /** Floats per input sample. */
    int inputSize();

    /** Floats per output sample. */
    int outputSize();

    /** Floats of the flat parameter vector this layer uses; 0 for parameter-free layers. */
    int parameterCount();

    /**
     * Attaches the layer to a backend and, for layers with parameters, to its slices of the model's
     * flat parameter and gradient tensors (both {@code 1 x parameterCount()}; null when the count
     * is 0). Called once, by the model.
     */
    void bind(TensorBackend backend, Tensor parameters, Tensor gradients);

    /**
     * Writes this layer's initial parameters into {@code parameters[offset .. offset +
     * parameterCount())}, drawing from {@code random}. A no-op for parameter-free layers.
     */
    void initialize(WeightInit init, SplittableRandom random, float[] parameters, int offset);

    /** Computes the output of a {@code batch x inputSize()} input. */
    Tensor forward(Tensor input);

    /**
     * Given the loss gradient with respect to the last output, writes the parameter gradients and,
     * when {@code propagate} is true, returns the gradient with respect to the last input (else
     * null: the first layer of a model need not compute it).
     */
    Tensor backward(Tensor gradOutput, boolean propagate);

    /** A short description, e.g. {@code dense 784->64}. */
    String describe();

    /** Frees the working buffers; the parameter views belong to the model. */
    @Override
    void close();
}
