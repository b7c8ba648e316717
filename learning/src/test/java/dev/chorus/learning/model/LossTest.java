package dev.chorus.learning.model;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import dev.chorus.learning.tensor.Tensor;
import dev.chorus.learning.tensor.TensorBackend;
import dev.chorus.learning.tensor.reference.ReferenceBackend;
import org.junit.jupiter.api.Test;

/** Loss values, gradients and probabilities on inputs small enough to work out by hand. */
class LossTest {

    private final TensorBackend backend = new ReferenceBackend();

    @Test
    void oneHotRowsFromLabels() {
        float[] out = new float[8];
        out[7] = 9f; // beyond count * classes: left alone
        SoftmaxCrossEntropyLoss.oneHot(new int[] {5, 2, 0, 1}, 1, 2, 3, out);
        assertThat(out).containsExactly(0, 0, 1, 1, 0, 0, 0, 9);
        assertThatThrownBy(() -> SoftmaxCrossEntropyLoss.oneHot(new int[] {3}, 0, 1, 3, new float[3]))
                .hasMessage("label 3 at index 0 outside [0, 3)");
        assertThatThrownBy(() -> SoftmaxCrossEntropyLoss.oneHot(new int[] {0}, 0, 2, 3, new float[6]))
                .hasMessage("labels [0, 2) outside an array of 1");
    }

    @Test
    void softmaxOfEqualLogits() {
        // Two rows of equal logits: loss ln 3; gradient (1/3 - onehot) / 2.
        try (SoftmaxCrossEntropyLoss loss = new SoftmaxCrossEntropyLoss(backend, 3)) {
            Tensor logits = backend.zeros(2, 3);
            Tensor grad = backend.zeros(2, 3);
            float value = loss.lossAndGradient(logits, new int[] {9, 2, 0}, 1, grad);
            assertThat(value).isCloseTo((float) Math.log(3), within(1e-6f));
            float[] g = new float[6];
            backend.copyToHost(grad, g, 0);
            float third = 1f / 6, minus = (1f / 3 - 1) / 2;
            assertThat(g).containsExactly(new float[] {third, third, minus, minus, third, third}, within(1e-6f));
            float[] p = new float[6];
            loss.probabilities(logits, p, 0);
            assertThat(p).containsOnly(1f / 3);
        }
    }

    @Test
    void binaryCrossEntropyOfKnownLogits() {
        // logits [0, ln 3]: sigmoid [1/2, 3/4]; labels [1, 0]:
        // loss = (ln 2 + ln 4) / 2; gradient [(1/2 - 1) / 2, (3/4 - 0) / 2].
        try (BinaryCrossEntropyLoss loss = new BinaryCrossEntropyLoss(backend)) {
            Tensor logits = backend.fromHost(new float[] {0, (float) Math.log(3)}, 2, 1);
            Tensor grad = backend.zeros(2, 1);
            float value = loss.lossAndGradient(logits, new int[] {1, 0}, 0, grad);
            assertThat(value).isCloseTo((float) ((Math.log(2) + Math.log(4)) / 2), within(1e-6f));
            float[] g = new float[2];
            backend.copyToHost(grad, g, 0);
            assertThat(g).containsExactly(new float[] {-0.25f, 0.375f}, within(1e-6f));
            float[] p = new float[4];
            loss.probabilities(logits, p, 0);
            assertThat(p).containsExactly(new float[] {0.5f, 0.5f, 0.25f, 0.75f}, within(1e-6f));
            assertThatThrownBy(() -> loss.lossAndGradient(logits, new int[] {1, 2}, 0, null))
                    .hasMessage("label 2 at index 1 outside [0, 2)");
            assertThatThrownBy(() -> loss.lossAndGradient(backend.zeros(2, 2), new int[] {1, 0}, 0, null))
                    .hasMessage("binary cross-entropy expects one logit per row, got 2");
        }
    }

    @Test
    void binaryCrossEntropyStaysFiniteForHugeLogits() {
        try (BinaryCrossEntropyLoss loss = new BinaryCrossEntropyLoss(backend)) {
            float value = loss.lossAndGradient(backend.fromHost(new float[] {-200f}, 1, 1), new int[] {1}, 0, null);
            assertThat(value).isCloseTo(200f, within(1e-3f));
        }
    }
}
