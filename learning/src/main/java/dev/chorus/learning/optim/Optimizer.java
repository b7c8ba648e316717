package dev.chorus.learning.optim;

import dev.chorus.learning.tensor.Tensor;

/**
 * Updates a flat parameter tensor from the gradient tensor of the same size, one fused backend op
 * per {@link #step}. State (velocities, moment estimates) is allocated on the first step, on the
 * parameters' backend, and is tied to that size from then on.
 */
public interface Optimizer extends AutoCloseable {

    /**
     * Applies one update to {@code parameters} from {@code gradients} (both with the same number of
     * elements, on the same backend).
     */
    void step(Tensor parameters, Tensor gradients);

    /** Steps taken since creation or the last {@link #reset()}. */
    long steps();

    float learningRate();

    /** Changes the learning rate for the following steps (for schedules). */
    void setLearningRate(float learningRate);

    /**
     * Forgets the accumulated state, as if no step had been taken; use after the parameters were
     * replaced wholesale (e.g. a checkpoint restore).
     */
    void reset();

    /** Copies the state to the host (for a checkpoint); the optimizer is unchanged. */
    OptimizerSnapshot snapshot();

    /**
     * Replaces the state with {@code snapshot} (from a checkpoint of an optimizer of the same kind),
     * allocating it on the backend of {@code parameters}.
     *
     * @throws IllegalArgumentException when the snapshot has the wrong number of state vectors or a
     *     vector whose length differs from {@code parameters}
     */
    void restore(OptimizerSnapshot snapshot, Tensor parameters);

    /** Frees the state tensors. */
    @Override
    void close();
}
