package dev.chorus.node.daemon;

import static org.assertj.core.api.Assertions.assertThat;

import dev.chorus.aggregation.ModelUpdate;
import dev.chorus.gossip.host.Host;
import dev.chorus.gossip.host.HostConfig;
import dev.chorus.gossip.identity.PrivateKey;
import dev.chorus.gossip.multiaddr.Multiaddr;
import dev.chorus.node.averaging.SnapshotBuffer;
import dev.chorus.node.checkpoint.CheckpointStore;
import dev.chorus.node.protocol.FragmentCatalog;
import dev.chorus.node.protocol.ModelExchange;
import dev.chorus.privacy.audit.EgressRecorder;
import dev.chorus.testsupport.TestLog;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Three {@code async} daemons on loopback train logistic regression on their shards of WDBC while a fourth host,
 * which holds no model of its own, pushes them models throughout: every other one of norm about 1e30, the others
 * an honest node's model pulled a moment before, sign-flipped and scaled by 10. With {@code averaging.screening:
 * clip} the honest nodes clip the pushes, exclude the attacker, and end with finite parameters within a few times
 * the norm of the same run without the attacker, and sane accuracy; with {@code off} the same pushes drag them far
 * away (which is what makes the first half of the test mean something).
 */
@Timeout(value = 240, unit = TimeUnit.SECONDS)
class NodeDaemonScreeningAttackTest {

    private static final long SEED = 20261204L;
    private static final int NODES = 3;

    @TempDir
    Path dir;

    private final ShardedDaemons daemons = new ShardedDaemons();
    private final List<AutoCloseable> open = new ArrayList<>();

    @AfterEach
    void closeAll() throws Exception {
        for (int i = open.size() - 1; i >= 0; i--) {
            open.get(i).close();
        }
        daemons.close();
    }

    /** What a run ends with: each honest node's parameters, accuracy and screening counts. */
    private record Run(List<float[]> params, List<Double> accuracy, long clipped, long exclusions, long collapses) {

        double largestNorm() {
            double largest = 0;
            for (float[] p : params) {
                double s = 0;
                for (float v : p) {
                    s += (double) v * v;
                }
                largest = Math.max(largest, Double.isFinite(s) ? Math.sqrt(s) : Double.POSITIVE_INFINITY);
            }
            return largest;
        }

        boolean allFinite() {
            for (float[] p : params) {
                for (float v : p) {
                    if (!Float.isFinite(v)) {
                        return false;
                    }
                }
            }
            return true;
        }

        double meanAccuracy() {
            return accuracy.stream().mapToDouble(Double::doubleValue).average().orElse(Double.NaN);
        }
    }

    @Test
    void clippingKeepsTheHonestNodesNearTheirUnattackedModelsAndExcludesTheAttacker() throws Exception {
        TestLog.figures("seed " + SEED);
        Path shards = ShardedDaemons.writeShards(dir.resolve("shards"), "dirichlet:1.0", NODES, SEED);

        Run quiet = run("quiet", shards, "clip", false);
        Run clipped = run("clip", shards, "clip", true);
        Run unscreened = run("off", shards, "off", true);
        TestLog.figures(
                "largest parameter norm: no attack %.4g, attacked with clipping %.4g, attacked unscreened %.4g;"
                        + " mean accuracy %.3f, %.3f, %.3f; clipped %d, exclusions %d; collapses detected %d, %d%n",
                quiet.largestNorm(),
                clipped.largestNorm(),
                unscreened.largestNorm(),
                quiet.meanAccuracy(),
                clipped.meanAccuracy(),
                unscreened.meanAccuracy(),
                clipped.clipped(),
                clipped.exclusions(),
                clipped.collapses(),
                unscreened.collapses());

        assertThat(clipped.allFinite()).isTrue();
        assertThat(clipped.largestNorm()).isLessThan(3 * quiet.largestNorm());
        assertThat(clipped.meanAccuracy()).isGreaterThan(0.6);
        // The attacker's models lie far beyond twice the radius, so they are dropped rather than clipped; whether an
        // honest model was clipped as well depends on the spread of the run. The exclusions show the screening acted.
        assertThat(clipped.exclusions())
                .as("honest nodes that excluded the attacker")
                .isPositive();
        assertThat(clipped.collapses()).as("collapses with clipping").isZero();
        // The same pushes, merged unscreened, drag the honest models far from where they would be: so far that the
        // nodes' collapse detection sees it and reverts them to a checkpoint from before (so the checkpoints read
        // here stay sane), or, where a poisoned model was checkpointed anyway, its norm shows it.
        assertThat(unscreened.collapses() > 0
                        || !unscreened.allFinite()
                        || unscreened.largestNorm() > 100 * quiet.largestNorm())
                .as(
                        "the attack drags unscreened nodes (collapses %d, norm %s)",
                        unscreened.collapses(), unscreened.largestNorm())
                .isTrue();
    }

