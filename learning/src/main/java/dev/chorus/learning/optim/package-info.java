/**
 * First-order optimizers over a model's flat parameter and gradient tensors: {@link
 * dev.chorus.learning.optim.Sgd} (with momentum, Nesterov momentum and weight decay) and {@link
 * dev.chorus.learning.optim.Adam}, each one fused backend op per step, and the {@link
 * dev.chorus.learning.optim.OptimizerSpec} parser of their command-line forms. Optimizers see only
 * tensors, never models or data.
 */
package dev.chorus.learning.optim;
