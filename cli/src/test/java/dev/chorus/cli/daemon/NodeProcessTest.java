package dev.chorus.cli.daemon;

import static org.assertj.core.api.Assertions.assertThat;

import dev.chorus.cli.CliRun;
import dev.chorus.cli.Main;
import dev.chorus.learning.json.JsonReader;
import dev.chorus.node.NodeTestDirs;
import dev.chorus.node.checkpoint.CheckpointStore;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code chorus node run} as a child process: killed with SIGKILL in the middle of training, it
 * resumes from its newest checkpoint with a version no lower than that checkpoint's; stopped with
 * SIGTERM, it checkpoints and exits 0.
 */
class NodeProcessTest {

    @TempDir
    Path dir;

    private final List<Process> started = new ArrayList<>();
    private final HttpClient http = HttpClient.newHttpClient();

    @AfterEach
    void stopAll() throws InterruptedException {
        for (Process p : started) {
            if (p.isAlive()) {
                p.destroyForcibly();
                p.waitFor(30, TimeUnit.SECONDS);
            }
        }
        http.close();
    }

    record Node(Process process, int apiPort) {}

    private Node start(Path yaml, String... extra) throws Exception {
        String java = ProcessHandle.current().info().command().orElse("java");
        List<String> command = new ArrayList<>(List.of(
                java,
                "--enable-native-access=ALL-UNNAMED",
                "--sun-misc-unsafe-memory-access=allow",
                "-cp",
                System.getProperty("java.class.path"),
                "dev.chorus.cli.Main",
                "node",
                "run",
                "--config",
                yaml.toString(),
                "--set",
                "training.pause_ms=5"));
        command.addAll(List.of(extra));
        ProcessBuilder pb = new ProcessBuilder(command);
        pb.redirectError(dir.resolve("stderr-" + started.size() + ".log").toFile());
        Process p = pb.start();
        started.add(p);
        BufferedReader out = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8));
        CompletableFuture<Integer> port = CompletableFuture.supplyAsync(() -> {
            try {
                for (String line; (line = out.readLine()) != null; ) {
                    if (line.startsWith("api http://127.0.0.1:")) {
                        return Integer.parseInt(line.replaceAll(".*:(\\d+)/$", "$1"));
                    }
                }
                return -1;
            } catch (IOException e) {
                return -1;
            }
        });
        int apiPort = port.get(120, TimeUnit.SECONDS);
        assertThat(apiPort)
                .as("the node printed its API address; stderr: %s", stderr())
                .isPositive();
        // Keep draining stdout so that the child never blocks on a full pipe.
        Thread.ofVirtual().start(() -> {
            try {
                while (out.readLine() != null) {}
            } catch (IOException ignored) {
                // the child is gone
            }
        });
        return new Node(p, apiPort);
    }

    private String stderr() {
        try {
            return Files.readString(dir.resolve("stderr-" + (started.size() - 1) + ".log"));
        } catch (IOException e) {
            return e.toString();
        }
    }

    private long version(Node n) throws Exception {
        HttpResponse<String> r = http.send(
                HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + n.apiPort() + "/api/status"))
                        .build(),
                HttpResponse.BodyHandlers.ofString());
        Map<String, Object> s = JsonReader.parseObject(r.body());
        return (Long) s.get("modelVersion");
    }

    private void waitForVersion(Node n, long atLeast) throws Exception {
        long deadline = System.nanoTime() + Duration.ofSeconds(120).toNanos();
        while (version(n) < atLeast) {
            assertThat(System.nanoTime())
                    .as("version %d reached; stderr: %s", atLeast, stderr())
                    .isLessThan(deadline);
            Thread.sleep(50);
        }
    }

    @Test
    void killDashNineThenResumeThenSigtermExitsZero() throws Exception {
        Path yaml = NodeTestDirs.create(dir.resolve("home"), "");
        CheckpointStore store = new CheckpointStore(dir.resolve("home/checkpoints"), 3);

        Node first = start(yaml);
        waitForVersion(first, 35);
        first.process().destroyForcibly(); // SIGKILL: no shutdown hook, no final checkpoint
        assertThat(first.process().waitFor(30, TimeUnit.SECONDS)).isTrue();
        assertThat(first.process().exitValue()).isEqualTo(137);
        long checkpointed = store.loadLatest().orElseThrow().version();
        assertThat(checkpointed).isGreaterThanOrEqualTo(30);

        Node second = start(yaml);
        long resumedAt = version(second);
        assertThat(resumedAt).isGreaterThanOrEqualTo(checkpointed);
        waitForVersion(second, resumedAt + 5);

        second.process().destroy(); // SIGTERM
        assertThat(second.process().waitFor(60, TimeUnit.SECONDS)).isTrue();
        assertThat(second.process().exitValue()).as("stderr: %s", stderr()).isZero();
        assertThat(store.loadLatest().orElseThrow().version()).isGreaterThanOrEqualTo(resumedAt + 5);
    }

    @Test
    void aSecondNodeOnTheSameDataDirectoryIsRefusedNamingTheHoldersPid() throws Exception {
        Path home = dir.resolve("home");
        Path yaml = NodeTestDirs.create(home, "");
        Node first = start(yaml);

        CliRun second = CliRun.of("node", "run", "--config", yaml.toString(), "--api-port", "0");

        assertThat(second.exitCode()).as(second.err()).isEqualTo(Main.EXIT_USAGE);
        assertThat(second.err().strip())
                .isEqualTo("chorus: " + yaml + ": data_dir: " + home + " is in use by another node (pid "
                        + first.process().pid() + "); stop it, or give this node a data_dir of its own");
        assertThat(first.process().isAlive()).isTrue();
        waitForVersion(first, version(first) + 3);
        first.process().destroy();
        assertThat(first.process().waitFor(60, TimeUnit.SECONDS)).isTrue();
        assertThat(first.process().exitValue()).as("stderr: %s", stderr()).isZero();
    }

    @Test
    void noUsableCheckpointIsExitTwoNamingTheFilesAndFreshStartsAtVersionZero() throws Exception {
        Path home = dir.resolve("home");
        Path yaml = NodeTestDirs.create(home, "");
        Path checkpoints = Files.createDirectories(home.resolve("checkpoints"));
        CheckpointStore store = new CheckpointStore(checkpoints, 3);
        Files.write(store.fileFor(40), new byte[0]);
        Files.write(store.fileFor(50), new byte[] {'C', 'H', 'O', 'R', 'U', 'S'});

        CliRun refused = CliRun.of("node", "run", "--config", yaml.toString());

        assertThat(refused.exitCode()).as(refused.err()).isEqualTo(Main.EXIT_USAGE);
        assertThat(refused.out()).isEmpty();
        assertThat(refused.err().strip())
                .isEqualTo("chorus: no usable checkpoint in " + checkpoints + ": ckpt-00000000000000000050.bin"
                        + " (truncated (6 bytes)), ckpt-00000000000000000040.bin (truncated (0 bytes)); move them"
                        + " away, or run with --fresh to start a new model at version 0 (it moves them into"
                        + " unusable-<time>/)");

        Node fresh = start(yaml, "--fresh", "--set", "training.pause_ms=100");
        assertThat(version(fresh)).isLessThan(40);
        waitForVersion(fresh, 5);
        fresh.process().destroy();
        assertThat(fresh.process().waitFor(60, TimeUnit.SECONDS)).isTrue();
        assertThat(fresh.process().exitValue()).as("stderr: %s", stderr()).isZero();
        assertThat(stderr()).contains("none of the 2 checkpoints in " + checkpoints + " is usable");
    }
}
