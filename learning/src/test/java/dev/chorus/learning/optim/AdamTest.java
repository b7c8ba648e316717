package dev.chorus.learning.optim;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import dev.chorus.learning.tensor.Tensor;
import dev.chorus.learning.tensor.TensorBackend;
import dev.chorus.learning.tensor.reference.ReferenceBackend;
import org.junit.jupiter.api.Test;

/** Updates against values worked out by hand from the formulas in {@link Adam}'s javadoc. */
class AdamTest {

    private final TensorBackend backend = new ReferenceBackend();

    @Test
    void twoStepsWithBiasCorrection() {
        // lr 0.1, paper betas, p = 1; step 1 with g = 0.5: the corrected m / sqrt(v) is 1, p = 0.9.
        // Step 2 with g = -0.25: m = 0.02, v = 0.00031225; m / 0.19 = 0.1052632,
        // sqrt(v / 0.001999) = 0.3952257; p = 0.9 - 0.1 * 0.1052632 / 0.3952257 = 0.8733663.
        Adam adam = new Adam(0.1f, 0.9f, 0.999f, 1e-8f, 0f);
        Tensor p = backend.fromHost(new float[] {1}, 1, 1);
        adam.step(p, backend.fromHost(new float[] {0.5f}, 1, 1));
        float[] out = new float[1];
        backend.copyToHost(p, out, 0);
        assertThat(out[0]).isCloseTo(0.9f, within(1e-6f));
        adam.step(p, backend.fromHost(new float[] {-0.25f}, 1, 1));
        backend.copyToHost(p, out, 0);
        assertThat(out[0]).isCloseTo(0.8733663f, within(2e-6f));
        assertThat(adam.steps()).isEqualTo(2);
    }

    @Test
    void firstStepMovesEveryParameterByTheLearningRate() {
        // Bias correction makes step 1 equal to lr * sign(g), whatever the gradient's scale.
        Adam adam = new Adam();
        Tensor p = backend.zeros(1, 3);
        adam.step(p, backend.fromHost(new float[] {1e-3f, -50f, 2f}, 1, 3));
        float[] out = new float[3];
        backend.copyToHost(p, out, 0);
        assertThat(out).containsExactly(new float[] {-0.001f, 0.001f, -0.001f}, within(1e-8f));
    }

    @Test
    void resetRestartsTheStepCount() {
        Adam adam = new Adam(0.1f, 0.9f, 0.999f, 1e-8f, 0f);
        Tensor p = backend.fromHost(new float[] {1}, 1, 1);
        Tensor g = backend.fromHost(new float[] {0.5f}, 1, 1);
        adam.step(p, g);
        adam.step(p, g);
        adam.reset();
        assertThat(adam.steps()).isZero();
        backend.copyFromHost(new float[] {1}, 0, p);
        adam.step(p, g);
        float[] out = new float[1];
        backend.copyToHost(p, out, 0);
        assertThat(out[0]).isCloseTo(0.9f, within(1e-6f));
    }

    @Test
    void hyperParametersAreChecked() {
        assertThatThrownBy(() -> new Adam(0.1f, 1f, 0.999f, 1e-8f, 0f))
                .hasMessage("adam beta1 must be in [0, 1), got 1.0");
        assertThatThrownBy(() -> new Adam(0.1f, 0.9f, -0.1f, 1e-8f, 0f))
                .hasMessage("adam beta2 must be in [0, 1), got -0.1");
        assertThatThrownBy(() -> new Adam(0.1f, 0.9f, 0.999f, 0f, 0f))
                .hasMessage("adam eps must be a finite number > 0, got 0.0");
        assertThatThrownBy(() -> new Adam(-1f, 0.9f, 0.999f, 1e-8f, 0f))
                .hasMessage("learning rate must be a finite number > 0, got -1.0");
    }
}
