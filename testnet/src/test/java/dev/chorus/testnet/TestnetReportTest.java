package dev.chorus.testnet;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import dev.chorus.learning.json.JsonReader;
import dev.chorus.learning.optim.LearningRateSchedule;
import dev.chorus.node.protocol.Dtype;
import dev.chorus.node.secagg.RelayRole;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The CSV rows and the JSON summary of hand-made runs. */
class TestnetReportTest {

    private static final double TARGET = 0.8;

    private static TestnetSettings settings() {
        return new TestnetSettings(
                new TestnetSettings.Topology(2, 0, 0),
                new TestnetSettings.Training(
                        "iid", "logreg", "sgd:lr=0.01,momentum=0.9", 16, "reference", LearningRateSchedule.CONSTANT, 0),
                new TestnetSettings.Averaging(5, 0, 0, false, 10, 3, false, Dtype.F32),
                TestnetSettings.Impairments.NONE,
                new TestnetSettings.Evaluation(Duration.ofSeconds(4), Duration.ofSeconds(1), Duration.ZERO, TARGET, 0),
                7);
    }

    private static TestnetRun.Sample sample(int tick, int node, double accuracy, double auc) {
        return new TestnetRun.Sample(
                "async", tick, tick, node, new TestnetRun.Score(accuracy, 0.4, auc, accuracy - 0.1), tick, 100L * tick);
    }

    /**
     * Two nodes over four rounds. Mean per round: 0.5, 0.85, 0.85, 0.885; worst node per round: 0.4, 0.8, 0.75,
     * 0.82. So to 0.8 the mean takes 1 s (held from 1 s), the worst node 1 s (held from 3 s).
     */
    private static TestnetRun run(double[] finalAuc) {
        List<TestnetRun.Sample> samples = List.of(
                sample(0, 0, 0.6, 0.7),
                sample(0, 1, 0.4, Double.NaN),
                sample(1, 0, 0.9, 0.9),
                sample(1, 1, 0.8, 0.85),
                sample(2, 0, 0.95, 0.97),
                sample(2, 1, 0.75, 0.8),
                sample(3, 1, 0.82, 0.88));
        return TestnetRunTest.run(new TestnetRun.Scores(
                samples,
                new double[] {0, 1, 2, 3},
                new double[] {0.95, 0.82},
                new double[] {0.2, 0.5},
                finalAuc,
                new double[] {0.9, 0.7},
                new double[] {1, 1}));
    }

    @Test
    void csvAppendsAucAndBalancedAccuracyAndLeavesAnUndefinedAucEmpty() {
        List<String> lines = TestnetReport.csv(List.of(run(new double[] {0.97, 0.88})))
                .lines()
                .toList();

        assertThat(lines.getFirst())
                .isEqualTo("strategy,time_s,node,accuracy,loss,version,bytes_sent,auc,balanced_accuracy");
        assertThat(lines.get(1)).isEqualTo("async,0.000,0,0.600000,0.400000,0,0,0.700000,0.500000");
        assertThat(lines.get(2)).isEqualTo("async,0.000,1,0.400000,0.400000,0,0,,0.300000");
        assertThat(lines).hasSize(1 + 7);
    }

    @Test
    @SuppressWarnings("unchecked")
    void jsonSummarizesTheFinalScoresAndTheWorstNodesTimesToTheTarget() {
        String json = TestnetReport.json(
                settings(), "test", 1, List.of(), List.of(run(new double[] {0.97, 0.88}), run(new double[] {
                    Double.NaN, Double.NaN
                })));
        List<Map<String, Object>> runs =
                (List<Map<String, Object>>) JsonReader.parseObject(json).get("runs");

        Map<String, Object> binary = runs.getFirst();
        Map<String, Object> accuracy = (Map<String, Object>) binary.get("finalAccuracy");
        assertNumbers(accuracy, Map.of("median", 0.885, "min", 0.82, "max", 0.95, "mean", 0.885, "worst", 0.82));
        assertNumbers(
                (Map<String, Object>) binary.get("finalAuc"),
                Map.of("mean", 0.925, "median", 0.925, "worst", 0.88, "max", 0.97));
        assertNumbers(
                (Map<String, Object>) binary.get("finalBalancedAccuracy"),
                Map.of("mean", 0.8, "median", 0.8, "worst", 0.7, "max", 0.9));
        Map<String, Object> times = (Map<String, Object>) binary.get("timeToTarget");
        assertNumbers(
                times, Map.of("meanOfNodes", 1.0, "meanOfNodesHeld", 1.0, "worstNode", 1.0, "worstNodeHeld", 3.0));

        Map<String, Object> multiclass = (Map<String, Object>) runs.get(1).get("finalAuc");
        assertThat(multiclass).containsOnlyKeys("mean", "median", "worst", "max");
        assertThat(multiclass.values()).containsOnlyNulls();
    }

