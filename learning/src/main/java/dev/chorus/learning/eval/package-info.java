/**
 * Scoring a model's predicted class probabilities against true labels: accuracy and the {@link
 * dev.chorus.learning.eval.ConfusionMatrix}, ROC AUC for binary tasks ({@link
 * dev.chorus.learning.eval.RocAuc}), and {@link dev.chorus.learning.eval.LogLoss}, bundled in an
 * {@link dev.chorus.learning.eval.Evaluation}. Pure functions over arrays; no tensors.
 */
package dev.chorus.learning.eval;
