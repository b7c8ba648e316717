package dev.chorus.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assumptions.assumeThat;

import dev.chorus.learning.json.JsonReader;
import java.io.IOException;
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
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A testnet of three node containers started with Docker Compose from what {@code testnet compose} wrote: each node
 * connects to the other two by service name, admits them as members of the testnet's consortium (its roster found
 * through the mount), averages with them and serves its API on the published loopback port;
 * {@code docker compose stop} lets each write its final checkpoint; {@code down} leaves no container.
 *
 * <p>Needs a Docker engine, Compose ({@code docker compose} or {@code docker-compose}) and the node image ({@code
 * CHORUS_DOCKER_IMAGE}, default {@code chorus:latest}, built by {@code docker/build-image.sh}). Without them the test
 * is skipped, unless {@code CHORUS_REQUIRE_DOCKER} is set: {@code .ci/run} sets it once it has built the image.
 */
class DockerComposeTest {

    private static final Duration COMMAND_TIMEOUT = Duration.ofMinutes(3);

    @TempDir
    Path dir;

    private record Output(int code, String text) {}

    @Test
    void composeStartsConnectedAveragingNodesAndStopsThemCleanly() throws Exception {
        String image = System.getenv().getOrDefault("CHORUS_DOCKER_IMAGE", "chorus:latest");
        List<String> compose = requireDocker(image);

        Path net = dir.resolve("net");
        int apiPort = TestnetUpDownTest.freePortRange(3, new SplittableRandom(System.nanoTime()));
        CliRun gen = CliRun.of(
                "testnet",
                "compose",
                "--nodes",
                "3",
                "--dir",
                net.toString(),
                "--api-port",
                Integer.toString(apiPort),
                "--image",
                image,
                "--set",
                "model.threads=1",
                "--set",
                "training.pause_ms=20",
                "--set",
                "training.eval_every_steps=10",
                "--set",
                "averaging.every_steps=5",
                "--set",
                "checkpoint.every_steps=50");
        assertThat(gen.exitCode()).as(gen.err()).isZero();

        String project = "chorustest" + ProcessHandle.current().pid() + "x" + (System.nanoTime() % 100_000);
        List<String> base = new ArrayList<>(compose);
        base.addAll(List.of(
                "-p", project, "-f", net.resolve(LocalnetComposeCommand.FILE).toString()));
        try (HttpClient http =
                HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build()) {
            Output up = run(net, concat(base, "up", "-d"));
            assertThat(up.code()).as("compose up: %s", up.text()).isZero();

            long deadline = System.nanoTime() + Duration.ofSeconds(150).toNanos();
            List<String> last = new ArrayList<>();
            boolean converged = false;
            while (!converged && System.nanoTime() < deadline) {
                converged = true;
                last.clear();
                for (int i = 0; i < 3; i++) {
                    String token = NodeApi.token(net.resolve(LocalnetOptions.nodeName(i)));
                    // The dashboard URL printed for the node carries the token its API accepts.
                    assertThat(gen.out())
                            .contains(LocalnetOptions.nodeName(i) + " http://127.0.0.1:" + (apiPort + i) + "/#token="
                                    + token + " peer ");
                    Map<String, Object> s = status(http, apiPort + i, token);
                    last.add(String.valueOf(s));
                    if (s == null) {
                        converged = false;
                        continue;
                    }
                    Map<?, ?> averaging = (Map<?, ?>) s.get("averaging");
                    // The image carries OpenSSL's libcrypto, and the nodes' Noise transports use it.
                    assertThat(String.valueOf(s.get("cipher")))
                            .as("node %d cipher", i)
                            .contains("name=openssl");
                    converged &= (Long) s.get("peerCount") == 2
                            && (Long) averaging.get("merged") > 0
                            && s.get("accuracy") instanceof Number;
                }
                if (!converged) {
                    Thread.sleep(500);
                }
            }
            assertThat(converged)
                    .as(
                            "every node has 2 peers, merged a peer model and reported accuracy; last: %s; logs: %s",
                            last,
                            run(net, concat(base, "logs", "--no-color", "--tail", "30"))
                                    .text())
                    .isTrue();

            for (int i = 0; i < 3; i++) {
                String members =
                        get(http, apiPort + i, "/api/members", NodeApi.token(net.resolve(LocalnetOptions.nodeName(i))));
                assertThat(members).as("node %d members", i).contains("\"membership\":{\"enforced\":true");
                Map<?, ?> membership =
                        (Map<?, ?>) JsonReader.parseObject(members).get("membership");
                assertThat((List<?>) membership.get("peers"))
                        .as("node %d admitted: %s", i, members)
                        .hasSize(2);
            }

            Output stop = run(net, concat(base, "stop", "-t", "30"));
            assertThat(stop.code()).as("compose stop: %s", stop.text()).isZero();
            String logs = run(net, concat(base, "logs", "--no-color")).text();
            for (int i = 0; i < 3; i++) {
                String name = LocalnetOptions.nodeName(i);
                // SIGTERM let each node finish its step and write a final checkpoint into its own directory.
                assertThat(logs).containsPattern(name + "[_-]1 +\\| .*stopped at model version");
                try (var checkpoints = Files.list(net.resolve(name).resolve("checkpoints"))) {
                    assertThat(checkpoints).as("%s checkpoints", name).isNotEmpty();
                }
            }
        } finally {
            Output down = run(net, concat(base, "down", "-t", "5", "--remove-orphans"));
            assertThat(down.code()).as("compose down: %s", down.text()).isZero();
        }
        Output left =
                run(dir, List.of("docker", "ps", "-aq", "--filter", "label=com.docker.compose.project=" + project));
        assertThat(left.text().strip()).as("containers left").isEmpty();
    }

