/**
 * The tensor SPI: {@link dev.chorus.learning.tensor.TensorBackend} and its operations, the
 * {@link java.util.ServiceLoader} discovery of backends ({@link dev.chorus.learning.tensor.TensorBackends}), the
 * geometry records of convolution and pooling, and the argument checks every backend shares
 * ({@link dev.chorus.learning.tensor.TensorChecks}). Backends live in sub-packages (and in {@code gpu-backend}).
 */
package dev.chorus.learning.tensor;
