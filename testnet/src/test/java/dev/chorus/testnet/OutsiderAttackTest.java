package dev.chorus.testnet;

import static org.assertj.core.api.Assertions.assertThat;

import dev.chorus.learning.data.TestDatasets;
import dev.chorus.learning.optim.LearningRateSchedule;
import dev.chorus.node.protocol.Dtype;
import dev.chorus.testsupport.TestLog;
import java.time.Duration;
import java.util.Arrays;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Three nodes of a testnet train and exchange on WDBC while two outsiders (valid libp2p keys, no member certificate)
 * try throughout to connect to each, pull its model, push a poisoned one and publish announcements: they try all of
 * it, get no model byte, no update accepted and no message delivered, and the nodes train and exchange as usual.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class OutsiderAttackTest {

    private static final long SEED = 11;

    private static TestnetSettings settings(int outsiders) {
        return new TestnetSettings(
                new TestnetSettings.Topology(3, 0, 0),
                new TestnetSettings.Training(
                        "iid",
                        "logreg",
                        "sgd:lr=0.01,momentum=0.9",
                        16,
                        "reference",
                        LearningRateSchedule.CONSTANT,
                        200),
                new TestnetSettings.Averaging(5, 0, 0, false, 0, 3, false, Dtype.F32),
                TestnetSettings.Impairments.NONE,
                new TestnetSettings.Evaluation(Duration.ofSeconds(4), Duration.ofSeconds(1), Duration.ZERO, 0.9, 0),
                SEED,
                outsiders);
    }

    @Test
    void outsidersTryEverythingAndGetNothingWhileTheNodesTrainAndExchange() throws Exception {
        TestLog.figures("seed " + SEED);
        TestnetSettings settings = settings(2);
        TestnetData data = TestnetData.of(TestDatasets.wdbc().dataset(), null, true, 0.2, settings);
        TestnetRun run = new Testnet(settings, data).run(StrategyKind.ASYNC, false, line -> TestLog.figures(line));
        TestnetRun.Outsiders o = run.outsiders();
        TestLog.figures(o + "; bytes received "
                + Arrays.toString(run.exchanges().bytesReceived())
                + ", updates accepted " + Arrays.toString(run.exchanges().updatesAccepted()) + ", accuracy "
                + Arrays.toString(run.scores().finalAccuracy()));

        assertThat(o.hosts()).isEqualTo(2);
        // The attack happened: every kind of attempt, on every node, round after round.
        assertThat(o.connects()).as("connects").isGreaterThanOrEqualTo(2 * 3 * 3);
        assertThat(o.pulls()).as("pulls").isPositive();
        assertThat(o.pushes()).as("pushes").isPositive();
        assertThat(o.publishes()).as("publishes").isGreaterThanOrEqualTo(2 * 3);
        // And it got nothing.
        assertThat(o.modelBytesPulled()).as("model bytes pulled").isZero();
        assertThat(o.updatesAccepted()).as("poisoned updates accepted").isZero();
        assertThat(o.messagesDelivered()).as("announcements delivered to nodes").isZero();
        assertThat(o.breached()).isFalse();
        // The members admitted each other: they exchanged and merged, and their models are sound (a merged
        // poisoned model, every parameter 1e6, would leave no node near this accuracy).
        for (int i = 0; i < 3; i++) {
            assertThat(run.exchanges().bytesReceived()[i])
                    .as("node %d bytes received", i)
                    .isPositive();
            assertThat(run.exchanges().updatesAccepted()[i])
                    .as("node %d updates accepted", i)
                    .isPositive();
            assertThat(run.scores().finalAccuracy()[i])
                    .as("node %d accuracy", i)
                    .isGreaterThan(0.85);
        }
        assertThat(SummaryTable.outsiderLines(java.util.List.of(run)))
                .singleElement()
                .asString()
                .startsWith("outsiders, async: 2 made ")
                .endsWith(": 0 model bytes, 0 updates accepted, 0 messages delivered");
        assertThat(SummaryTable.breaches(java.util.List.of(run))).isEmpty();
    }
}