    /** The Compose command line, once the engine, Compose and the image are found (else skipped or failed). */
    private List<String> requireDocker(String image) throws Exception {
        boolean required = System.getenv("CHORUS_REQUIRE_DOCKER") != null;
        List<String> compose = null;
        String missing;
        if (run(dir, List.of("docker", "info")).code() != 0) {
            missing = "no Docker engine answers 'docker info'";
        } else {
            if (run(dir, List.of("docker", "compose", "version")).code() == 0) {
                compose = List.of("docker", "compose");
            } else if (run(dir, List.of("docker-compose", "version")).code() == 0) {
                compose = List.of("docker-compose");
            }
            if (compose == null) {
                missing = "neither 'docker compose' nor 'docker-compose' is installed";
            } else if (run(dir, List.of("docker", "image", "inspect", image)).code() != 0) {
                missing = "no image " + image + " (docker/build-image.sh builds it)";
            } else {
                missing = null;
            }
        }
        if (missing != null && required) {
            throw new AssertionError("CHORUS_REQUIRE_DOCKER is set, but " + missing);
        }
        assumeThat(missing).as("Docker Compose test skipped: %s", missing).isNull();
        return compose;
    }

    private static Map<String, Object> status(HttpClient http, int port, String token) {
        String body = get(http, port, "/api/status", token);
        return body == null ? null : JsonReader.parseObject(body);
    }

    /** The body of a 200 answer to {@code path}; null for any other answer or none. */
    private static String get(HttpClient http, int port, String path, String token) {
        try {
            // The nodes bind 0.0.0.0 in their containers, so their API requires the token of their data directory.
            HttpRequest.Builder request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
                    .timeout(Duration.ofSeconds(5));
            if (token != null) {
                request.header("Authorization", "Bearer " + token);
            }
            HttpResponse<String> r = http.send(request.build(), HttpResponse.BodyHandlers.ofString());
            return r.statusCode() == 200 ? r.body() : null;
        } catch (IOException e) {
            return null; // not listening yet
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return null;
        }
    }

    /** Runs a command in {@code cwd}; its output (both streams) once it exits; killed past the timeout. */
    private static Output run(Path cwd, List<String> command) throws IOException, InterruptedException {
        Path log = Files.createTempFile("docker-test", ".log");
        try {
            Process p;
            try {
                p = new ProcessBuilder(command)
                        .directory(cwd.toFile())
                        .redirectErrorStream(true)
                        .redirectOutput(log.toFile())
                        .start();
            } catch (IOException e) {
                return new Output(127, e.getMessage()); // not installed
            }
            if (!p.waitFor(COMMAND_TIMEOUT.toSeconds(), TimeUnit.SECONDS)) {
                p.destroyForcibly().waitFor();
                return new Output(-1, command + " timed out after " + COMMAND_TIMEOUT + ": " + read(log));
            }
            return new Output(p.exitValue(), read(log));
        } finally {
            Files.deleteIfExists(log);
        }
    }

    private static String read(Path log) throws IOException {
        return Files.readString(log, StandardCharsets.UTF_8);
    }

    private static List<String> concat(List<String> base, String... more) {
        List<String> out = new ArrayList<>(base);
        out.addAll(List.of(more));
        return out;
    }
}
