package dev.chorus.learning.model;

import dev.chorus.learning.tensor.Activation;
import dev.chorus.learning.tensor.Tensor;
import dev.chorus.learning.tensor.TensorBackend;

/**
 * Binary cross-entropy of one logit per sample, {@code P(class 1) = sigmoid(logit)}, through the
 * backend's fused {@link TensorBackend#sigmoidCrossEntropy}, which computes {@code max(x,0) - x y +
 * log(1 + e^-|x|)} to stay finite for large logits; its gradient is {@code (sigmoid(x) - y) /
 * batch}. For two-class tasks, where it halves the output layer compared with a two-way softmax.
 *
 * <p>{@link #probabilities} writes both columns, {@code 1 - p} and {@code p}, so that callers see
 * the same {@code rows x classes} layout for every task.
 */
public final class BinaryCrossEntropyLoss implements Loss {

    private final TensorBackend backend;
    private final BatchBuffer targets;
    private final BatchBuffer positives;
    private float[] host = new float[0];

    public BinaryCrossEntropyLoss(TensorBackend backend) {
        this.backend = backend;
        this.targets = new BatchBuffer(backend, 1);
        this.positives = new BatchBuffer(backend, 1);
    }

    @Override
    public int classes() {
        return 2;
    }

    @Override
    public int logitWidth() {
        return 1;
    }

    @Override
    public float lossAndGradient(Tensor logits, int[] labels, int offset, Tensor gradLogits) {
        int batch = checkLogits(logits);
        if (offset < 0 || offset + batch > labels.length) {
            throw new IllegalArgumentException(
                    "labels [" + offset + ", " + (offset + batch) + ") outside an array of " + labels.length);
        }
        ensureHost(batch);
        for (int i = 0; i < batch; i++) {
            int label = labels[offset + i];
            if (label != 0 && label != 1) {
                throw new IllegalArgumentException("label " + label + " at index " + (offset + i) + " outside [0, 2)");
            }
            host[i] = label;
        }
        Tensor y = targets.rows(batch);
        backend.copyFromHost(host, 0, y);
        return backend.sigmoidCrossEntropy(logits, y, null, gradLogits);
    }

    @Override
    public void probabilities(Tensor logits, float[] out, int outOffset) {
        int batch = checkLogits(logits);
        ensureHost(batch);
        Tensor p = positives.rows(batch);
        backend.activation(Activation.SIGMOID, logits, p);
        backend.copyToHost(p, host, 0);
        for (int i = 0; i < batch; i++) {
            out[outOffset + 2 * i] = 1f - host[i];
            out[outOffset + 2 * i + 1] = host[i];
        }
    }

    private void ensureHost(int batch) {
        if (host.length < batch) {
            host = new float[batch];
        }
    }

    private static int checkLogits(Tensor logits) {
        if (logits.cols() != 1) {
            throw new IllegalArgumentException("binary cross-entropy expects one logit per row, got " + logits.cols());
        }
        return logits.rows();
    }

    @Override
    public void close() {
        targets.close();
        positives.close();
    }
}
