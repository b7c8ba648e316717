package dev.chorus.testnet;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

/** The printed table of hand-made runs. */
class SummaryTableTest {

    private static TestnetRun.Sample sample(int tick, int node, double accuracy) {
        return new TestnetRun.Sample("async", tick, tick, node, new TestnetRun.Score(accuracy, 0.4, 0.5, 0.5), tick, 0);
    }

    /** Worst node per round 0.4, 0.85, 0.7, 0.9; mean 0.6, 0.875, 0.8, 0.925. */
    private static TestnetRun run(double[] finalAuc) {
        List<TestnetRun.Sample> samples = List.of(
                sample(0, 0, 0.8),
                sample(0, 1, 0.4),
                sample(1, 0, 0.9),
                sample(1, 1, 0.85),
                sample(2, 1, 0.7),
                sample(3, 1, 0.9),
                sample(3, 0, 0.95));
        return TestnetRunTest.run(new TestnetRun.Scores(
                samples,
                new double[] {0, 2, 4, 6},
                new double[] {0.95, 0.9},
                new double[] {0.2, 0.3},
                finalAuc,
                new double[] {0.91, 0.81},
                new double[] {2, 6}));
    }

    @Test
    void aRowShowsTheMeanMedianAndWorstNodeAndBothTimesToTheTarget() {
        List<String> lines = SummaryTable.lines(List.of(run(new double[] {0.98, 0.9})), 0.85);

        assertThat(lines).hasSize(3);
        assertThat(lines.get(0)).contains("accuracy", "AUC", "bal.acc", "mean to 0.85", "worst to 0.85");
        assertThat(lines.get(1).split(" +"))
                .containsExactly(
                        "run",
                        "mean",
                        "median",
                        "worst",
                        "mean",
                        "worst",
                        "mean",
                        "first",
                        "held",
                        "first",
                        "held",
                        "reached",
                        "bytes/node");
        // The mean reaches 0.85 at 2 s and holds from 6 s; the worst node reaches it at 2 s and holds from 6 s too.
        assertThat(lines.get(2).split(" +"))
                .containsExactly(
                        "async", "0.9250", "0.9250", "0.9000", "0.9400", "0.9000", "0.8600", "2.0s", "6.0s", "2.0s",
                        "6.0s", "2/2", "0", "B");
        assertThat(lines).allSatisfy(l -> assertThat(l.length()).isLessThanOrEqualTo(120));
    }

    @Test
    void outsidersGetALineForEachRunTheyAttackedAndWhatTheyGotIsABreach() {
        TestnetRun quiet = run(new double[] {0.98, 0.9});
        TestnetRun attacked = TestnetRunTest.withOutsiders(
                run(new double[] {0.98, 0.9}), new TestnetRun.Outsiders(2, 240, 240, 240, 120, 0, 0, 0));
        TestnetRun breached = TestnetRunTest.withOutsiders(
                run(new double[] {0.98, 0.9}), new TestnetRun.Outsiders(1, 10, 9, 9, 5, 124, 1, 0));

        assertThat(SummaryTable.outsiderLines(List.of(quiet))).isEmpty();
        assertThat(SummaryTable.outsiderLines(List.of(quiet, attacked)))
                .containsExactly("outsiders, async: 2 made 240 connects, 240 pulls, 240 pushes, 120 publishes: 0 model"
                        + " bytes, 0 updates accepted, 0 messages delivered");
        assertThat(SummaryTable.breaches(List.of(quiet, attacked))).isEmpty();
        assertThat(SummaryTable.breaches(List.of(quiet, breached)))
                .containsExactly("membership breach in run async: outsiders without a certificate got 124 model bytes,"
                        + " 1 update accepted, 0 messages delivered");
    }

    @Test
    void withoutAnAucTheTableLeavesItsColumnsOut() {
        List<String> lines = SummaryTable.lines(List.of(run(new double[] {Double.NaN, Double.NaN})), 0.8);

        assertThat(lines.get(0)).doesNotContain("AUC");
        assertThat(lines.get(1)).doesNotContain("mean   worst");
        // To 0.8 the mean holds from 2 s; the worst node falls to 0.7 at 4 s and holds from 6 s.
        assertThat(lines.get(2).split(" +"))
                .containsExactly(
                        "async", "0.9250", "0.9250", "0.9000", "0.8600", "2.0s", "2.0s", "2.0s", "6.0s", "2/2", "0",
                        "B");
    }
}
