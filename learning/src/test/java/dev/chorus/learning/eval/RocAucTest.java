package dev.chorus.learning.eval;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class RocAucTest {

    @Test
    void handComputedWithoutTies() {
        // Pairs (positive, negative): (0.35, 0.1) right, (0.35, 0.4) wrong, (0.8, 0.1), (0.8, 0.4) right: 3/4.
        assertThat(RocAuc.of(new int[] {0, 0, 1, 1}, new double[] {0.1, 0.4, 0.35, 0.8}))
                .isEqualTo(0.75);
    }

    @Test
    void tiesBetweenAPositiveAndANegativeCountOneHalf() {
        // Pairs: (0.5, 0.5) tie = 1/2, (0.5, 0.2) = 1, (0.9, 0.5) = 1, (0.9, 0.2) = 1: 3.5/4.
        assertThat(RocAuc.of(new int[] {0, 1, 0, 1}, new double[] {0.5, 0.5, 0.2, 0.9}))
                .isEqualTo(0.875);
        // Ties among positives only do not matter.
        assertThat(RocAuc.of(new int[] {1, 1, 0}, new double[] {0.7, 0.7, 0.1})).isEqualTo(1.0);
        // All scores equal: every pair is a tie.
        assertThat(RocAuc.of(new int[] {1, 0, 0, 1, 0}, new double[] {3, 3, 3, 3, 3}))
                .isEqualTo(0.5);
    }

    @Test
    void perfectAndReversedRankings() {
        assertThat(RocAuc.of(new int[] {0, 0, 1, 1}, new double[] {0.1, 0.2, 0.3, 0.4}))
                .isEqualTo(1.0);
        assertThat(RocAuc.of(new int[] {1, 1, 0, 0}, new double[] {0.1, 0.2, 0.3, 0.4}))
                .isEqualTo(0.0);
    }

    @Test
    void undefinedForOneClass() {
        assertThat(RocAuc.of(new int[] {1, 1}, new double[] {0.1, 0.9})).isNaN();
        assertThat(RocAuc.of(new int[] {}, new double[] {})).isNaN();
    }

    @Test
    void badInputs() {
        assertThatThrownBy(() -> RocAuc.of(new int[] {0, 2}, new double[] {0, 1}))
                .hasMessage("label 2 of row 1 is not 0 or 1");
        assertThatThrownBy(() -> RocAuc.of(new int[] {0, 1}, new double[] {0, Double.NaN}))
                .hasMessage("score of row 1 is NaN");
        assertThatThrownBy(() -> RocAuc.of(new int[] {0, 1}, new double[] {0})).hasMessage("2 labels but 1 scores");
    }
}
