package dev.chorus.learning.optim;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class LearningRateScheduleTest {

    @Test
    void constantKeepsTheInitialRate() {
        LearningRateSchedule s = LearningRateSchedule.parse("constant");
        assertThat(s).isEqualTo(LearningRateSchedule.CONSTANT);
        assertThat(s.rate(0.05f, 0)).isEqualTo(0.05f);
        assertThat(s.rate(0.05f, 0.7)).isEqualTo(0.05f);
        assertThat(s.rate(0.05f, 3)).isEqualTo(0.05f);
    }

    @Test
    void cosineAnnealsFromTheInitialRateToTheFloor() {
        LearningRateSchedule s = LearningRateSchedule.parse("cosine:0.1");
        assertThat(s.rate(1f, 0)).isEqualTo(1f);
        assertThat(s.rate(1f, 0.5)).isCloseTo(0.55f, within(1e-6f));
        assertThat(s.rate(1f, 0.25)).isCloseTo((float) (0.1 + 0.9 * (1 + Math.cos(Math.PI / 4)) / 2), within(1e-6f));
        assertThat(s.rate(1f, 1)).isCloseTo(0.1f, within(1e-7f));
        assertThat(s.rate(1f, 5)).as("after the end: the floor").isCloseTo(0.1f, within(1e-7f));
        assertThat(s.rate(1f, -1)).as("before the start: the initial rate").isEqualTo(1f);
        assertThat(s.rate(2f, 0.5)).isCloseTo(1.1f, within(1e-6f));
    }

    @Test
    void cosineDecreasesMonotonically() {
        LearningRateSchedule s = LearningRateSchedule.parse("cosine");
        float last = Float.MAX_VALUE;
        for (int i = 0; i <= 1000; i++) {
            float r = s.rate(0.05f, i / 1000.0);
            assertThat(r).isLessThanOrEqualTo(last).isPositive();
            last = r;
        }
        assertThat(last).isCloseTo((float) (0.05 * LearningRateSchedule.DEFAULT_FLOOR), within(1e-8f));
    }

    @Test
    void aZeroFloorEndsAtAPositiveRateThatOptimizersAccept() {
        float end = LearningRateSchedule.parse("cosine:0").rate(0.05f, 1);
        assertThat(end).isPositive();
        new Sgd().setLearningRate(end);
    }

    @Test
    void specRoundTrips() {
        for (String s : new String[] {"constant", "cosine:0.05", "cosine:0.0", "cosine:1.0"}) {
            assertThat(LearningRateSchedule.parse(s).spec()).isEqualTo(s);
        }
        assertThat(LearningRateSchedule.parse(" Cosine ").spec()).isEqualTo("cosine:0.05");
    }

    @ParameterizedTest
    @ValueSource(strings = {"", "linear", "cosine:", "cosine:x", "cosine:-0.1", "cosine:1.5", "cosine:NaN"})
    void badSpecsAreRefusedWithTheirText(String spec) {
        assertThatThrownBy(() -> LearningRateSchedule.parse(spec))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("learning rate schedule '" + spec + "'");
    }
}
