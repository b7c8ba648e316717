package dev.chorus.learning.model;

import dev.chorus.learning.tensor.Tensor;
import dev.chorus.learning.tensor.TensorBackend;
import java.util.Arrays;

/**
 * Softmax over {@code classes} logits followed by cross-entropy against one-hot targets, through
 * the backend's fused, log-sum-exp-stable {@link TensorBackend#softmaxCrossEntropy}: its gradient
 * with respect to the logits is {@code (softmax - onehot) / batch}. For multi-class tasks.
 */
public final class SoftmaxCrossEntropyLoss implements Loss {

    private final TensorBackend backend;
    private final int classes;
    private final BatchBuffer targets;
    private final BatchBuffer probabilities;
    private float[] hostTargets = new float[0];

    public SoftmaxCrossEntropyLoss(TensorBackend backend, int classes) {
        if (classes < 2) {
            throw new IllegalArgumentException("softmax cross-entropy needs at least 2 classes, got " + classes);
        }
        this.backend = backend;
        this.classes = classes;
        this.targets = new BatchBuffer(backend, classes);
        this.probabilities = new BatchBuffer(backend, classes);
    }

    /**
     * Writes one-hot rows for {@code labels[offset .. offset + count)} into {@code out[0 .. count *
     * classes)}.
     *
     * @throws IllegalArgumentException on a label outside {@code [0, classes)}
     */
    public static void oneHot(int[] labels, int offset, int count, int classes, float[] out) {
        if (offset < 0 || count < 0 || offset + count > labels.length) {
            throw new IllegalArgumentException(
                    "labels [" + offset + ", " + (offset + count) + ") outside an array of " + labels.length);
        }
        if (out.length < count * classes) {
            throw new IllegalArgumentException("one-hot buffer of " + out.length + " floats, need " + count * classes);
        }
        Arrays.fill(out, 0, count * classes, 0f);
        for (int i = 0; i < count; i++) {
            int label = labels[offset + i];
            if (label < 0 || label >= classes) {
                throw new IllegalArgumentException(
                        "label " + label + " at index " + (offset + i) + " outside [0, " + classes + ")");
            }
            out[i * classes + label] = 1f;
        }
    }

    @Override
    public int classes() {
        return classes;
    }

    @Override
    public int logitWidth() {
        return classes;
    }

    @Override
    public float lossAndGradient(Tensor logits, int[] labels, int offset, Tensor gradLogits) {
        int batch = checkLogits(logits);
        if (hostTargets.length < batch * classes) {
            hostTargets = new float[batch * classes];
        }
        oneHot(labels, offset, batch, classes, hostTargets);
        Tensor y = targets.rows(batch);
        backend.copyFromHost(hostTargets, 0, y);
        return backend.softmaxCrossEntropy(logits, y, null, gradLogits);
    }

    @Override
    public void probabilities(Tensor logits, float[] out, int outOffset) {
        int batch = checkLogits(logits);
        // The fused op needs targets; all-zero ones leave the softmax untouched.
        Tensor zeros = targets.rows(batch);
        backend.fill(zeros, 0f);
        Tensor p = probabilities.rows(batch);
        backend.softmaxCrossEntropy(logits, zeros, p, null);
        backend.copyToHost(p, out, outOffset);
    }

    private int checkLogits(Tensor logits) {
        if (logits.cols() != classes) {
            throw new IllegalArgumentException(
                    "softmax cross-entropy over " + classes + " classes got " + logits.cols() + " logits per row");
        }
        return logits.rows();
    }

    @Override
    public void close() {
        targets.close();
        probabilities.close();
    }
}
