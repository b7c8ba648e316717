package dev.chorus.node.daemon;

import static dev.chorus.node.daemon.NodeDaemonTest.waitFor;
import static org.assertj.core.api.Assertions.assertThat;

import dev.chorus.learning.json.JsonReader;
import dev.chorus.node.NodeTestDirs;
import dev.chorus.node.checkpoint.Checkpoint;
import dev.chorus.node.checkpoint.CheckpointStore;
import dev.chorus.node.config.ConfigLoader;
import dev.chorus.node.config.NodeConfig;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A running daemon whose model is overwritten with 1e30 (as a poisoned merge leaves it) notices the collapse at its
 * next evaluation, reverts to the checkpoint from before it and trains on to a sane validation loss, with the collapse
 * and the revert in {@code /metrics} and {@code /api/status}; no checkpoint of the poisoned model is written.
 */
class NodeDaemonRecoveryTest {

    private static final long POISON_AT_STEP = 62;

    @TempDir
    Path dir;

    @Test
    void poisonedModelIsRevertedToTheLastHealthyCheckpoint() throws Exception {
        NodeConfig config = ConfigLoader.load(NodeTestDirs.create(dir, ""), List.of("training.pause_ms=2"));
        AtomicLong steps = new AtomicLong();
        try (NodeDaemon node = NodeDaemon.start(config, List.of(step -> {
            if (steps.incrementAndGet() == POISON_AT_STEP) {
                float[] p = new float[step.model().parameterCount()];
                Arrays.fill(p, 1e30f);
                step.model().setParameters(p);
            }
        }))) {
            waitFor("a rollback", Duration.ofSeconds(60), () -> node.metrics().rollbacks() >= 1);
            long rolledBackTo = node.metrics().lastRollbackVersion();
            assertThat(rolledBackTo).isBetween(POISON_AT_STEP - 10, POISON_AT_STEP - 1);
            long after = node.metrics().steps();
            waitFor(
                    "20 steps after the revert",
                    Duration.ofSeconds(60),
                    () -> node.metrics().steps() >= after + 20);

            assertThat(node.metrics().collapses()).isEqualTo(1);
            assertThat(node.metrics().rollbacks()).isEqualTo(1);
            assertThat(node.metrics().lastCollapse()).isNotEmpty();
            assertThat(node.metrics().validationLoss()).isBetween(0.0, 1.0);
            assertThat(node.metrics().accuracy()).isGreaterThan(0.8);
            assertThat(node.metrics().trainLoss()).isLessThan(10.0);

            String metrics = get(node, "/metrics");
            assertThat(metrics).contains("\nchorus_training_collapses_total 1\n");
            assertThat(metrics).contains("\nchorus_training_rollbacks_total 1\n");
            Map<String, Object> status = JsonReader.parseObject(get(node, "/api/status"));
            @SuppressWarnings("unchecked")
            Map<String, Object> recovery = (Map<String, Object>) status.get("recovery");
            assertThat(recovery).containsEntry("collapses", 1L).containsEntry("rollbacks", 1L);
            assertThat(recovery.get("lastRollbackVersion")).isEqualTo(rolledBackTo);
            assertThat(get(node, "/api/health")).isNotNull();
        }
        // Every checkpoint left holds a sane model.
        CheckpointStore store = new CheckpointStore(config.checkpointDir(), 3);
        assertThat(store.files()).isNotEmpty();
        for (long v : store.versions()) {
            Checkpoint c = store.load(v).orElseThrow();
            double norm = CollapseDetector.norm(c.parameters());
            assertThat(norm).as("checkpoint %d", v).isFinite().isLessThan(1e6);
        }
    }

    private static String get(NodeDaemon node, String path) throws Exception {
        try (HttpClient http = HttpClient.newHttpClient()) {
            return http.send(
                            HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + node.apiPort() + path))
                                    .build(),
                            HttpResponse.BodyHandlers.ofString())
                    .body();
        }
    }
}