    /** Without outsiders the summary is as it always was; with them, the settings and each run say so. */
    @Test
    @SuppressWarnings("unchecked")
    void jsonHasTheOutsidersOnlyWhenTheyAttacked() {
        TestnetRun quiet = run(new double[] {0.97, 0.88});
        assertThat(TestnetReport.json(settings(), "test", 1, List.of(), List.of(quiet)))
                .doesNotContain("outsiders");

        TestnetSettings s = settings();
        TestnetSettings attacked = new TestnetSettings(
                s.topology(), s.training(), s.averaging(), s.impairments(), s.evaluation(), s.seed(), 2);
        String json = TestnetReport.json(
                attacked,
                "test",
                1,
                List.of(),
                List.of(TestnetRunTest.withOutsiders(quiet, new TestnetRun.Outsiders(2, 60, 58, 57, 30, 0, 0, 1))));
        Map<String, Object> summary = JsonReader.parseObject(json);
        assertThat(((Number) summary.get("outsiders")).intValue()).isEqualTo(2);
        Map<String, Object> run = ((List<Map<String, Object>>) summary.get("runs")).getFirst();
        assertThat((Map<String, Object>) run.get("outsiders"))
                .isEqualTo(Map.of(
                        "hosts", 2L,
                        "connects", 60L,
                        "pulls", 58L,
                        "pushes", 57L,
                        "publishes", 30L,
                        "modelBytesPulled", 0L,
                        "updatesAccepted", 0L,
                        "messagesDelivered", 1L,
                        "breach", true));
    }

    /** The secure strategy's settings travel with every summary, the slow links' relay setting as node.yaml writes it. */
    @Test
    @SuppressWarnings("unchecked")
    void jsonNamesTheSecureSettings() {
        TestnetSettings s = settings()
                .withSecure(new TestnetSettings.Secure(
                        6, 0.25, Duration.ofMillis(1500), RelayRole.Setting.NEVER, Duration.ofMillis(250)));
        Map<String, Object> secure = (Map<String, Object>) JsonReader.parseObject(
                        TestnetReport.json(s, "test", 1, List.of(), List.of(run(new double[] {0.97, 0.88}))))
                .get("secure");
        assertThat(secure.get("slowLinksRelay")).isEqualTo("false");
        assertNumbers(
                secure,
                Map.of("groupSize", 6.0, "dropouts", 0.25, "phaseTimeoutSeconds", 1.5, "offerWindowSeconds", 0.25));
        assertThat((Map<String, Object>)
                        JsonReader.parseObject(TestnetReport.json(settings(), "test", 1, List.of(), List.of()))
                                .get("secure"))
                .containsEntry("slowLinksRelay", "auto")
                .containsEntry("groupSize", 8L);
    }

    @Test
    void jsonNamesHowManyTestRowsTheCurveScores() {
        assertThat(JsonReader.parseObject(TestnetReport.json(settings(), "test", 1, List.of(), List.of())))
                .containsEntry("evalRows", 0L);
    }

    private static void assertNumbers(Map<String, Object> object, Map<String, Double> expected) {
        expected.forEach((name, value) ->
                assertThat(((Number) object.get(name)).doubleValue()).as(name).isCloseTo(value, within(1e-12)));
    }
}
