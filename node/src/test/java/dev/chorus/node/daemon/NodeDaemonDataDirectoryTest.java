package dev.chorus.node.daemon;

import static dev.chorus.node.daemon.NodeDaemonTest.waitFor;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.chorus.node.NodeTestDirs;
import dev.chorus.node.checkpoint.Checkpoint;
import dev.chorus.node.checkpoint.CheckpointStore;
import dev.chorus.node.config.ConfigException;
import dev.chorus.node.config.ConfigLoader;
import dev.chorus.node.config.NodeConfig;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Real daemons on real data directories: one node per directory and per identity key, checkpoints that cannot be
 * resumed from skipped or refused, and everything the node writes readable by its owner only.
 */
class NodeDaemonDataDirectoryTest {

    private static final long PID = ProcessHandle.current().pid();

    @TempDir
    Path dir;

    private NodeConfig config(Path home, String... overrides) {
        return ConfigLoader.load(
                NodeTestDirs.create(home, ""),
                Stream.concat(Stream.of("training.pause_ms=2"), Stream.of(overrides))
                        .toList());
    }

    @Test
    void aSecondDaemonOnTheSameDataDirectoryIsRefusedNamingItAndTheHolder() throws Exception {
        NodeConfig config = config(dir);
        try (NodeDaemon first = NodeDaemon.start(config)) {
            assertThatThrownBy(() -> NodeDaemon.start(config))
                    .isInstanceOf(ConfigException.class)
                    .hasMessage(config.configFile() + ": data_dir: "
                            + config.node().dataDir()
                            + " is in use by another node (pid " + PID + "); stop it, or give this node a data_dir of"
                            + " its own");
            // The refused start left the first node running.
            long steps = first.metrics().steps();
            waitFor(
                    "the first node to train on",
                    Duration.ofSeconds(60),
                    () -> first.metrics().steps() > steps + 3);
        }
        // Released on close: the directory can be used again.
        try (NodeDaemon again = NodeDaemon.start(config)) {
            assertThat(again.peerId()).isNotEmpty();
        }
    }

    @Test
    void aSecondDaemonWithTheSameIdentityKeyIsRefused() throws Exception {
        NodeConfig first = config(dir.resolve("a"));
        Path key = first.node().keyFile();
        NodeConfig second = config(dir.resolve("b"), "identity.key_file=" + key);
        assertThat(second.node().dataDir()).isNotEqualTo(first.node().dataDir());
        try (NodeDaemon a = NodeDaemon.start(first)) {
            assertThatThrownBy(() -> NodeDaemon.start(second))
                    .isInstanceOf(ConfigException.class)
                    .hasMessage(second.configFile() + ": identity.key_file: " + key
                            + " is in use by another node on this machine (pid " + PID + "); every node needs an"
                            + " identity of its own (chorus init creates one)");
            assertThat(a.peerId()).isNotEmpty();
        }
        try (NodeDaemon b = NodeDaemon.start(second)) {
            assertThat(b.peerId()).isNotEmpty();
        }
    }

    @Test
    void aNanNewestCheckpointIsSkippedForTheOlderOne() throws Exception {
        NodeConfig config = config(dir, "checkpoint.hourly_for_hours=0", "checkpoint.daily_for_days=0");
        Checkpoint good = trainAndStop(config);
        CheckpointStore store = new CheckpointStore(config.checkpointDir(), 10);
        float[] poisoned = good.parameters().clone();
        poisoned[3] = Float.NaN;
        Path nanFile = store.save(withParameters(good, good.version() + 1000, poisoned));

        try (NodeDaemon node = NodeDaemon.start(slow(config))) {
            assertThat(node.metrics().version()).isBetween(good.version(), good.version() + 2);
        }
        assertThat(nanFile).exists(); // skipped, not deleted
    }

