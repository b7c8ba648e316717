package dev.chorus.learning.model;

import dev.chorus.learning.tensor.Tensor;

/**
 * The training objective that closes a model: it turns the logits of a batch and their integer
 * labels into a mean loss and the gradient of that mean with respect to the logits, and turns
 * logits into class probabilities for prediction.
 */
public interface Loss extends AutoCloseable {

    /** Classes of the task. */
    int classes();

    /** Logits per sample that this loss expects from the model. */
    int logitWidth();

    /**
     * The mean loss of a {@code batch x logitWidth()} logit tensor against {@code
     * labels[offset .. offset + batch)}; when {@code gradLogits} (same shape as the logits) is not
     * null, it receives the gradient of that mean.
     *
     * @throws IllegalArgumentException on a label outside {@code [0, classes())}
     */
    float lossAndGradient(Tensor logits, int[] labels, int offset, Tensor gradLogits);

    /**
     * Writes the class probabilities of a {@code batch x logitWidth()} logit tensor into {@code
     * out[outOffset ..]}, row-major, {@code classes()} per sample.
     */
    void probabilities(Tensor logits, float[] out, int outOffset);

    @Override
    void close();
}
