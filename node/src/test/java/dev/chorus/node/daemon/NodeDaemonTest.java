package dev.chorus.node.daemon;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import dev.chorus.gossip.host.Host;
import dev.chorus.gossip.host.HostConfig;
import dev.chorus.gossip.identity.PrivateKey;
import dev.chorus.gossip.multiaddr.Multiaddr;
import dev.chorus.gossip.pnet.PreSharedKey;
import dev.chorus.learning.json.JsonReader;
import dev.chorus.learning.optim.LearningRateSchedule;
import dev.chorus.node.NodeTestDirs;
import dev.chorus.node.checkpoint.CheckpointStore;
import dev.chorus.node.config.ConfigLoader;
import dev.chorus.node.config.NodeConfig;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The daemon started and stopped in-process: training, checkpoints, resume, bootstrap, API. */
class NodeDaemonTest {

    @TempDir
    Path dir;

    static void waitFor(String what, Duration timeout, BooleanSupplier condition) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("timed out waiting for " + what);
            }
            Thread.sleep(20);
        }
    }

    @Test
    void trainsCheckpointsStopsAndResumes() throws Exception {
        Path yaml = NodeTestDirs.create(dir, "");
        // Only the newest `keep`: the hourly and daily ones are CheckpointRetentionTest's.
        NodeConfig config = ConfigLoader.load(
                yaml, List.of("training.pause_ms=2", "checkpoint.hourly_for_hours=0", "checkpoint.daily_for_days=0"));
        long stoppedAt;
        int steps = 0;
        try (NodeDaemon node = NodeDaemon.start(config, List.of(step -> {}))) {
            waitFor("30 steps", Duration.ofSeconds(60), () -> node.metrics().steps() >= 30);
            assertThat(node.ready()).isTrue();
            assertThat(node.metrics().checkpointsWritten()).isGreaterThanOrEqualTo(2);
            assertThat(node.metrics().history()).isNotEmpty();
            assertThat(node.metrics().accuracy()).isBetween(0.5, 1.0);

            HttpClient http = HttpClient.newHttpClient();
            HttpResponse<String> r = http.send(
                    HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + node.apiPort() + "/api/status"))
                            .build(),
                    HttpResponse.BodyHandlers.ofString());
            http.close();
            Map<String, Object> status = JsonReader.parseObject(r.body());
            assertThat(status.get("peerId")).isEqualTo(node.peerId());
            assertThat(status.get("consortium")).isEqualTo("test-consortium");
            assertThat((Long) status.get("modelVersion")).isGreaterThanOrEqualTo(30);
            assertThat(status.get("backend")).isEqualTo("reference");
            node.close();
            stoppedAt = node.metrics().version();
            assertThat(node.ready()).isFalse();
        }
        // Stopping wrote a checkpoint of exactly the version it stopped at; only `keep` are kept.
        CheckpointStore store = new CheckpointStore(config.checkpointDir(), 3);
        assertThat(store.loadLatest().orElseThrow().version()).isEqualTo(stoppedAt);
        assertThat(store.files()).hasSizeLessThanOrEqualTo(3);
        // The data set is only read: nothing new appears next to it.
        try (var files = Files.list(dir)) {
            assertThat(files.map(p -> p.getFileName().toString()))
                    .containsExactlyInAnyOrder(
                            "wdbc.csv",
                            "node.yaml",
                            "identity.key",
                            "checkpoints",
                            "audit",
                            "logs",
                            "node.lock",
                            "identity.key.lock");
        }

        try (NodeDaemon again = NodeDaemon.start(config)) {
            // Resumed from the checkpoint: a step may already have been taken (at least 2 ms each).
            assertThat(again.metrics().version()).isBetween(stoppedAt, stoppedAt + 5);
            waitFor(
                    "a step after resuming",
                    Duration.ofSeconds(60),
                    () -> again.metrics().version() > stoppedAt);
        }
    }

    @Test
    void dialsBootstrapPeers() throws Exception {
        Path a = NodeTestDirs.create(dir.resolve("a"), "");
        Path b = NodeTestDirs.create(dir.resolve("b"), "");
        try (NodeDaemon first = NodeDaemon.start(ConfigLoader.load(a, List.of("training.pause_ms=20")))) {
            String addr = first.listenAddrs().getFirst();
            try (NodeDaemon second = NodeDaemon.start(
                    ConfigLoader.load(b, List.of("training.pause_ms=20", "network.bootstrap=[\"" + addr + "\"]")))) {
                waitFor(
                        "a connection",
                        Duration.ofSeconds(30),
                        () -> second.peers().size() == 1 && first.peers().size() == 1);
                assertThat(second.peers().getFirst().peerId()).isEqualTo(first.peerId());
                assertThat(second.peers().getFirst().direction()).isEqualTo("outbound");
                assertThat(first.peers().getFirst().direction()).isEqualTo("inbound");
            }
        }
    }

    /** {@code network.crypto} reaches the host: the node reports the cipher it chose, and a peer on the other one connects. */
    @Test
    void usesTheConfiguredCipherAndReportsIt() throws Exception {
        Path yaml = NodeTestDirs.create(dir, "");
        NodeConfig config = ConfigLoader.load(yaml, List.of("training.pause_ms=20", "network.crypto=jdk"));
        try (NodeDaemon node = NodeDaemon.start(config);
                Host peer =
                        Host.start(HostConfig.defaults(PrivateKey.generate())).join()) {
            assertThat(node.cipher().name()).isEqualTo("jdk");
            assertThat(node.cipher().reason()).isEqualTo("network.crypto is jdk");
            Multiaddr addr = Multiaddr.parse(node.listenAddrs().getFirst());
            assertThat(peer.connect(addr).get(20, TimeUnit.SECONDS).remotePeer().toBase58())
                    .isEqualTo(node.peerId());
        }
    }

    /** With {@code network.psk_file} the node's host is in that private network: a host without the key cannot dial. */
    @Test
    void joinsThePrivateNetworkOfItsKeyFile() throws Exception {
        Path yaml = NodeTestDirs.create(dir, "");
        PreSharedKey key = PreSharedKey.generate();
        key.write(dir.resolve("swarm.key"));
        NodeConfig config = ConfigLoader.load(
                yaml, List.of("training.pause_ms=20", "network.psk_file=" + dir.resolve("swarm.key")));
        try (NodeDaemon node = NodeDaemon.start(config);
                Host outsider = Host.start(HostConfig.defaults(PrivateKey.generate())
                                .withTimeouts(Duration.ofSeconds(5), Duration.ofSeconds(3), Duration.ofSeconds(5)))
                        .join();
                Host member = Host.start(
                                HostConfig.defaults(PrivateKey.generate()).withPrivateNetwork(key))
                        .join()) {
            Multiaddr addr = Multiaddr.parse(node.listenAddrs().getFirst());
            assertThatThrownBy(() -> outsider.connect(addr).get(20, TimeUnit.SECONDS))
                    .isInstanceOf(ExecutionException.class);
            assertThat(member.connect(addr)
                            .get(20, TimeUnit.SECONDS)
                            .remotePeer()
                            .toBase58())
                    .isEqualTo(node.peerId());
        }
    }

    /**
     * {@code training.lr_schedule=cosine} anneals over the steps of {@code training.epochs}; a node stopped midway
     * resumes at the rate of the step it reached and stops at the end of the same budget, not after another
     * {@code training.epochs}.
     */
    @Test
    void cosineScheduleAnnealsOverTheEpochsAcrossAResume() throws Exception {
        Path yaml = NodeTestDirs.create(dir, "");
        NodeConfig config = ConfigLoader.load(
                yaml, List.of("training.epochs=3", "training.lr_schedule=cosine:0.1", "training.pause_ms=5"));
        LearningRateSchedule schedule = config.training().lrSchedule();
        float lr0;
        try (var optimizer = config.model().optimizer().create()) {
            lr0 = optimizer.learningRate();
        }
        long budget = 3 * 29; // 455 training rows in batches of 16: 29 steps per epoch
        long stoppedAt;
        try (NodeDaemon node = NodeDaemon.start(config)) {
            waitFor("20 steps", Duration.ofSeconds(60), () -> node.metrics().steps() >= 20);
            node.close();
            stoppedAt = node.metrics().steps();
            assertThat(stoppedAt).isLessThan(budget);
            assertThat(node.metrics().learningRate())
                    .as("the rate of step %d of %d", stoppedAt + 1, budget)
                    .isEqualTo(schedule.rate(lr0, (double) stoppedAt / budget))
                    .isLessThan(lr0);
        }
        java.util.concurrent.atomic.AtomicLong resumedSteps = new java.util.concurrent.atomic.AtomicLong();
        try (NodeDaemon again = NodeDaemon.start(config, List.of(step -> resumedSteps.incrementAndGet()))) {
            again.awaitTraining();
            assertThat(resumedSteps.get()).isEqualTo(budget - stoppedAt);
            assertThat(again.metrics().steps()).isEqualTo(budget);
            assertThat(again.metrics().learningRate()).isEqualTo(schedule.rate(lr0, 1.0));
            assertThat((double) again.metrics().learningRate()).isCloseTo(0.1 * lr0, within(1e-7));
        }
        CheckpointStore store = new CheckpointStore(config.checkpointDir(), 3);
        assertThat(store.loadLatest().orElseThrow().steps()).isEqualTo(budget);
    }

    @Test
    void finiteEpochsStopTrainingButKeepServing() throws Exception {
        Path yaml = NodeTestDirs.create(dir, "");
        NodeConfig config = ConfigLoader.load(yaml, List.of("training.epochs=1"));
        try (NodeDaemon node = NodeDaemon.start(config)) {
            node.awaitTraining();
            // 569 rows, 20% held out: 455 training rows in batches of 16 make 29 steps.
            assertThat(node.metrics().steps()).isEqualTo(29);
            assertThat(node.metrics().lastCheckpointVersion()).isEqualTo(29);
            assertThat(node.apiPort()).isPositive();
        }
    }
}
