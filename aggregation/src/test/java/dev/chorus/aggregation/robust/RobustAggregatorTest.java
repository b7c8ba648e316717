package dev.chorus.aggregation.robust;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import dev.chorus.aggregation.InvalidUpdateException;
import java.util.List;
import org.junit.jupiter.api.Test;

class RobustAggregatorTest {

    private static final List<RobustAggregator> ALL = List.of(
            new CoordinateWiseMedian(),
            new TrimmedMean(1),
            new NormClipping(1),
            new CenteredClipping(1, 2),
            new Krum(1),
            new MultiKrum(1, 2));

    private static List<float[]> five() {
        return List.of(
                new float[] {1, 10}, new float[] {2, 20}, new float[] {3, 30}, new float[] {4, 40}, new float[] {100, -5
                });
    }

    @Test
    void medianOfOddAndEvenCounts() {
        assertThat(new CoordinateWiseMedian().aggregate(five())).containsExactly(3, 20);
        assertThat(new CoordinateWiseMedian()
                        .aggregate(List.of(new float[] {1}, new float[] {4}, new float[] {2}, new float[] {100})))
                .containsExactly(3);
    }

    @Test
    void trimmedMeanDropsBothEnds() {
        // Coordinate 0: drop 1 and 100, mean of 2, 3, 4. Coordinate 1: drop -5 and 40, mean of 10, 20, 30.
        assertThat(new TrimmedMean(1).aggregate(five())).containsExactly(3, 20);
        assertThat(new TrimmedMean(0).aggregate(five())[0]).isCloseTo(22f, within(1e-5f));
    }

    @Test
    void normClippingScalesLongInputsDown() {
        float[] out =
                new NormClipping(5).aggregate(List.of(new float[] {3, 4}, new float[] {30, 40}, new float[] {0, 1}));
        // (3,4) kept, (30,40) scaled to (3,4), (0,1) kept: mean (2, 3).
        assertThat(out[0]).isCloseTo(2f, within(1e-5f));
        assertThat(out[1]).isCloseTo(3f, within(1e-5f));
    }

    @Test
    void centeredClippingPullsOutliersInAroundTheCenter() {
        List<float[]> inputs = List.of(new float[] {1}, new float[] {1}, new float[] {1}, new float[] {1e9f});
        float[] out = new float[1];
        new CenteredClipping(2, 1).aggregate(inputs, new float[] {1}, out);
        // Honest inputs sit on the center; the outlier moves it by tau / n = 0.5.
        assertThat(out[0]).isCloseTo(1.5f, within(1e-5f));
        // The median start lands on 1 too.
        assertThat(new CenteredClipping(2, 1).aggregate(inputs)[0]).isCloseTo(1.5f, within(1e-5f));
        // The center may be the output array itself.
        float[] inPlace = {1};
        new CenteredClipping(2, 3).aggregate(inputs, inPlace, inPlace);
        assertThat(inPlace[0]).isLessThan(2f);
    }

    @Test
    void krumPicksFromTheDenseCluster() {
        List<float[]> inputs = List.of(
                new float[] {0, 0}, new float[] {50, 50}, new float[] {0.1f, 0}, new float[] {0, 0.2f}, new float[] {
                    0.1f, 0.1f
                });
        assertThat(new Krum(1).select(inputs)).isIn(0, 2, 3, 4);
        float[] out = new MultiKrum(1, 4).aggregate(inputs);
        assertThat(out[0]).isCloseTo(0.05f, within(1e-5f));
        assertThat(out[1]).isCloseTo(0.075f, within(1e-5f));
    }

    @Test
    void everyRuleRejectsNonFiniteWrongLengthOrAliasedInputs() {
        for (RobustAggregator rule : ALL) {
            String name = rule.getClass().getSimpleName();
            List<float[]> nan = List.of(
                    new float[] {1, 1},
                    new float[] {1, Float.NaN},
                    new float[] {1, 1},
                    new float[] {1, 1},
                    new float[] {1, 1});
            assertThatThrownBy(() -> rule.aggregate(nan))
                    .as(name)
                    .isInstanceOf(InvalidUpdateException.class)
                    .hasMessageContaining("input 1")
                    .hasMessageContaining("NaN");
            List<float[]> inf = List.of(
                    new float[] {1, 1},
                    new float[] {1, 1},
                    new float[] {Float.NEGATIVE_INFINITY, 1},
                    new float[] {1, 1},
                    new float[] {1, 1});
            assertThatThrownBy(() -> rule.aggregate(inf)).as(name).isInstanceOf(InvalidUpdateException.class);
            List<float[]> ragged = List.of(
                    new float[] {1, 1}, new float[] {1, 1}, new float[] {1, 1}, new float[] {1}, new float[] {1, 1});
            assertThatThrownBy(() -> rule.aggregate(ragged))
                    .as(name)
                    .isInstanceOf(InvalidUpdateException.class)
                    .hasMessageContaining("input 3 has 1 parameters, expected 2");
            float[] out = new float[2];
            List<float[]> aliased = List.of(new float[2], out, new float[2], new float[2], new float[2]);
            assertThatThrownBy(() -> rule.aggregate(aliased, out)).as(name).hasMessageContaining("output array");
            assertThatThrownBy(() -> rule.aggregate(List.of())).as(name).hasMessageContaining("no inputs");
        }
    }

    @Test
    void rulesRefuseTooFewInputsForTheFaultsTheyTolerate() {
        List<float[]> four = List.of(new float[1], new float[1], new float[1], new float[1]);
        assertThatThrownBy(() -> new TrimmedMean(2).aggregate(four)).hasMessageContaining("more than 4 inputs");
        assertThatThrownBy(() -> new Krum(1).aggregate(four)).hasMessageContaining("at least 5");
        List<float[]> five = List.of(new float[1], new float[1], new float[1], new float[1], new float[1]);
        assertThatThrownBy(() -> new MultiKrum(1, 5).aggregate(five)).hasMessageContaining("at most 4");
    }

    @Test
    void rejectsBadHyperParameters() {
        assertThatThrownBy(() -> new TrimmedMean(-1)).hasMessageContaining("trimmed");
        assertThatThrownBy(() -> new NormClipping(0)).hasMessageContaining("threshold");
        assertThatThrownBy(() -> new NormClipping(Double.NaN)).hasMessageContaining("threshold");
        assertThatThrownBy(() -> new CenteredClipping(1, 0)).hasMessageContaining("iterations");
        assertThatThrownBy(() -> new Krum(-1)).hasMessageContaining("faulty");
        assertThatThrownBy(() -> new MultiKrum(1, 0)).hasMessageContaining("selected");
    }

    @Test
    void inputsAreNotModified() {
        for (RobustAggregator rule : ALL) {
            List<float[]> inputs = five();
            rule.aggregate(inputs);
            assertThat(inputs).usingRecursiveComparison().isEqualTo(five());
        }
    }
}
