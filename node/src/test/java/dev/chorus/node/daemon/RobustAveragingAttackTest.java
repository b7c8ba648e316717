package dev.chorus.node.daemon;

import static org.assertj.core.api.Assertions.assertThat;

import dev.chorus.gossip.identity.PrivateKey;
import dev.chorus.learning.train.StepListener;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Five {@code sync} daemons on loopback, one of which replaces its model by a huge one ({@value #ATTACK} in every
 * coordinate) after each of its steps, so every round it contributes that. With {@code averaging.robust: median}
 * the honest nodes' parameters stay near those of a run without the attacker; with the weighted mean they are
 * dragged out by orders of magnitude, which shows the test can fail.
 */
class RobustAveragingAttackTest {

    private static final long SEED = 20250131L;
    private static final int NODES = 5;
    private static final float ATTACK = 1e4f;
    private static final int STEPS = 24;

    @TempDir
    Path dir;

    private final ShardedDaemons daemons = new ShardedDaemons();

    @AfterEach
    void stop() {
        daemons.close();
    }

    @Test
    void theMedianKeepsTheHonestModelsBoundedWhereTheMeanIsDragged() throws Exception {
        Path shards = ShardedDaemons.writeShards(dir.resolve("shards"), "dirichlet:1.0", NODES, SEED);

        double reference = largestHonestNorm(shards, "none", false);
        double robust = largestHonestNorm(shards, "median", true);
        double mean = largestHonestNorm(shards, "none", true);

        assertThat(reference)
                .as("the honest norm without an attacker")
                .isPositive()
                .isFinite();
        assertThat(robust)
                .as("the honest norm under attack with the median, against %s without attacker", reference)
                .isLessThan(10 * reference);
        assertThat(mean)
                .as("the honest norm under attack with the mean, against %s without attacker", reference)
                .isGreaterThan(100 * reference);
    }

    /**
     * Runs the five nodes until every honest one has taken {@link #STEPS} steps (or, when the mean is dragged to
     * infinity, until that shows) and returns the largest norm of an honest node's parameters seen after a step.
     */
    private double largestHonestNorm(Path shards, String rule, boolean attack) throws Exception {
        String run = rule + (attack ? "-attack" : "-clean");
        List<PrivateKey> keys = ShardedDaemons.keys(NODES);
        List<String> overrides = List.of(
                "training.seed=" + SEED,
                "checkpoint.every_steps=1000",
                "averaging.strategy=sync",
                "averaging.every_steps=2",
                ShardedDaemons.participants(keys),
                "averaging.robust=" + rule,
                "averaging.round_timeout_seconds=5",
                "training.pause_ms=5");
        AtomicLong largestBits = new AtomicLong(Double.doubleToLongBits(0));
        List<NodeDaemon> nodes = daemons.startChain(
                dir.resolve(run),
                shards,
                keys,
                i -> overrides,
                i -> List.of(
                        attack && i == NODES - 1
                                ? (StepListener) RobustAveragingAttackTest::poison
                                : norms(largestBits)));
        List<NodeDaemon> honest = attack ? nodes.subList(0, NODES - 1) : nodes;
        NodeDaemonTest.waitFor(
                run + ": " + STEPS + " steps of every honest node",
                Duration.ofSeconds(120),
                () -> honest.stream().allMatch(d -> d.metrics().steps() >= STEPS)
                        || Double.longBitsToDouble(largestBits.get()) == Double.POSITIVE_INFINITY);
        for (NodeDaemon d : nodes) {
            d.close();
        }
        return Double.longBitsToDouble(largestBits.get());
    }

    /** The attack: every coordinate {@link #ATTACK}, finite, so that only the aggregation rule stops it. */
    private static void poison(dev.chorus.learning.train.TrainingStep step) {
        float[] p = new float[step.model().parameterCount()];
        Arrays.fill(p, ATTACK);
        step.model().setParameters(p);
    }

    /** Records the largest parameter norm seen after a step (a non-finite one as infinite). */
    private static StepListener norms(AtomicLong largestBits) {
        return step -> {
            float[] p = new float[step.model().parameterCount()];
            step.model().copyParametersTo(p);
            double s = 0;
            for (float x : p) {
                s += (double) x * x;
            }
            double norm = Double.isFinite(s) ? Math.sqrt(s) : Double.POSITIVE_INFINITY;
            largestBits.accumulateAndGet(
                    Double.doubleToLongBits(norm),
                    (a, b) ->
                            Double.doubleToLongBits(Math.max(Double.longBitsToDouble(a), Double.longBitsToDouble(b))));
        };
    }
}
