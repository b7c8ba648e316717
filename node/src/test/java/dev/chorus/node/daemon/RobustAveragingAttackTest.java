package dev.chorus.node.daemon;

import static org.assertj.core.api.Assertions.assertThat;

import dev.chorus.gossip.identity.KeyFile;
import dev.chorus.gossip.identity.PrivateKey;
import dev.chorus.learning.data.CsvData;
import dev.chorus.learning.data.TestDatasets;
import dev.chorus.learning.partition.PartitionSource;
import dev.chorus.learning.partition.Partitioner;
import dev.chorus.learning.partition.ShardWriter;
import dev.chorus.learning.train.StepListener;
import dev.chorus.node.NodeTestDirs;
import dev.chorus.node.config.ConfigLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Collectors;
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

    private final List<NodeDaemon> started = new ArrayList<>();

    @AfterEach
    void stop() {
        started.forEach(NodeDaemon::close);
    }

    @Test
    void theMedianKeepsTheHonestModelsBoundedWhereTheMeanIsDragged() throws Exception {
        Path shards = dir.resolve("shards");
        CsvData csv = TestDatasets.wdbc();
        ShardWriter.writeCsv(
                csv, Partitioner.parse("dirichlet:1.0").partition(PartitionSource.of(csv), NODES, SEED), shards);

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
        List<PrivateKey> keys = new ArrayList<>();
        for (int i = 0; i < NODES; i++) {
            keys.add(PrivateKey.generate());
        }
        String participants = "averaging.participants=["
                + keys.stream().map(k -> k.peerId().toString()).collect(Collectors.joining(", ")) + "]";
        List<NodeDaemon> nodes = new ArrayList<>();
        List<String> addresses = new ArrayList<>();
        AtomicLong largestBits = new AtomicLong(Double.doubleToLongBits(0));
        for (int i = 0; i < NODES; i++) {
            boolean attacker = attack && i == NODES - 1;
            List<String> overrides = new ArrayList<>(List.of(
                    participants,
                    "averaging.robust=" + rule,
                    "averaging.round_timeout_seconds=5",
                    "training.pause_ms=5"));
            if (!addresses.isEmpty()) {
                overrides.add("network.bootstrap=[" + String.join(", ", addresses) + "]");
            }
            StepListener listener = attacker ? RobustAveragingAttackTest::poison : norms(largestBits);
            NodeDaemon d = startNode(
                    run + "-" + i, keys.get(i), shards.resolve(ShardWriter.csvShardName(i)), overrides, listener);
            nodes.add(d);
            addresses.add(d.listenAddrs().getFirst().toString());
        }
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

    private NodeDaemon startNode(String name, PrivateKey key, Path shard, List<String> extra, StepListener listener)
            throws Exception {
        Path home = dir.resolve(name);
        Files.createDirectories(home);
        KeyFile.create(home.resolve("identity.key"), key);
        Path yaml = home.resolve("node.yaml");
        Files.writeString(yaml, NodeTestDirs.baseYaml().replace("path: wdbc.csv", "path: " + shard));
        List<String> overrides = new ArrayList<>(List.of(
                "training.seed=" + SEED,
                "checkpoint.every_steps=1000",
                "averaging.strategy=sync",
                "averaging.every_steps=2"));
        overrides.addAll(extra);
        NodeDaemon d = NodeDaemon.start(ConfigLoader.load(yaml, overrides), List.of(listener));
        started.add(d);
        return d;
    }
}
