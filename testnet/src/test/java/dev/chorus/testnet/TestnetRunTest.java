package dev.chorus.testnet;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The summary figures of a run, on hand-made samples. */
class TestnetRunTest {

    private static TestnetRun.Sample sample(int tick, int node, double accuracy) {
        return new TestnetRun.Sample(
                "async", tick, tick + 0.01 * node, node, new TestnetRun.Score(accuracy, 0.5, 0.5, 0.5), tick, 0);
    }

    private static TestnetRun run(List<TestnetRun.Sample> samples, double[] ticks, int nodes) {
        double[] timeToTarget = new double[nodes];
        Arrays.fill(timeToTarget, Double.NaN);
        return run(new TestnetRun.Scores(
                samples,
                ticks,
                new double[nodes],
                new double[nodes],
                new double[nodes],
                new double[nodes],
                timeToTarget));
    }

    static TestnetRun run(TestnetRun.Scores scores) {
        int nodes = scores.finalAccuracy().length;
        double[] ticks = scores.ticks();
        return new TestnetRun(
                "async",
                StrategyKind.ASYNC,
                new TestnetRun.Impairments(new int[0], new int[0], new long[nodes]),
                scores,
                new TestnetRun.Exchanges(
                        new long[nodes], new long[nodes], new long[nodes], new long[nodes], new long[1]),
                new TestnetRun.Pace(new double[nodes], new double[nodes], new double[nodes]),
                new TestnetRun.Timing(ticks[ticks.length - 1], 0, 0),
                TestnetRun.Outsiders.NONE);
    }

    /** {@code r} as if {@code outsiders} had attacked it. */
    static TestnetRun withOutsiders(TestnetRun r, TestnetRun.Outsiders outsiders) {
        return new TestnetRun(
                r.label(), r.strategy(), r.impairments(), r.scores(), r.exchanges(), r.pace(), r.timing(), outsiders);
    }

    @Test
    void meanOfNodesCarriesEachNodesLatestScoreAndWaitsForEveryNode() {
        List<TestnetRun.Sample> samples = new ArrayList<>();
        // Tick 0: only nodes 0 and 1 scored (node 2 took no step yet): no mean.
        samples.add(sample(0, 0, 0.2));
        samples.add(sample(0, 1, 0.4));
        // Tick 1: node 2 scored for the first time; nodes 0 and 1 keep their tick-0 scores for node 1.
        samples.add(sample(1, 0, 0.8));
        samples.add(sample(1, 2, 0.5));
        // Tick 2: node 1 jumps, node 0 swings down.
        samples.add(sample(2, 0, 0.7));
        samples.add(sample(2, 1, 0.9));
        samples.add(sample(2, 2, 0.8));
        TestnetRun r = run(samples, new double[] {0.0, 1.0, 2.0}, 3);

        double[] mean = r.meanAccuracyPerTick();

        assertThat(mean[0]).isNaN();
        assertThat(mean[1]).isCloseTo((0.8 + 0.4 + 0.5) / 3, within(1e-12));
        assertThat(mean[2]).isCloseTo((0.7 + 0.9 + 0.8) / 3, within(1e-12));
        // Node 0 alone crossed 0.75 at tick 1; the mean does at tick 2, and never reaches 0.9.
        assertThat(r.meanTimeToTarget(0.75)).isEqualTo(2.0);
        assertThat(r.meanTimeToTarget(0.5)).isEqualTo(1.0);
        assertThat(r.meanTimeToTarget(0.9)).isNaN();
    }

