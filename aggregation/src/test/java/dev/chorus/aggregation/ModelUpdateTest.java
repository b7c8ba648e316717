package dev.chorus.aggregation;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

class ModelUpdateTest {

    @Test
    void rejectsNaNNamingSenderAndPosition() {
        assertThatThrownBy(() -> ModelUpdate.full("peer-3", 1, 10, new float[] {1, Float.NaN, 3}))
                .isInstanceOf(InvalidUpdateException.class)
                .hasMessageContaining("peer-3")
                .hasMessageContaining("position 1")
                .hasMessageContaining("NaN");
    }

    @Test
    void rejectsInfinities() {
        assertThatThrownBy(() -> ModelUpdate.full("a", 1, 10, new float[] {Float.POSITIVE_INFINITY}))
                .isInstanceOf(InvalidUpdateException.class)
                .hasMessageContaining("Infinity");
        assertThatThrownBy(() -> ModelUpdate.delta("a", 1, 10, new float[] {0, Float.NEGATIVE_INFINITY}))
                .isInstanceOf(InvalidUpdateException.class)
                .hasMessageContaining("-Infinity");
        assertThatThrownBy(() -> ModelUpdate.fragment("a", 1, 10, 5, new int[] {4}, new float[] {Float.NaN}))
                .isInstanceOf(InvalidUpdateException.class);
    }

    @Test
    void rejectsNegativeCountsAndVersions() {
        assertThatThrownBy(() -> ModelUpdate.full("a", 1, -1, new float[] {1}))
                .isInstanceOf(InvalidUpdateException.class)
                .hasMessageContaining("negative sample count -1");
        assertThatThrownBy(() -> ModelUpdate.full("a", -2, 1, new float[] {1}))
                .isInstanceOf(InvalidUpdateException.class)
                .hasMessageContaining("negative version -2");
    }

    @Test
    void rejectsMalformedFragments() {
        assertThatThrownBy(() -> ModelUpdate.fragment("a", 0, 0, 4, new int[] {0, 1}, new float[] {1}))
                .isInstanceOf(InvalidUpdateException.class)
                .hasMessageContaining("2 indices for 1 values");
        assertThatThrownBy(() -> ModelUpdate.fragment("a", 0, 0, 4, new int[] {4}, new float[] {1}))
                .isInstanceOf(InvalidUpdateException.class)
                .hasMessageContaining("index 4")
                .hasMessageContaining("[0, 4)");
        assertThatThrownBy(() -> ModelUpdate.fragment("a", 0, 0, 4, new int[] {-1}, new float[] {1}))
                .isInstanceOf(InvalidUpdateException.class);
        assertThatThrownBy(() -> new ModelUpdate("a", 0, 0, ModelUpdate.Content.PARAMETERS, 3, null, new float[2]))
                .isInstanceOf(InvalidUpdateException.class)
                .hasMessageContaining("2 parameters but declares dimension 3");
    }

    @Test
    void rejectsMissingSenderOrValues() {
        assertThatThrownBy(() -> ModelUpdate.full(" ", 0, 0, new float[1])).isInstanceOf(InvalidUpdateException.class);
        assertThatThrownBy(() -> ModelUpdate.full("a", 0, 0, null))
                .isInstanceOf(InvalidUpdateException.class)
                .hasMessageContaining("no values");
        assertThatThrownBy(() -> ModelUpdate.full("a", 0, 0, new float[0]))
                .isInstanceOf(InvalidUpdateException.class)
                .hasMessageContaining("dimension 0");
    }

    @Test
    void wrongDimensionIsNamed() {
        ModelUpdate u = ModelUpdate.full("peer-7", 0, 0, new float[5]);
        u.requireDimension(5);
        assertThatThrownBy(() -> u.requireDimension(6))
                .isInstanceOf(InvalidUpdateException.class)
                .hasMessage("update from peer-7 is for a model of 5 parameters, the local model has 6");
    }

    @Test
    void pullRequestOfferMustComeFromTheRequester() {
        ModelUpdate offer = ModelUpdate.full("b", 0, 0, new float[1]);
        assertThatThrownBy(() -> new PullRequest("a", 0, offer))
                .isInstanceOf(InvalidUpdateException.class)
                .hasMessageContaining("offers a model from b");
    }

