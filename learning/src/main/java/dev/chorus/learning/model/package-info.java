/**
 * Models whose parameters all live in one flat float32 vector: layers ({@link
 * dev.chorus.learning.model.Dense}, {@link dev.chorus.learning.model.ActivationLayer}, {@link
 * dev.chorus.learning.model.Conv2d}, {@link dev.chorus.learning.model.MaxPool2d}) see views into the
 * parameter and gradient tensors of their {@link dev.chorus.learning.model.Sequential} model, so
 * that averaging, serialization and masking work on the whole vector at once. Also the losses that
 * close a model and the {@link dev.chorus.learning.model.ModelSpec} parser of the command-line
 * forms.
 *
 * <p>Everything here computes through the {@link dev.chorus.learning.tensor.TensorBackend} SPI
 * only, so every backend runs every model. This package knows nothing of optimizers, data files or
 * the network.
 */
package dev.chorus.learning.model;