    @Test
    void theAttackersAreLeftOutOfThePerTickCurvesAndTheTimesToTarget() {
        List<TestnetRun.Sample> samples = new ArrayList<>();
        // Node 2 attacks: its own scores are low, and it would drag the mean and the worst down.
        samples.add(sample(0, 0, 0.7));
        samples.add(sample(0, 1, 0.9));
        samples.add(sample(0, 2, 0.1));
        samples.add(sample(1, 0, 0.8));
        samples.add(sample(1, 1, 0.9));
        samples.add(sample(1, 2, 0.1));
        double[] timeToTarget = {1.0, 0.0, Double.NaN};
        TestnetRun plain = run(new TestnetRun.Scores(
                samples,
                new double[] {0.0, 1.0},
                new double[3],
                new double[3],
                new double[3],
                new double[3],
                timeToTarget));
        TestnetRun attacked = new TestnetRun(
                plain.label(),
                plain.strategy(),
                new TestnetRun.Impairments(new int[0], new int[0], new long[3], new int[] {2}),
                plain.scores(),
                plain.exchanges(),
                plain.pace(),
                plain.timing(),
                TestnetRun.Outsiders.NONE);

        assertThat(attacked.meanAccuracyPerTick()[1]).isCloseTo(0.85, within(1e-12));
        assertThat(attacked.worstAccuracyPerTick()[1]).isCloseTo(0.8, within(1e-12));
        assertThat(attacked.reached()).isEqualTo(2);
        assertThat(attacked.maxTimeToTarget()).isEqualTo(1.0);
        assertThat(attacked.medianTimeToTarget()).isEqualTo(0.5);
        // Counted with the attacker, the same scores give a lower curve and no time for every node.
        assertThat(plain.meanAccuracyPerTick()[1]).isCloseTo(0.6, within(1e-12));
        assertThat(plain.maxTimeToTarget()).isNaN();
        assertThat(plain.medianTimeToTarget()).isEqualTo(1.0);
    }

    @Test
    void meanOfNodesTakesSamplesInTickOrderWhateverTheirListOrder() {
        List<TestnetRun.Sample> samples =
                new ArrayList<>(List.of(sample(1, 0, 0.9), sample(1, 1, 0.9), sample(0, 0, 0.1), sample(0, 1, 0.1)));
        TestnetRun r = run(samples, new double[] {0.0, 1.0}, 2);

        assertThat(r.meanAccuracyPerTick()).containsExactly(0.1, 0.9);
        assertThat(r.meanTimeToTarget(0.8)).isEqualTo(1.0);
    }

    @Test
    void heldTimeIsTheFirstRoundFromWhichTheMeanNeverFallsBelowTheTarget() {
        List<TestnetRun.Sample> samples = new ArrayList<>();
        double[] meanPerTick = {0.5, 0.81, 0.79, 0.82, 0.805, 0.85};
        for (int k = 0; k < meanPerTick.length; k++) {
            samples.add(sample(k, 0, meanPerTick[k] - 0.05));
            samples.add(sample(k, 1, meanPerTick[k] + 0.05));
        }
        TestnetRun r = run(samples, new double[] {0, 1, 2, 3, 4, 5}, 2);

        // The mean touches 0.80 at 1 s, falls under it at 2 s, and holds from 3 s on.
        assertThat(r.meanTimeToTarget(0.80)).isEqualTo(1.0);
        assertThat(r.heldTimeToTarget(0.80)).isEqualTo(3.0);
        assertThat(r.heldTimeToTarget(0.4)).isEqualTo(0.0);
        // A target the last round does not reach was never held, whatever came before.
        assertThat(r.heldTimeToTarget(0.84)).isEqualTo(5.0);
        assertThat(r.heldTimeToTarget(0.86)).isNaN();
        assertThat(r.meanTimeToTarget(0.86)).isNaN();
    }

    @Test
    void theWorstNodeIsTheLowestLatestScoreAndWaitsForEveryNode() {
        List<TestnetRun.Sample> samples = new ArrayList<>();
        // Tick 0: node 2 not scored yet, so no worst node either.
        samples.add(sample(0, 0, 0.6));
        samples.add(sample(0, 1, 0.3));
        // Tick 1: node 2 first scored; node 1 keeps 0.3 and is the worst.
        samples.add(sample(1, 0, 0.9));
        samples.add(sample(1, 2, 0.8));
        // Tick 2: node 1 catches up, node 2 falls to 0.7.
        samples.add(sample(2, 1, 0.85));
        samples.add(sample(2, 2, 0.7));
        TestnetRun r = run(samples, new double[] {0.0, 1.0, 2.0}, 3);

        assertThat(r.worstAccuracyPerTick()).containsExactly(Double.NaN, 0.3, 0.7);
        // The mean crosses 0.75 at 2 s ((0.9 + 0.85 + 0.7) / 3 = 0.817); the worst node never does.
        assertThat(r.meanTimeToTarget(0.75)).isEqualTo(2.0);
        assertThat(r.worstTimeToTarget(0.75)).isNaN();
        assertThat(r.worstTimeToTarget(0.7)).isEqualTo(2.0);
        assertThat(r.worstTimeToTarget(0.3)).isEqualTo(1.0);
    }