    /** A rounded value is read as the point of its rounding interval nearest the receiver's own parameter. */
    @Test
    void valuesNearTakeTheReceiversParameterWhereItRoundsAlike() {
        // two chunks of two values: half-steps 0.5 and 0.25
        ModelUpdate.Rounding rounding = new ModelUpdate.Rounding(2, new float[] {0.5f, 0.25f});
        ModelUpdate u =
                new ModelUpdate("a", 1, 1, ModelUpdate.Content.PARAMETERS, 4, null, new float[] {1, 1, 1, 1}, rounding);
        // inside the interval: the receiver's own; outside: the interval's nearer end
        assertThat(u.valuesNear(new float[] {1.2f, 3, 0.9f, -5})).containsExactly(1.2f, 1.5f, 0.9f, 0.75f);
        // a fragment reads the receiver's parameters at its coordinates
        ModelUpdate fragment = new ModelUpdate(
                "a",
                1,
                1,
                ModelUpdate.Content.PARAMETERS,
                6,
                new int[] {5, 0, 2},
                new float[] {2, 2, 2},
                new ModelUpdate.Rounding(1, new float[] {0.5f, 0.5f, 0}));
        assertThat(fragment.valuesNear(new float[] {9, 0, 2.4f, 0, 0, 2.3f})).containsExactly(2.3f, 2.5f, 2);
        // values that travelled unrounded are taken as they are, without a copy
        ModelUpdate exact = ModelUpdate.full("a", 1, 1, new float[] {1, 2});
        assertThat(exact.valuesNear(new float[] {5, 5})).isSameAs(exact.values());
        assertThat(exact.rounding()).isNull();
        // a new version keeps the rounding
        assertThat(u.withVersion(9).rounding()).isSameAs(rounding);
        assertThat(u.withVersion(9).version()).isEqualTo(9);
    }

    /**
     * The value read lies among those that round alike and never further from the receiver's parameter than the
     * rounded value, whatever step the sender claims; where the receiver's parameter rounds alike it is read as is.
     */
    @ParameterizedTest(name = "seed {0}")
    @MethodSource("dev.chorus.aggregation.Seeds#seeds")
    void theValueReadLiesWithinTheStepAndNoFurtherThanTheRoundedOne(long seed) {
        Seeds.print("theValueReadLiesWithinTheStepAndNoFurtherThanTheRoundedOne", seed);
        SplittableRandom random = new SplittableRandom(seed);
        int n = 1 + random.nextInt(300);
        int chunk = 1 + random.nextInt(64);
        float[] halfSteps = new float[(n + chunk - 1) / chunk];
        for (int c = 0; c < halfSteps.length; c++) {
            halfSteps[c] = random.nextInt(8) == 0 ? 0 : (float) Math.pow(10, random.nextDouble(-6, 3));
        }
        float[] rounded = new float[n];
        float[] own = new float[n];
        for (int p = 0; p < n; p++) {
            rounded[p] = (float) random.nextDouble(-10, 10);
            own[p] = (float) (rounded[p] + random.nextGaussian() * Math.pow(10, random.nextDouble(-6, 2)));
        }
        ModelUpdate.Rounding rounding = new ModelUpdate.Rounding(chunk, halfSteps);
        ModelUpdate u = new ModelUpdate("a", 1, 1, ModelUpdate.Content.PARAMETERS, n, null, rounded, rounding);
        float[] read = u.valuesNear(own);
        for (int p = 0; p < n; p++) {
            float h = halfSteps[p / chunk];
            assertThat(read[p]).isBetween(rounded[p] - h, rounded[p] + h);
            assertThat(Math.abs(read[p] - own[p])).isLessThanOrEqualTo(Math.abs(rounded[p] - own[p]));
            if (own[p] >= rounded[p] - h && own[p] <= rounded[p] + h) {
                assertThat(read[p]).isEqualTo(own[p]);
            }
        }
    }

    @Test
    void roundingMustCoverEveryValueWithFiniteSteps() {
        assertThatThrownBy(() -> new ModelUpdate(
                        "peer-1",
                        1,
                        1,
                        ModelUpdate.Content.PARAMETERS,
                        5,
                        null,
                        new float[5],
                        new ModelUpdate.Rounding(2, new float[] {0.1f, 0.1f})))
                .isInstanceOf(InvalidUpdateException.class)
                .hasMessageContaining("peer-1")
                .hasMessageContaining("2 rounding steps of 2 values for 5 values");
        assertThatThrownBy(() -> new ModelUpdate.Rounding(0, new float[] {1}))
                .isInstanceOf(IllegalArgumentException.class);
        for (float bad : new float[] {-1, Float.NaN, Float.POSITIVE_INFINITY}) {
            assertThatThrownBy(() -> new ModelUpdate.Rounding(4, new float[] {0, bad}))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("half-step");
        }
    }

    @Test
    void toStringSummarisesWithoutValues() {
        ModelUpdate u = ModelUpdate.fragment("a", 3, 7, 1000, new int[] {1, 2}, new float[] {0.25f, 0.5f});
        assertThat(u.toString()).contains("a", "version=3", "2/1000").doesNotContain("0.25");
        assertThat(u.isFragment()).isTrue();
        assertThat(u).isEqualTo(ModelUpdate.fragment("a", 3, 7, 1000, new int[] {1, 2}, new float[] {0.25f, 0.5f}));
    }

    @Test
    void localModelRejectsBadState() {
        assertThatThrownBy(() -> new LocalModel("a", new float[] {Float.NaN}, 0, 0))
                .isInstanceOf(InvalidUpdateException.class);
        assertThatThrownBy(() -> new LocalModel("a", new float[1], 0, -5))
                .hasMessageContaining("negative sample count");
        LocalModel m = new LocalModel("a", new float[2], 4, 1);
        m.advance();
        assertThat(m.version()).isEqualTo(5);
        assertThat(m.snapshot()).isNotSameAs(m.params()).containsExactly(0f, 0f);
    }
}
