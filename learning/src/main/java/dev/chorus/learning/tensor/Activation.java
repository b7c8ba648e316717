package dev.chorus.learning.tensor;

/**
 * Element-wise activation functions. Each derivative is expressed through the activation's
 * <em>output</em>, so that a layer keeps only its output for the backward pass.
 */
public enum Activation {
    /** {@code f(x) = x}. */
    IDENTITY,
    /** {@code f(x) = max(0, x)}; {@code f'} = 1 where the output is positive, else 0. */
    RELU,
    /** {@code f(x) = 1 / (1 + e^-x)}; {@code f' = y (1 - y)}. */
    SIGMOID,
    /** {@code f(x) = tanh(x)}; {@code f' = 1 - y^2}. */
    TANH
}