    @Test
    void theWorstNodeHeldIsTheFirstRoundFromWhichNoNodeFallsBelowTheTarget() {
        // Two nodes that take turns at being the worst; the worst per round is the smaller of the pair.
        double[][] perTick = {{0.5, 0.9}, {0.82, 0.85}, {0.9, 0.78}, {0.81, 0.83}, {0.84, 0.80}, {0.86, 0.88}};
        List<TestnetRun.Sample> samples = new ArrayList<>();
        for (int k = 0; k < perTick.length; k++) {
            samples.add(sample(k, 0, perTick[k][0]));
            samples.add(sample(k, 1, perTick[k][1]));
        }
        TestnetRun r = run(samples, new double[] {0, 1, 2, 3, 4, 5}, 2);

        assertThat(r.worstAccuracyPerTick()).containsExactly(0.5, 0.82, 0.78, 0.81, 0.80, 0.86);
        // The worst node reaches 0.80 at 1 s, falls under it at 2 s, and holds from 3 s on.
        assertThat(r.worstTimeToTarget(0.80)).isEqualTo(1.0);
        assertThat(r.worstHeldTimeToTarget(0.80)).isEqualTo(3.0);
        assertThat(r.worstHeldTimeToTarget(0.81)).isEqualTo(5.0);
        assertThat(r.worstHeldTimeToTarget(0.5)).isEqualTo(0.0);
        assertThat(r.worstHeldTimeToTarget(0.87)).isNaN();
        // The mean holds 0.80 earlier than the worst node does: from 1 s, while node 1's 0.78 at 2 s is below it.
        assertThat(r.heldTimeToTarget(0.80)).isEqualTo(1.0);
    }

    @Test
    void finalScoresSpreadOverTheNodesAndAnUndefinedScoreLeavesNoSummary() {
        TestnetRun r = run(new TestnetRun.Scores(
                List.of(),
                new double[] {1.0},
                new double[] {0.93, 0.28, 0.91, 0.95},
                new double[] {0.2, 1.4, 0.25, 0.2},
                new double[] {0.99, 0.61, 0.97, Double.NaN},
                new double[] {0.9, 0.5, 0.88, 0.94},
                new double[] {1, Double.NaN, 1, 1}));

        TestnetRun.Spread accuracy = TestnetRun.Spread.of(r.scores().finalAccuracy());
        assertThat(accuracy.mean()).isCloseTo((0.93 + 0.28 + 0.91 + 0.95) / 4, within(1e-12));
        assertThat(accuracy.median()).isCloseTo((0.91 + 0.93) / 2, within(1e-12));
        assertThat(accuracy.worst()).isEqualTo(0.28);
        assertThat(accuracy.max()).isEqualTo(0.95);
        TestnetRun.Spread balanced = TestnetRun.Spread.of(r.scores().finalBalancedAccuracy());
        assertThat(balanced.mean()).isCloseTo((0.9 + 0.5 + 0.88 + 0.94) / 4, within(1e-12));
        assertThat(balanced.worst()).isEqualTo(0.5);
        TestnetRun.Spread auc = TestnetRun.Spread.of(r.scores().finalAuc());
        assertThat(new double[] {auc.mean(), auc.median(), auc.worst(), auc.max()})
                .containsOnly(Double.NaN);
        assertThat(TestnetRun.Spread.of(new double[0]).mean()).isNaN();
    }
}
