package dev.chorus.testnet;

import static org.assertj.core.api.Assertions.assertThat;

import dev.chorus.learning.data.TestDatasets;
import dev.chorus.learning.json.JsonReader;
import dev.chorus.learning.optim.LearningRateSchedule;
import dev.chorus.node.averaging.AveragingEngine;
import dev.chorus.node.averaging.RobustRule;
import dev.chorus.node.averaging.StrategySettings;
import dev.chorus.node.protocol.Dtype;
import dev.chorus.testsupport.TestLog;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Six testnet nodes on label-skewed WDBC shards average through secure group rounds: they end near each other and
 * above their own shards' models, the relays see only uniform words, and injected dropouts are recovered.
 */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class SecureTestnetTest {

    private static final int NODES = 6;

    private static TestnetSettings settings(double dropouts) {
        return settings(dropouts, TestnetSettings.Impairments.NONE);
    }

    private static TestnetSettings settings(double dropouts, TestnetSettings.Impairments impairments) {
        return new TestnetSettings(
                        new TestnetSettings.Topology(NODES, 0, 0),
                        new TestnetSettings.Training(
                                "dirichlet:0.5",
                                "logreg",
                                "sgd:lr=0.01,momentum=0.9",
                                16,
                                "reference",
                                LearningRateSchedule.CONSTANT,
                                200),
                        new TestnetSettings.Averaging(
                                5,
                                new AveragingEngine.Config.Training(0, 1),
                                0,
                                false,
                                new TestnetSettings.Averaging.Fragmenting(0, 3, false),
                                Dtype.F32,
                                RobustRule.NONE,
                                StrategySettings.Screening.off()),
                        impairments,
                        new TestnetSettings.Evaluation(
                                Duration.ofSeconds(8), Duration.ofSeconds(1), Duration.ZERO, 0.9, 0),
                        3)
                .withSecure(new TestnetSettings.Secure(8, dropouts, Duration.ofSeconds(1)));
    }

    private static TestnetRun run(StrategyKind kind, double dropouts) throws Exception {
        return run(kind, settings(dropouts));
    }

    private static TestnetRun run(StrategyKind kind, TestnetSettings settings) throws Exception {
        double dropouts = settings.secure().dropouts();
        TestnetData data = TestnetData.of(TestDatasets.wdbc().dataset(), null, true, 0.2, settings);
        TestnetRun run = new Testnet(settings, data).run(kind, true, line -> {});
        TestLog.figures(
                "%s dropouts %.1f: %s, secure %s",
                kind.id(),
                dropouts,
                run.scores().finalAccuracy(),
                run.exchanges().secure());
        return run;
    }

    @Test
    void groupRoundsBringTheNodesTogetherAndTheRelaysSeeUniformWords() throws Exception {
        TestnetRun alone = run(StrategyKind.ALONE, 0);
        TestnetRun secure = run(StrategyKind.SECURE, 0);
        TestnetRun.SecureRounds s = secure.exchanges().secure();

        assertThat(s.completed()).isGreaterThanOrEqualTo(3);
        assertThat(s.maskedInputsChecked()).isGreaterThanOrEqualTo(3L * NODES);
        // About 0.15% of uniform inputs of this model's size fail the check by chance (its nominal 0.1% is for long
        // vectors), and rounds chained within a window check thousands in a run; an input sent unmasked fails every
        // time, so one leaking member would fail at least one input in NODES.
        assertThat(s.maskedInputsNonUniform())
                .as("of %d masked inputs checked", s.maskedInputsChecked())
                .isLessThanOrEqualTo(1 + s.maskedInputsChecked() / 200);
        assertThat(s.bytesPerMemberVsPlain()).isGreaterThan(1);
        double[] acc = secure.scores().finalAccuracy();
        TestnetRun.Spread spread = TestnetRun.Spread.of(acc);
        TestnetRun.Spread aloneSpread = TestnetRun.Spread.of(alone.scores().finalAccuracy());
        assertThat(spread.worst()).as("worst node, secure against alone").isGreaterThan(aloneSpread.worst());
        assertThat(spread.mean()).isGreaterThan(0.85);

        Map<String, Object> report =
                JsonReader.parseObject(TestnetReport.json(settings(0), "wdbc", 0, List.of(), List.of(secure)));
        @SuppressWarnings("unchecked")
        Map<String, Object> block = (Map<String, Object>)
                ((Map<String, Object>) ((List<?>) report.get("runs")).getFirst()).get("secureAggregation");
        assertThat(block.get("roundsCompleted")).isEqualTo(s.completed());
        assertThat(block).containsKeys("dropoutsRecovered", "bytesPerMemberVsPlain", "relayView", "meanRoundMillis");
        // Every node merged group sums, and the nodes together no more sums than the member rounds they joined.
        assertThat(s.sumsPerNode()).hasSize(NODES).doesNotContain(0L);
        assertThat(s.unansweredPerNode()).hasSize(NODES);
        assertThat(java.util.Arrays.stream(s.sumsPerNode()).sum()).isLessThanOrEqualTo(s.memberRounds());
        assertThat((List<?>) block.get("sumsPerNode")).hasSize(NODES);
        assertThat(((List<?>) block.get("sumsPerNode")).getFirst()).isEqualTo(s.sumsPerNode()[0]);
        assertThat((List<?>) block.get("offersUnansweredPerNode")).hasSize(NODES);
    }

    /**
     * Two of the six nodes on 1 Mbit/s links decline the relay's role ({@code --slow-links-relay false}, as {@code
     * averaging.secure_relay: false}), so the rounds run without any of them relayed over a slow link; with the
     * rotation over all six, a third would be.
     */
    @Test
    void theNodesOnSlowLinksRelayNoRound() throws Exception {
        TestnetSettings base =
                settings(0, new TestnetSettings.Impairments(Impairment.NONE, new Impairment(2.0 / NODES, 1)));
        TestnetSettings.Secure s0 = base.secure();
        TestnetSettings settings = base.withSecure(new TestnetSettings.Secure(
                s0.groupSize(),
                s0.dropouts(),
                s0.phaseTimeout(),
                dev.chorus.node.secagg.RelayRole.Setting.NEVER,
                s0.offerWindow()));
        TestnetRun run = run(StrategyKind.SECURE, settings);
        TestnetRun.SecureRounds s = run.exchanges().secure();
        String rounds = java.util.Arrays.toString(s.rounds());
        assertThat(run.impairments().slowLinks()).hasSize(2);
        assertThat(s.completed()).as(rounds).isGreaterThanOrEqualTo(8);
        assertThat(s.relayedOnSlowLinks()).as(rounds).isZero();
    }

    /**
     * With a fraction of 0.15 and six nodes, the node whose schedule starts at 11/12 drops out of the first round it
     * joins, before it sends anything; a round with a member that never sent its keys ends recovered or abandoned.
     */
    @Test
    void droppedMembersAreRecoveredAndEveryNodeKeepsTraining() throws Exception {
        TestnetRun run = run(StrategyKind.SECURE, 0.15);
        TestnetRun.SecureRounds s = run.exchanges().secure();
        String rounds = "completed, abandoned, cancelled, recovered, joined, relay ms, injected: "
                + java.util.Arrays.toString(s.rounds());
        assertThat(s.completed()).as(rounds).isPositive();
        assertThat(s.dropoutsInjected()).as(rounds).isPositive();
        assertThat(s.dropoutsInjected()).as(rounds).isLessThanOrEqualTo(s.memberRounds());
        assertThat(s.dropoutsRecovered() + s.abandoned()).as(rounds).isPositive();
        assertThat(java.util.Arrays.stream(run.scores().finalAccuracy()).min().orElseThrow())
                .isGreaterThan(0.5);
    }
}
