package dev.chorus.aggregation.weighting;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import org.junit.jupiter.api.Test;

class UpdateWeightingTest {

    @Test
    void uniformPairwiseRateIsOneHalf() {
        assertThat(UpdateWeighting.uniform().pairwiseRate(10, 3, 1000, 90)).isEqualTo(0.5);
    }

    @Test
    void sampleCountWeighting() {
        UpdateWeighting w = new UpdateWeighting(StalenessWeighting.constant(), true);
        assertThat(w.weight(30, 7)).isEqualTo(30.0);
        assertThat(w.pairwiseRate(10, 0, 30, 0)).isCloseTo(0.75, within(1e-12));
        assertThat(w.pairwiseRate(0, 0, 0, 0)).isEqualTo(0.5);
    }

    @Test
    void stalenessIsMeasuredFromTheNewerModel() {
        UpdateWeighting w = new UpdateWeighting(StalenessWeighting.polynomial(0.5), false);
        // Local at version 10, remote at 7: the remote lags 3, weight 1/2, local weight 1: rate 0.5 / 1.5.
        assertThat(w.pairwiseRate(1, 10, 1, 7)).isCloseTo(1.0 / 3, within(1e-12));
        assertThat(w.pairwiseRate(1, 7, 1, 10)).isCloseTo(2.0 / 3, within(1e-12));
    }

    @Test
    void pairwiseRatesOfBothSidesSumToOne() {
        UpdateWeighting w = new UpdateWeighting(StalenessWeighting.hinge(2, 1), true);
        for (long a = 0; a < 5; a++) {
            for (long va = 0; va < 6; va++) {
                for (long vb = 0; vb < 6; vb++) {
                    double ab = w.pairwiseRate(a, va, 3, vb);
                    double ba = w.pairwiseRate(3, vb, a, va);
                    assertThat(ab + ba).isCloseTo(1.0, within(1e-12));
                }
            }
        }
    }

    @Test
    void rejectsNegativeInputs() {
        assertThatThrownBy(() -> UpdateWeighting.uniform().weight(-1, 0)).hasMessageContaining("negative sample count");
        assertThatThrownBy(() -> UpdateWeighting.uniform().weight(1, -1)).hasMessageContaining("negative staleness");
    }
}