    private Run run(String name, Path shards, String screening, boolean attacked) throws Exception {
        List<String> overrides = List.of(
                "training.seed=" + SEED,
                "training.epochs=15",
                "training.lr_schedule=constant",
                "averaging.max_drift_steps=0",
                "averaging.weighting=uniform",
                "training.pause_ms=8",
                "checkpoint.every_steps=20",
                "averaging.strategy=async",
                "averaging.every_steps=2",
                // Exchanges as fast as the links allow: the screening needs the honest models' radius, and
                // the run lasts seconds.
                "averaging.max_exchanges_per_second_per_peer=0",
                "averaging.announce_every_seconds=0.3",
                "averaging.screening=" + screening);
        List<NodeDaemon> nodes =
                daemons.startChain(dir.resolve(name), shards, ShardedDaemons.keys(NODES), i -> overrides);
        AtomicBoolean training = new AtomicBoolean(true);
        Thread attacker = null;
        AtomicLong pushed = new AtomicLong();
        if (attacked) {
            NodeDaemonTest.waitFor("an announcement at node 0", Duration.ofSeconds(30), () -> !nodes.getFirst()
                    .members()
                    .isEmpty());
            byte[] architecture =
                    nodes.getFirst().members().getFirst().announcement().architecture();
            CheckpointStore checkpoints =
                    new CheckpointStore(nodes.getFirst().config().checkpointDir(), 3);
            NodeDaemonTest.waitFor("node 0's first checkpoint", Duration.ofSeconds(30), () -> checkpoints
                    .loadLatest()
                    .isPresent());
            int dimension = checkpoints.loadLatest().orElseThrow().parameters().length;
            Host host = Host.start(HostConfig.defaults(PrivateKey.generate())
                            .withListenAddrs(List.of(Multiaddr.parse("/ip4/127.0.0.1/tcp/0")))
                            .withDialBackoff(Duration.ofMillis(50), Duration.ofMillis(200)))
                    .join();
            open.add(host);
            ModelExchange exchange = new ModelExchange(
                    host,
                    architecture,
                    dimension,
                    ModelExchange.Config.defaults(),
                    new SnapshotBuffer(),
                    new FragmentCatalog(),
                    EgressRecorder.NONE);
            exchange.start(u -> true);
            attacker = Thread.ofVirtual().start(() -> attack(host, exchange, nodes, dimension, training, pushed));
        }
        for (NodeDaemon d : nodes) {
            assertThat(d.awaitTraining(Duration.ofSeconds(90))).isTrue();
        }
        training.set(false);
        if (attacker != null) {
            attacker.join(Duration.ofSeconds(20));
            assertThat(pushed.get()).as("pushes that reached a node").isPositive();
        }
        List<float[]> params = new ArrayList<>();
        List<Double> accuracy = new ArrayList<>();
        long clipped = 0;
        long exclusions = 0;
        long collapses = 0;
        for (NodeDaemon d : nodes) {
            collapses += d.metrics().collapses();
            accuracy.add(d.metrics().accuracy());
            clipped += d.metrics().screeningClipped();
            exclusions += d.metrics().screeningRefused() > 0 || d.metrics().screeningExcluded() > 0 ? 1 : 0;
            d.close();
            params.add(new CheckpointStore(d.config().checkpointDir(), 3)
                    .loadLatest()
                    .orElseThrow()
                    .parameters());
        }
        return new Run(params, accuracy, clipped, exclusions, collapses);
    }

    /** Until training ends: to every node in turn, a model of norm about 1e30, then a pulled model times -10. */
    private static void attack(
            Host host,
            ModelExchange exchange,
            List<NodeDaemon> nodes,
            int dimension,
            AtomicBoolean training,
            AtomicLong pushed) {
        String self = host.peerId().toBase58();
        float[] huge = new float[dimension];
        Arrays.fill(huge, (float) (1e30 / Math.sqrt(dimension)));
        long round = 0;
        while (training.get()) {
            for (NodeDaemon d : nodes) {
                Multiaddr addr = Multiaddr.parse(d.listenAddrs().getFirst());
                String target = addr.peerId().orElseThrow().toBase58();
                try {
                    host.connect(addr).get(5, TimeUnit.SECONDS);
                    float[] poison = huge;
                    if (round % 2 == 1) {
                        poison = exchange.pull(target, null)
                                .get(5, TimeUnit.SECONDS)
                                .values()
                                .clone();
                        for (int i = 0; i < poison.length; i++) {
                            poison[i] *= -10;
                        }
                    }
                    exchange.push(target, ModelUpdate.full(self, 1_000 + round, 100, poison))
                            .get(5, TimeUnit.SECONDS);
                    pushed.incrementAndGet();
                } catch (Exception e) {
                    // refused or cut short by the end of the run
                }
            }
            round++;
            try {
                Thread.sleep(40);
            } catch (InterruptedException e) {
                return;
            }
        }
    }
}
