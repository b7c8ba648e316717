package dev.chorus.node.averaging;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** The pace ratio read from version growth, its bounds, and the displacement it scales. */
class StepScaleTest {

    /**
     * A node whose version grows r times as fast as its own steps (merges with a consortium r times its pace, at
     * random moments) settles at r, or at the bound when r is above it.
     */
    @ParameterizedTest(name = "seed {0}")
    @ValueSource(longs = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10})
    void aSlowNodeSettlesAtTheConsortiumsPaceOverItsOwnWithinTheBound(long seed) {
        SplittableRandom r = new SplittableRandom(seed);
        double ratio = 1 + r.nextDouble() * 11;
        double max = 2 + r.nextInt(9);
        StepScale scale = new StepScale(max);
        double owed = 0;
        for (int step = 0; step < 20_000; step++) {
            owed += ratio - 1;
            long gain = 1;
            // A merge on about one step in three brings the versions the consortium took meanwhile.
            if (r.nextInt(3) == 0) {
                gain += (long) owed;
                owed -= (long) owed;
            }
            scale.afterStep(gain);
        }
        assertThat(scale.factor()).isCloseTo(Math.min(ratio, max), within(0.06 * Math.min(ratio, max)));
    }

    @Test
    void theFastestNodeAndANodeThatHearsOfNoOneScaleNothing() {
        StepScale fastest = new StepScale(8);
        StepScale alone = new StepScale(8);
        SplittableRandom r = new SplittableRandom(3);
        for (int step = 0; step < 5_000; step++) {
            // The fastest node's version is its own steps, and now and then a peer one or two ahead.
            fastest.afterStep(1 + (r.nextInt(50) == 0 ? r.nextInt(3) : 0));
            alone.afterStep(1);
        }
        assertThat(fastest.factor()).isBetween(1.0, 1.05);
        assertThat(alone.factor()).isEqualTo(1.0);
    }

    @Test
    void noRatioBeforeEnoughStepsAndNoneWhenOff() {
        StepScale early = new StepScale(8);
        StepScale off = new StepScale(1);
        for (int step = 0; step < StepScale.MIN_STEPS - 1; step++) {
            early.afterStep(5);
            off.afterStep(5);
        }
        assertThat(early.factor()).isEqualTo(1.0);
        early.afterStep(5);
        assertThat(early.factor()).isEqualTo(5.0);
        for (int step = 0; step < 1000; step++) {
            off.afterStep(5);
        }
        assertThat(off.factor()).isEqualTo(1.0);
        assertThat(off.enabled()).isFalse();
    }

    /**
     * A version far ahead in one merge (a late joiner, a peer claiming a large version) counts for at most the bound
     * per step since the last jump: the factor stays within the bound and returns to 1 once steady.
     */
    @Test
    void oneHugeJumpIsBoundedAndForgotten() {
        StepScale scale = new StepScale(8);
        for (int step = 0; step < 200; step++) {
            scale.afterStep(1);
        }
        scale.afterStep(100_001);
        assertThat(scale.factor()).isLessThanOrEqualTo(8.0).isGreaterThan(1.0);
        for (int step = 0; step < 10 * StepScale.WINDOW_STEPS; step++) {
            scale.afterStep(1);
        }
        assertThat(scale.factor()).isLessThan(1.01);
    }

    @Test
    void scalesTheDisplacementFromTheAnchorAndNothingWithoutOne() {
        StepScale scale = new StepScale(8);
        for (int step = 0; step < 100; step++) {
            scale.afterStep(4);
        }
        float[] params = {1f, -2f, 3f};
        scale.scale(params);
        assertThat(params).as("no anchor yet").containsExactly(1f, -2f, 3f);

        scale.anchor(new float[] {1f, -2f, 3f});
        float[] moved = {1.5f, -2f, 2f};
        scale.scale(moved);
        assertThat(moved).containsExactly(3f, -2f, -1f);

        scale.forget();
        float[] again = {1.5f, -2f, 2f};
        scale.scale(again);
        assertThat(again).as("anchor forgotten: the parameters were replaced").containsExactly(1.5f, -2f, 2f);
    }

    @Test
    void refusesABoundBelowOneOrNotFinite() {
        for (double bad : new double[] {0.5, 0, -1, Double.NaN, Double.POSITIVE_INFINITY}) {
            assertThatThrownBy(() -> new StepScale(bad))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("at least 1");
        }
    }
}
