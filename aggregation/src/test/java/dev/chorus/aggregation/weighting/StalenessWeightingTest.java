package dev.chorus.aggregation.weighting;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import java.util.List;
import org.junit.jupiter.api.Test;

class StalenessWeightingTest {

    @Test
    void constantIgnoresLag() {
        assertThat(StalenessWeighting.constant().weight(0)).isEqualTo(1.0);
        assertThat(StalenessWeighting.constant().weight(1_000_000)).isEqualTo(1.0);
    }

    @Test
    void polynomialIsOnePlusLagToTheMinusA() {
        StalenessWeighting s = StalenessWeighting.polynomial(0.5);
        assertThat(s.weight(0)).isEqualTo(1.0);
        assertThat(s.weight(3)).isCloseTo(0.5, within(1e-12));
        assertThat(s.weight(99)).isCloseTo(0.1, within(1e-12));
        assertThat(StalenessWeighting.polynomial(2).weight(1)).isCloseTo(0.25, within(1e-12));
        assertThat(StalenessWeighting.polynomial(0).weight(50)).isEqualTo(1.0);
    }

    @Test
    void hingeIsFlatUpToThresholdThenHyperbolic() {
        StalenessWeighting s = StalenessWeighting.hinge(10, 4);
        assertThat(s.weight(0)).isEqualTo(1.0);
        assertThat(s.weight(4)).isEqualTo(1.0);
        assertThat(s.weight(5)).isCloseTo(1.0 / 11, within(1e-12));
        assertThat(s.weight(6)).isCloseTo(1.0 / 21, within(1e-12));
    }

    @Test
    void everyFunctionStartsAtOneAndNeverRises() {
        for (StalenessWeighting s : List.of(
                StalenessWeighting.constant(),
                StalenessWeighting.polynomial(0.5),
                StalenessWeighting.polynomial(3),
                StalenessWeighting.hinge(0.1, 0),
                StalenessWeighting.hinge(10, 4))) {
            assertThat(s.weight(0)).as("%s", s).isEqualTo(1.0);
            double previous = 1.0;
            for (long lag = 1; lag < 200; lag++) {
                double w = s.weight(lag);
                assertThat(w).as("%s at %d", s, lag).isGreaterThan(0).isLessThanOrEqualTo(previous);
                previous = w;
            }
        }
    }

    @Test
    void rejectsNegativeLagAndBadParameters() {
        assertThatThrownBy(() -> StalenessWeighting.polynomial(0.5).weight(-1))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("negative staleness -1");
        assertThatThrownBy(() -> StalenessWeighting.constant().weight(-3)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> StalenessWeighting.polynomial(-0.1)).hasMessageContaining("exponent");
        assertThatThrownBy(() -> StalenessWeighting.polynomial(Double.NaN)).hasMessageContaining("exponent");
        assertThatThrownBy(() -> StalenessWeighting.hinge(0, 4)).hasMessageContaining("slope");
        assertThatThrownBy(() -> StalenessWeighting.hinge(1, -1)).hasMessageContaining("threshold");
    }
}