    @Test
    void checkpointsPresentButNoneUsableRefuseTheStartNamingEachFile() throws Exception {
        NodeConfig config = config(dir);
        Checkpoint good = trainAndStop(config);
        CheckpointStore store = new CheckpointStore(config.checkpointDir(), 10);
        for (Path f : store.files()) {
            Files.delete(f);
        }
        float[] infinite = good.parameters().clone();
        infinite[0] = Float.POSITIVE_INFINITY;
        Path inf = store.save(withParameters(good, 20, infinite));
        Path wide = store.save(withParameters(good, 10, new float[good.parameters().length + 1]));
        Files.write(store.fileFor(30), new byte[] {1, 2, 3});
        Path truncated = store.fileFor(30);

        assertThatThrownBy(() -> NodeDaemon.start(config))
                .isInstanceOf(ConfigException.class)
                .hasMessage("no usable checkpoint in " + config.checkpointDir() + ": " + truncated.getFileName()
                        + " (truncated (3 bytes)), " + inf.getFileName() + " (non-finite weight (Infinity at index"
                        + " 0)), " + wide.getFileName() + " (" + (good.parameters().length + 1)
                        + " parameters (model " + good.model() + "), the configured model has "
                        + good.parameters().length + "); move them away, or run with --fresh to start a new model at"
                        + " version 0 (it moves them into unusable-<time>/)");

        try (NodeDaemon node = NodeDaemon.start(slow(config), List.of(), NodeDaemon.UnusableCheckpoints.START_FRESH)) {
            assertThat(node.metrics().version()).isBetween(0L, 2L);
        }
        // --fresh moved the unusable files aside, not deleted: the new model's checkpoints are the only ones left.
        assertThat(store.versions()).allMatch(v -> v < 10);
        Path aside;
        try (Stream<Path> subdirs = Files.list(config.checkpointDir())) {
            aside = subdirs.filter(Files::isDirectory).findFirst().orElseThrow();
        }
        assertThat(aside.getFileName().toString()).startsWith("unusable-");
        try (Stream<Path> moved = Files.list(aside)) {
            assertThat(moved.map(p -> p.getFileName().toString()))
                    .containsExactlyInAnyOrder(
                            truncated.getFileName().toString(),
                            inf.getFileName().toString(),
                            wide.getFileName().toString());
        }
    }

    @Test
    void anEmptyCheckpointDirectoryIsAFreshStart() throws Exception {
        NodeConfig config = config(dir);
        Files.createDirectories(config.checkpointDir());
        try (NodeDaemon node = NodeDaemon.start(slow(config))) {
            assertThat(node.metrics().version()).isBetween(0L, 2L);
        }
    }

    @Test
    void everythingTheNodeCreatesIsOwnerOnly() throws Exception {
        Path home = dir.resolve("home");
        NodeConfig config = config(home, "checkpoint.hourly_for_hours=0", "checkpoint.daily_for_days=0");
        Files.setPosixFilePermissions(home, PosixFilePermissions.fromString("rwxr-xr-x"));
        trainAndStop(config);
        List<Path> created;
        try (Stream<Path> all = Files.walk(home)) {
            created = all.filter(p -> !p.equals(home))
                    .filter(p -> !p.getFileName().toString().equals("wdbc.csv")) // the test's input
                    .filter(p -> !p.getFileName().toString().equals("node.yaml"))
                    .toList();
        }
        assertThat(created)
                .extracting(p -> home.relativize(p).toString())
                .contains("node.lock", "identity.key.lock", "checkpoints", "audit", "logs");
        assertThat(created.stream().filter(p -> p.toString().contains("ckpt-"))).isNotEmpty();
        for (Path p : created) {
            assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(p)))
                    .as(home.relativize(p).toString())
                    .isEqualTo(Files.isDirectory(p) ? "rwx------" : "rw-------");
        }
        // An existing directory keeps the mode its operator gave it.
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(home)))
                .isEqualTo("rwxr-xr-x");
    }

    /** {@code config} with half a second between steps, so that the version a start resumed at can be read. */
    private static NodeConfig slow(NodeConfig config) {
        return ConfigLoader.load(config.configFile(), List.of("training.pause_ms=500"));
    }

    /** Runs a node for 20 steps, stops it and returns the checkpoint it wrote on stopping. */
    private static Checkpoint trainAndStop(NodeConfig config) throws Exception {
        long version;
        try (NodeDaemon node = NodeDaemon.start(config)) {
            waitFor("20 steps", Duration.ofSeconds(60), () -> node.metrics().steps() >= 20);
            node.close();
            version = node.metrics().version();
        }
        return new CheckpointStore(config.checkpointDir(), 10).load(version).orElseThrow();
    }

    private static Checkpoint withParameters(Checkpoint c, long version, float[] parameters) throws IOException {
        return new Checkpoint(
                version,
                c.steps(),
                c.createdMillis() + 1,
                c.model(),
                c.optimizer(),
                parameters,
                new dev.chorus.learning.optim.OptimizerSnapshot(
                        c.optimizerState().steps(), new float[0][]),
                c.metrics());
    }
}
