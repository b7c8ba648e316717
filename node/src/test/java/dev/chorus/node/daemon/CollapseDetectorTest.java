package dev.chorus.node.daemon;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Arrays;
import org.junit.jupiter.api.Test;

/** The collapse rule on hand-made figures: warm-up, a 1e30 jump, non-finite values, noise. */
class CollapseDetectorTest {

    private static CollapseDetector warmedUp() {
        CollapseDetector d = new CollapseDetector();
        double[] losses = {0.52, 0.41, 0.35, 0.33, 0.30, 0.29, 0.31, 0.28};
        for (double l : losses) {
            assertThat(d.observe(l, 12.0).collapsed()).isFalse();
        }
        return d;
    }

    @Test
    void aModelOfOnes1e30IsACollapse() {
        CollapseDetector d = warmedUp();
        float[] poisoned = new float[1000];
        Arrays.fill(poisoned, 1e30f);
        double norm = CollapseDetector.norm(poisoned);
        assertThat(norm).isFinite().isGreaterThan(1e30);
        // The clipped log loss of a confidently wrong model: tens, not 1e29.
        CollapseDetector.Verdict v = d.observe(17.3, norm);
        assertThat(v.collapsed()).isTrue();
        assertThat(v.reason()).contains("validation loss 17.3").contains("recent range 0.28");
        // Even with an unremarkable loss, the norm gives it away.
        assertThat(d.observe(0.3, norm).collapsed()).isTrue();
        assertThat(d.observe(0.3, norm).reason()).startsWith("parameter norm");
    }

    @Test
    void nonFiniteValuesAreACollapseEvenDuringWarmUp() {
        CollapseDetector d = new CollapseDetector();
        assertThat(d.observe(Double.NaN, 3.0).collapsed()).isTrue();
        assertThat(d.observe(0.7, Double.POSITIVE_INFINITY).collapsed()).isTrue();
        assertThat(d.observe(0.7, CollapseDetector.norm(new float[] {1, Float.NaN}))
                        .collapsed())
                .isTrue();
        assertThat(d.healthyEvaluations()).isZero();
    }

    @Test
    void earlyTrainingDoesNotTrigger() {
        CollapseDetector d = new CollapseDetector();
        // A fresh model's first evaluations move a lot: no judgement before the warm-up.
        double[] losses = {0.05, 3.0, 9.0, 1.2};
        for (double l : losses) {
            assertThat(d.observe(l, 1 + l).collapsed()).isFalse();
        }
    }

    @Test
    void aCollapseIsNotRememberedSoTheNextOneIsJudgedTheSame() {
        CollapseDetector d = warmedUp();
        int before = d.healthyEvaluations();
        assertThat(d.observe(30, 12).collapsed()).isTrue();
        assertThat(d.healthyEvaluations()).isEqualTo(before);
        assertThat(d.observe(30, 12).collapsed()).isTrue();
        // Back in range after a revert.
        assertThat(d.observe(0.31, 12).collapsed()).isFalse();
    }

    @Test
    void aMergeThatDoublesAConvergedLossIsNotACollapse() {
        CollapseDetector d = new CollapseDetector();
        for (int i = 0; i < 20; i++) {
            d.observe(0.300 + 0.001 * (i % 3), 12.0);
        }
        assertThat(d.observe(0.6, 13.0).collapsed()).isFalse();
        assertThat(d.observe(5.0, 13.0).collapsed()).isTrue();
    }
}
