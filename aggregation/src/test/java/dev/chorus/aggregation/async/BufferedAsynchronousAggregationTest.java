package dev.chorus.aggregation.async;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import dev.chorus.aggregation.AllocationMeter;
import dev.chorus.aggregation.DeliveryFailure;
import dev.chorus.aggregation.InvalidUpdateException;
import dev.chorus.aggregation.LocalModel;
import dev.chorus.aggregation.ManualClock;
import dev.chorus.aggregation.ModelUpdate;
import dev.chorus.aggregation.Outbound;
import dev.chorus.aggregation.PullRequest;
import dev.chorus.aggregation.Receipt;
import dev.chorus.aggregation.async.BufferedAsynchronousAggregation.Config;
import dev.chorus.aggregation.async.BufferedAsynchronousAggregation.Role;
import dev.chorus.aggregation.robust.CoordinateWiseMedian;
import dev.chorus.aggregation.robust.NormClipping;
import dev.chorus.aggregation.weighting.StalenessWeighting;
import dev.chorus.aggregation.weighting.UpdateWeighting;
import dev.chorus.testsupport.TestLog;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class BufferedAsynchronousAggregationTest {

    private final ManualClock clock = new ManualClock(0);
    private final SplittableRandom random = new SplittableRandom(3);

    private static Config config(int k, double eta, StalenessWeighting s, boolean bySamples) {
        return new Config(k, eta, new UpdateWeighting(s, bySamples), Long.MAX_VALUE, Duration.ofSeconds(5));
    }

    @Test
    void appliesTheAverageOfKDeltasOnceTheBufferIsFull() {
        BufferedAsynchronousAggregation agg = new BufferedAsynchronousAggregation(
                config(3, 1.0, StalenessWeighting.constant(), false), Role.AGGREGATOR, "agg", 2);
        LocalModel model = new LocalModel("agg", new float[] {1, 1}, 0, 0);
        assertThat(agg.receive(ModelUpdate.delta("a", 0, 1, new float[] {3, 0}), model, clock)
                        .outcome())
                .isEqualTo(Receipt.Outcome.BUFFERED);
        assertThat(agg.receive(ModelUpdate.delta("b", 0, 1, new float[] {0, 6}), model, clock)
                        .outcome())
                .isEqualTo(Receipt.Outcome.BUFFERED);
        assertThat(model.params()).as("unchanged until K deltas are in").containsExactly(1, 1);
        assertThat(agg.buffered()).isEqualTo(2);
        assertThat(agg.receive(ModelUpdate.delta("a", 0, 1, new float[] {3, 3}), model, clock)
                        .outcome())
                .isEqualTo(Receipt.Outcome.MERGED);
        assertThat(model.params()).containsExactly(3, 4);
        assertThat(model.version()).isEqualTo(1);
        assertThat(agg.buffered()).isZero();
        assertThat(agg.appliedBuffers()).isEqualTo(1);
    }

    @Test
    void staleDeltasAreScaledByTheStalenessFunctionAndTheServerRate() {
        BufferedAsynchronousAggregation agg = new BufferedAsynchronousAggregation(
                config(2, 0.5, StalenessWeighting.polynomial(0.5), false), Role.AGGREGATOR, "agg", 1);
        LocalModel model = new LocalModel("agg", new float[] {0}, 3, 0);
        agg.receive(ModelUpdate.delta("a", 3, 1, new float[] {4}), model, clock); // lag 0: weight 1
        agg.receive(ModelUpdate.delta("b", 0, 1, new float[] {8}), model, clock); // lag 3: weight 1/2
        // 0.5 * (4 + 4) / 2 = 2
        assertThat(model.params()[0]).isCloseTo(2f, within(1e-6f));
        assertThat(model.version()).isEqualTo(4);
    }

    @Test
    void aRobustRuleReplacesTheMeanOfTheBufferAndOneHugeDeltaDoesNotDragTheModel() {
        Config robust = config(3, 1.0, StalenessWeighting.constant(), true).withRobust(new CoordinateWiseMedian());
        BufferedAsynchronousAggregation agg = new BufferedAsynchronousAggregation(robust, Role.AGGREGATOR, "agg", 2);
        LocalModel model = new LocalModel("agg", new float[] {1, 1}, 0, 0);
        agg.receive(ModelUpdate.delta("a", 0, 10, new float[] {1, 1}), model, clock);
        agg.receive(ModelUpdate.delta("b", 0, 1, new float[] {1e30f, -1e30f}), model, clock);
        assertThat(agg.receive(ModelUpdate.delta("c", 0, 10, new float[] {2, 2}), model, clock)
                        .outcome())
                .isEqualTo(Receipt.Outcome.MERGED);
        // The median of each coordinate of the deltas: (2, 1); sample counts play no part.
        assertThat(model.params()).containsExactly(3, 2);
        assertThat(model.version()).isEqualTo(1);

        BufferedAsynchronousAggregation mean = new BufferedAsynchronousAggregation(
                config(3, 1.0, StalenessWeighting.constant(), false), Role.AGGREGATOR, "agg", 2);
        LocalModel dragged = new LocalModel("agg", new float[] {1, 1}, 0, 0);
        mean.receive(ModelUpdate.delta("a", 0, 10, new float[] {1, 1}), dragged, clock);
        mean.receive(ModelUpdate.delta("b", 0, 1, new float[] {1e30f, -1e30f}), dragged, clock);
        mean.receive(ModelUpdate.delta("c", 0, 10, new float[] {2, 2}), dragged, clock);
        assertThat(Math.abs(dragged.params()[0]))
                .as("the mean follows the huge delta")
                .isGreaterThan(1e29f);
    }

    @Test
    void aRobustBufferScalesEachDeltaByItsStalenessBeforeTheRule() {
        Config robust =
                config(2, 0.5, StalenessWeighting.polynomial(0.5), false).withRobust(new NormClipping(100));
        BufferedAsynchronousAggregation agg = new BufferedAsynchronousAggregation(robust, Role.AGGREGATOR, "agg", 1);
        LocalModel model = new LocalModel("agg", new float[] {0}, 3, 0);
        agg.receive(ModelUpdate.delta("a", 3, 1, new float[] {4}), model, clock); // lag 0: weight 1
        agg.receive(ModelUpdate.delta("b", 0, 1, new float[] {8}), model, clock); // lag 3: weight 1/2
        // 0.5 * mean(4, 4) = 2, as without a rule: no delta is over the clipping norm
        assertThat(model.params()[0]).isCloseTo(2f, within(1e-6f));
        // The buffer is cleared: the next K deltas alone make the next step.
        agg.receive(ModelUpdate.delta("a", 4, 1, new float[] {2}), model, clock);
        agg.receive(ModelUpdate.delta("b", 4, 1, new float[] {2}), model, clock);
        assertThat(model.params()[0]).isCloseTo(3f, within(1e-6f));
    }

    @Test
    void sampleCountWeightingNormalisesBySamples() {
        BufferedAsynchronousAggregation agg = new BufferedAsynchronousAggregation(
                config(2, 1.0, StalenessWeighting.constant(), true), Role.AGGREGATOR, "agg", 1);
        LocalModel model = new LocalModel("agg", new float[] {0}, 0, 0);
        agg.receive(ModelUpdate.delta("a", 0, 10, new float[] {4}), model, clock);
        agg.receive(ModelUpdate.delta("b", 0, 30, new float[] {8}), model, clock);
        assertThat(model.params()[0]).isCloseTo(7f, within(1e-6f));
    }

    @Test
    void rejectsDeltasFromTheFutureAndDropsTooStaleOnes() {
        BufferedAsynchronousAggregation agg = new BufferedAsynchronousAggregation(
                new Config(2, 1.0, UpdateWeighting.uniform(), 2, Duration.ofSeconds(5)), Role.AGGREGATOR, "agg", 1);
        LocalModel model = new LocalModel("agg", new float[] {0}, 5, 0);
        assertThatThrownBy(() -> agg.receive(ModelUpdate.delta("a", 6, 1, new float[] {1}), model, clock))
                .isInstanceOf(InvalidUpdateException.class)
                .hasMessageContaining("update from a")
                .hasMessageContaining("version 6")
                .hasMessageContaining("only at version 5");
        Receipt stale = agg.receive(ModelUpdate.delta("a", 2, 1, new float[] {1}), model, clock);
        assertThat(stale.outcome()).isEqualTo(Receipt.Outcome.IGNORED_STALE);
        assertThat(stale.detail()).contains("lags 3 versions");
        assertThat(agg.receive(ModelUpdate.delta("a", 3, 1, new float[] {1}), model, clock)
                        .outcome())
                .isEqualTo(Receipt.Outcome.BUFFERED);
        assertThatThrownBy(() -> agg.receive(ModelUpdate.delta("a", 3, 1, new float[] {1, 2}), model, clock))
                .isInstanceOf(InvalidUpdateException.class)
                .hasMessageContaining("2 parameters");
        assertThat(agg.buffered()).isEqualTo(1);
    }

    @Test
    void aggregatorAnswersPullsAndIgnoresModels() {
        BufferedAsynchronousAggregation agg =
                new BufferedAsynchronousAggregation(Config.defaults(), Role.AGGREGATOR, "agg", 2);
        LocalModel model = new LocalModel("agg", new float[] {1, 2}, 7, 0);
        Receipt r = agg.receive(new PullRequest("c", 0, null), model, clock);
        assertThat(r.outcome()).isEqualTo(Receipt.Outcome.ANSWERED);
        ModelUpdate reply = (ModelUpdate) r.replies().getFirst().message();
        assertThat(r.replies().getFirst().recipient()).isEqualTo("c");
        assertThat(reply.version()).isEqualTo(7);
        assertThat(reply.values()).containsExactly(1, 2);
        assertThat(agg.receive(ModelUpdate.full("c", 7, 1, new float[] {9, 9}), model, clock)
                        .outcome())
                .isEqualTo(Receipt.Outcome.IGNORED_UNEXPECTED);
    }

    @Test
    void contributorPullsTrainsAndSendsItsDelta() {
        BufferedAsynchronousAggregation c =
                new BufferedAsynchronousAggregation(Config.defaults(), Role.CONTRIBUTOR, "agg", 2);
        LocalModel model = new LocalModel("c", new float[2], 0, 5);
        c.configure(model, List.of("agg"), random, clock);
        Outbound pull = c.pollOutbound();
        assertThat(pull.recipient()).isEqualTo("agg");
        assertThat(pull.message()).isInstanceOf(PullRequest.class);
        assertThat(c.hasModel()).isFalse();

        c.receive(ModelUpdate.full("agg", 4, 0, new float[] {1, 2}), model, clock);
        assertThat(c.hasModel()).isTrue();
        assertThat(model.params()).containsExactly(1, 2);
        assertThat(model.version()).isEqualTo(4);
        c.configure(model, List.of("agg"), random, clock);
        assertThat(c.pendingOutbound()).as("no step taken yet, nothing to send").isZero();

        model.params()[0] = 1.5f; // a local step
        model.params()[1] = 1.0f;
        model.advance();
        c.configure(model, List.of("agg"), random, clock);
        ModelUpdate delta = (ModelUpdate) c.pollOutbound().message();
        assertThat(delta.content()).isEqualTo(ModelUpdate.Content.DELTA);
        assertThat(delta.version())
                .as("the version the delta was computed against")
                .isEqualTo(4);
        assertThat(delta.sampleCount()).isEqualTo(5);
        assertThat(delta.values()).containsExactly(0.5f, -1.0f);
        assertThat(c.pollOutbound().message()).isInstanceOf(PullRequest.class);
        assertThat(c.receive(ModelUpdate.full("x", 5, 0, new float[2]), model, clock)
                        .outcome())
                .as("models only from the aggregator")
                .isEqualTo(Receipt.Outcome.IGNORED_UNEXPECTED);
    }

    @Test
    void contributorRetriesAPullAfterTimeoutOrFailure() {
        BufferedAsynchronousAggregation c =
                new BufferedAsynchronousAggregation(Config.defaults(), Role.CONTRIBUTOR, "agg", 1);
        LocalModel model = new LocalModel("c", new float[1], 0, 5);
        c.configure(model, List.of(), random, clock);
        c.pollOutbound();
        clock.advance(Duration.ofSeconds(29));
        c.configure(model, List.of(), random, clock);
        assertThat(c.pendingOutbound()).isZero();
        clock.advance(Duration.ofSeconds(1));
        c.configure(model, List.of(), random, clock);
        assertThat(c.pollOutbound().message()).isInstanceOf(PullRequest.class);
        c.onFailure(new DeliveryFailure("agg", DeliveryFailure.Kind.UNREACHABLE, "no route"), model, clock);
        c.configure(model, List.of(), random, clock);
        assertThat(c.pollOutbound().message()).isInstanceOf(PullRequest.class);
    }

    @Test
    void bufferingAMillionParameterDeltaAllocatesNothing() {
        int d = 1_000_000;
        BufferedAsynchronousAggregation agg =
                new BufferedAsynchronousAggregation(Config.defaults().withBufferSize(1000), Role.AGGREGATOR, "agg", d);
        LocalModel model = new LocalModel("agg", new float[d], 0, 0);
        ModelUpdate delta = ModelUpdate.delta("a", 0, 1, new float[d]);
        agg.receive(delta, model, clock);
        long bytes = AllocationMeter.bytesAllocatedBy(() -> agg.receive(delta, model, clock));
        assertThat(bytes).isLessThan(1024);
    }

    /**
     * One aggregator and contributors on quadratic objectives {@code |x - c_i|^2 / 2}, one gradient step (of decaying size) per pull,
     * deltas arriving in random order: the shared model converges to the minimiser of the sum, the mean of the
     * {@code c_i}.
     */
    @Test
    void convergesToTheOptimumOfTheContributorsObjectives() {
        long seed = 77;
        TestLog.figures("convergesToTheOptimumOfTheContributorsObjectives seed=" + seed);
        SplittableRandom rnd = new SplittableRandom(seed);
        int n = 6;
        int d = 3;
        Config config = new Config(3, 1.0, UpdateWeighting.uniform(), Long.MAX_VALUE, Duration.ofSeconds(5));
        BufferedAsynchronousAggregation agg = new BufferedAsynchronousAggregation(config, Role.AGGREGATOR, "agg", d);
        LocalModel global = new LocalModel("agg", new float[] {10, -10, 5}, 0, 0);
        BufferedAsynchronousAggregation[] contributors = new BufferedAsynchronousAggregation[n];
        LocalModel[] models = new LocalModel[n];
        double[][] c = new double[n][d];
        double[] optimum = new double[d];
        for (int i = 0; i < n; i++) {
            contributors[i] = new BufferedAsynchronousAggregation(config, Role.CONTRIBUTOR, "agg", d);
            models[i] = new LocalModel("c" + i, new float[d], 0, 1);
            for (int j = 0; j < d; j++) {
                c[i][j] = rnd.nextDouble(-3, 3);
                optimum[j] += c[i][j] / n;
            }
        }
        List<Outbound> inFlight = new ArrayList<>();
        for (int tick = 0; tick < 3000; tick++) {
            int i = rnd.nextInt(n);
            if (contributors[i].hasModel()) {
                float[] x = models[i].params();
                // A decaying step: with a constant one the model keeps jittering with the random client order.
                double eta = 0.3 / (1 + tick / 200.0);
                for (int j = 0; j < d; j++) {
                    x[j] -= (float) (eta * (x[j] - c[i][j]));
                }
                models[i].advance();
            }
            contributors[i].configure(models[i], List.of("agg"), rnd, clock);
            for (Outbound o; (o = contributors[i].pollOutbound()) != null; ) {
                inFlight.add(o);
            }
            // Deliver a random message in flight: arrival order is not send order.
            if (!inFlight.isEmpty()) {
                Outbound o = inFlight.remove(rnd.nextInt(inFlight.size()));
                if (o.recipient().equals("agg")) {
                    inFlight.addAll(agg.receive(o.message(), global, clock).replies());
                } else {
                    int k = Integer.parseInt(o.recipient().substring(1));
                    contributors[k].receive(o.message(), models[k], clock);
                }
            }
        }
        double error = 0;
        for (int j = 0; j < d; j++) {
            error = Math.max(error, Math.abs(global.params()[j] - optimum[j]));
        }
        TestLog.figures(
                "buffered aggregation: %d buffers applied, distance to optimum %.2e%n", agg.appliedBuffers(), error);
        assertThat(agg.appliedBuffers()).isGreaterThan(100);
        assertThat(error).isLessThan(0.05);
    }
}
