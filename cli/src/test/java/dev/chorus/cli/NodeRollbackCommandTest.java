package dev.chorus.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.chorus.learning.optim.OptimizerSnapshot;
import dev.chorus.node.NodeTestDirs;
import dev.chorus.node.checkpoint.Checkpoint;
import dev.chorus.node.checkpoint.CheckpointStore;
import dev.chorus.node.config.ConfigLoader;
import dev.chorus.node.config.NodeConfig;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code chorus node rollback} in-process on real checkpoint files. */
class NodeRollbackCommandTest {

    private static final Instant T0 = Instant.parse("2025-03-01T12:00:00Z");

    @TempDir
    Path dir;

    private Path yaml;
    private CheckpointStore store;

    @BeforeEach
    void fiveCheckpointsTenMinutesApart() throws Exception {
        yaml = NodeTestDirs.create(dir, "");
        NodeConfig config = ConfigLoader.load(yaml, List.of());
        store = new CheckpointStore(config.checkpointDir(), 10);
        for (int i = 0; i < 5; i++) {
            long version = 100L * (i + 1);
            store.save(new Checkpoint(
                    version,
                    version,
                    T0.plusSeconds(600L * i).toEpochMilli(),
                    "mlp:8",
                    "sgd",
                    new float[] {i, 1},
                    new OptimizerSnapshot(version, new float[0][]),
                    Map.of("loss", 0.25)));
        }
    }

    @Test
    void rollsBackToAVersionAndKeepsTheNewerOnesAside() throws Exception {
        CliRun r = CliRun.of("node", "rollback", "--to", "300", "--config", yaml.toString());
        assertThat(r.exitCode()).as(r.err()).isZero();
        assertThat(r.out()).contains("rolled back to checkpoint version 300 of 2025-03-01T12:20:00Z");
        assertThat(store.versions()).containsExactly(300L, 200L, 100L);
        assertThat(store.loadLatest().orElseThrow().version()).isEqualTo(300);
        String moved = r.out()
                .lines()
                .filter(l -> l.startsWith("the newer checkpoints were moved to "))
                .findFirst()
                .orElseThrow()
                .substring("the newer checkpoints were moved to ".length());
        try (var files = Files.list(Path.of(moved))) {
            assertThat(files.map(f -> f.getFileName().toString()))
                    .containsExactlyInAnyOrder("ckpt-00000000000000000400.bin", "ckpt-00000000000000000500.bin");
        }
    }

    @Test
    void rollsBackToTheNewestAtOrBeforeATime() {
        CliRun r = CliRun.of("node", "rollback", "--to", "2025-03-01T12:15:00Z", "--config", yaml.toString());
        assertThat(r.exitCode()).as(r.err()).isZero();
        assertThat(store.versions()).containsExactly(200L, 100L);
    }

    @Test
    void unknownVersionsAndTimesAreOneLineErrors() {
        CliRun unknown = CliRun.of("node", "rollback", "--to", "250", "--config", yaml.toString());
        assertThat(unknown.exitCode()).isEqualTo(2);
        assertThat(unknown.err().strip())
                .contains("--to 250: no readable checkpoint of version 250")
                .doesNotContain("\n");
        CliRun early = CliRun.of("node", "rollback", "--to", "2024-01-01T00:00:00Z", "--config", yaml.toString());
        assertThat(early.exitCode()).isEqualTo(2);
        assertThat(early.err()).contains("no checkpoint written at or before 2024-01-01T00:00:00Z");
        CliRun garbage = CliRun.of("node", "rollback", "--to", "yesterday", "--config", yaml.toString());
        assertThat(garbage.exitCode()).isEqualTo(2);
        assertThat(garbage.err()).contains("neither a version nor an ISO-8601 time");
        assertThat(store.versions()).hasSize(5);
    }

    @Test
    void refusesInOneLineNamingTheHolderWhileANodeHoldsTheDataDirectorysLock() throws Exception {
        NodeConfig config = ConfigLoader.load(yaml, List.of());
        Path lockFile = config.node().dataDir().resolve("node.lock");
        long pid = ProcessHandle.current().pid();
        // What a running node holds: an exclusive lock on data_dir/node.lock, its PID written in the file.
        try (FileChannel ch = FileChannel.open(
                        lockFile, StandardOpenOption.CREATE, StandardOpenOption.READ, StandardOpenOption.WRITE);
                FileLock held = ch.lock()) {
            ch.write(ByteBuffer.wrap((pid + "\n").getBytes(StandardCharsets.US_ASCII)), 0);
            CliRun r = CliRun.of("node", "rollback", "--to", "300", "--config", yaml.toString());
            assertThat(r.exitCode()).isEqualTo(2);
            assertThat(r.err().strip())
                    .doesNotContain("\n")
                    .endsWith(
                            config.configFile() + ": data_dir: " + config.node().dataDir()
                                    + " is in use by another node (pid " + pid + "); stop it before rolling back");
            assertThat(held.isValid()).isTrue();
        }
        assertThat(store.versions()).hasSize(5);
        // Released, the lock is the command's for as long as it runs, and free again afterwards.
        CliRun r = CliRun.of("node", "rollback", "--to", "300", "--config", yaml.toString());
        assertThat(r.exitCode()).as(r.err()).isZero();
        assertThat(store.versions()).containsExactly(300L, 200L, 100L);
        try (FileChannel ch = FileChannel.open(lockFile, StandardOpenOption.WRITE);
                FileLock again = ch.tryLock()) {
            assertThat(again).as("the command released the lock").isNotNull();
        }
    }
}
