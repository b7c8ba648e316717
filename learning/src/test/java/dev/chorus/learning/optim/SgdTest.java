package dev.chorus.learning.optim;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import dev.chorus.learning.tensor.Tensor;
import dev.chorus.learning.tensor.TensorBackend;
import dev.chorus.learning.tensor.reference.ReferenceBackend;
import org.junit.jupiter.api.Test;

/** Updates against values worked out by hand from the formulas in {@link Sgd}'s javadoc. */
class SgdTest {

    private final TensorBackend backend = new ReferenceBackend();

    private float[] twoSteps(Optimizer sgd, float[] start, float[] grad) {
        Tensor p = backend.fromHost(start, 1, start.length);
        Tensor g = backend.fromHost(grad, 1, grad.length);
        sgd.step(p, g);
        sgd.step(p, g);
        float[] out = new float[start.length];
        backend.copyToHost(p, out, 0);
        return out;
    }

    @Test
    void plainSgdSubtractsTheScaledGradient() {
        // p = 1 - 2 * 0.1 * 0.5 = 0.9 ; p = 3 - 2 * 0.1 * (-1) = 3.2
        float[] p = twoSteps(new Sgd(0.1f, 0f, 0f, false), new float[] {1, 3}, new float[] {0.5f, -1});
        assertThat(p).containsExactly(new float[] {0.9f, 3.2f}, within(1e-6f));
    }

    @Test
    void momentumAndWeightDecay() {
        // lr 0.1, momentum 0.9, decay 0.01, g = 0.5 on p = 1:
        // g1 = 0.51, v1 = 0.51, p1 = 0.949; g2 = 0.50949, v2 = 0.96849, p2 = 0.852151.
        // Decay alone on p = -2 (g = 0): v1 = -0.02, p1 = -1.998; v2 = -0.03798, p2 = -1.994202.
        Sgd sgd = new Sgd(0.1f, 0.9f, 0.01f, false);
        float[] p = twoSteps(sgd, new float[] {1, -2}, new float[] {0.5f, 0});
        assertThat(p).containsExactly(new float[] {0.852151f, -1.994202f}, within(1e-6f));
        assertThat(sgd.steps()).isEqualTo(2);
    }

    @Test
    void nesterovMomentum() {
        // p1 = 1 - 0.1 * (0.51 + 0.9 * 0.51) = 0.9031;
        // g2 = 0.509031, v2 = 0.968031, p2 = 0.9031 - 0.1 * (0.509031 + 0.8712279) = 0.76507411.
        float[] p = twoSteps(new Sgd(0.1f, 0.9f, 0.01f, true), new float[] {1}, new float[] {0.5f});
        assertThat(p[0]).isCloseTo(0.76507411f, within(1e-6f));
    }

    @Test
    void resetForgetsTheVelocity() {
        Sgd sgd = new Sgd(0.1f, 0.9f, 0f, false);
        Tensor p = backend.fromHost(new float[] {1}, 1, 1);
        Tensor g = backend.fromHost(new float[] {1}, 1, 1);
        sgd.step(p, g);
        sgd.reset();
        backend.copyFromHost(new float[] {1}, 0, p);
        sgd.step(p, g);
        float[] out = new float[1];
        backend.copyToHost(p, out, 0);
        assertThat(out[0]).isCloseTo(0.9f, within(1e-7f));
        assertThat(sgd.steps()).isEqualTo(1);
    }

    @Test
    void hyperParametersAreChecked() {
        assertThatThrownBy(() -> new Sgd(0f, 0f, 0f, false))
                .hasMessage("learning rate must be a finite number > 0, got 0.0");
        assertThatThrownBy(() -> new Sgd(0.1f, 1f, 0f, false)).hasMessage("sgd momentum must be in [0, 1), got 1.0");
        assertThatThrownBy(() -> new Sgd(0.1f, 0f, -1f, false))
                .hasMessage("sgd weight_decay must be a finite number >= 0, got -1.0");
        assertThatThrownBy(() -> new Sgd(0.1f, 0f, 0f, true)).hasMessage("sgd nesterov=true needs momentum > 0");
        assertThatThrownBy(() -> new Sgd().setLearningRate(Float.NaN)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void stateIsTiedToOneParameterSize() {
        Sgd sgd = new Sgd(0.1f, 0.5f, 0f, false);
        sgd.step(backend.zeros(1, 3), backend.zeros(1, 3));
        assertThatThrownBy(() -> sgd.step(backend.zeros(1, 4), backend.zeros(1, 4)))
                .hasMessage("optimizer state was made for 3 parameters on backend reference, got 4 on reference");
        assertThatThrownBy(() -> new Sgd().step(backend.zeros(1, 3), backend.zeros(1, 2)))
                .hasMessage("parameters (3) and gradients (2) differ in size");
    }
}
