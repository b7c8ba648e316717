package dev.chorus.node.secagg;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** A member's terms: the range exponent of its model, the settled terms of a round, and their bounds. */
class TermsTest {

    @Test
    void theRangeExponentIsTheLeastPowerOfTwoHoldingEveryParameter() {
        assertThat(Terms.rangeExponentOf(new float[] {0.5f, -0.25f}, 64)).isEqualTo(-1);
        assertThat(Terms.rangeExponentOf(new float[] {0.5f, -0.51f}, 64)).isEqualTo(0);
        assertThat(Terms.rangeExponentOf(new float[] {1f}, 64)).isEqualTo(0);
        assertThat(Terms.rangeExponentOf(new float[] {-1.0001f}, 64)).isEqualTo(1);
        assertThat(Terms.rangeExponentOf(new float[] {3f, 0f}, 64)).isEqualTo(2);
        // Parameters beyond the configured range are clipped to it first.
        assertThat(Terms.rangeExponentOf(new float[] {1e9f}, 64)).isEqualTo(6);
        assertThat(Terms.rangeExponentOf(new float[] {1e9f}, 5)).isEqualTo(3);
        // Nothing to hold, or far below the smallest exponent: the smallest.
        assertThat(Terms.rangeExponentOf(new float[] {0f, -0f}, 64)).isEqualTo(Terms.MIN_RANGE_EXPONENT);
        assertThat(Terms.rangeExponentOf(new float[] {1e-30f}, 64)).isEqualTo(Terms.MIN_RANGE_EXPONENT);
    }

    @ParameterizedTest(name = "seed {0}")
    @ValueSource(longs = {1, 2, 3, 4, 5, 6, 7, 8})
    void theRoundsRangeHoldsEveryMembersParametersAndNeverExceedsTheConfiguredOne(long seed) {
        Random r = new Random(seed);
        double configured = 1 + r.nextInt(100);
        Terms settled = null;
        float[][] models = new float[2 + r.nextInt(10)][];
        for (int m = 0; m < models.length; m++) {
            double scale = Math.pow(10, r.nextInt(6) - 4);
            models[m] = new float[50];
            for (int i = 0; i < 50; i++) {
                models[m][i] = (float) (r.nextGaussian() * scale);
            }
            Terms ask =
                    new Terms(r.nextInt(20), Terms.rangeExponentOf(models[m], configured), r.nextBoolean() ? 16 : 32);
            settled = settled == null ? ask : settled.max(ask);
            assertThat(settled.covers(ask)).isTrue();
        }
        double range = settled.range(configured);
        assertThat(range).isLessThanOrEqualTo(configured);
        for (float[] model : models) {
            for (float v : model) {
                // What the configured range clips aside, no member's parameter is clipped by the round's.
                assertThat((double) Math.min(Math.abs(v), configured)).isLessThanOrEqualTo(range);
            }
        }
    }

    @Test
    void termsThatFallShortOfAnAskDoNotCoverIt() {
        Terms ask = new Terms(7, -2, 32);
        assertThat(new Terms(7, -2, 32).covers(ask)).isTrue();
        assertThat(new Terms(6, -2, 32).covers(ask)).isFalse();
        assertThat(new Terms(7, -3, 32).covers(ask)).isFalse();
        assertThat(new Terms(7, -2, 16).covers(ask)).isFalse();
        assertThat(new Terms(0, 0, 16).max(ask)).isEqualTo(new Terms(7, 0, 32));
    }

    @Test
    void outOfBoundTermsAreRefused() {
        assertThatThrownBy(() -> new Terms(-1, 0, 32)).hasMessageContaining("weight scale -1");
        assertThatThrownBy(() -> new Terms(33, 0, 32)).hasMessageContaining("weight scale 33");
        assertThatThrownBy(() -> new Terms(0, 33, 32)).hasMessageContaining("range exponent 33");
        assertThatThrownBy(() -> new Terms(0, -33, 32)).hasMessageContaining("range exponent -33");
        assertThatThrownBy(() -> new Terms(0, 0, 8)).hasMessageContaining("16 or 32 bits, not 8");
    }
}
