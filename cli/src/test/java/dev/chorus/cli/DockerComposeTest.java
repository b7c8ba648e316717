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
 * {@code docker compose stop} lets each write its final checkpoint; {@code down} leaves no container. Run with the
 * default strategy and with {@code secure}, whose group rounds then cross Docker's network.
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

    /** A testnet written by {@code testnet compose}, and the Compose command line that runs it as one project. */
    private record Net(Path dir, CliRun gen, int apiPort, String project, List<String> base) {

        String token(int node) throws IOException {
            return NodeApi.token(dir.resolve(LocalnetOptions.nodeName(node)));
        }
    }

    @Test
    void composeStartsConnectedAveragingNodesAndStopsThemCleanly() throws Exception {
        runNet(List.of(), (s, i) -> {
            Map<?, ?> averaging = (Map<?, ?>) s.get("averaging");
            // The image carries OpenSSL's libcrypto, and the nodes' Noise transports use it.
            assertThat(String.valueOf(s.get("cipher"))).as("node %d cipher", i).contains("name=openssl");
            return (Long) averaging.get("merged") > 0 && s.get("accuracy") instanceof Number;
        });
    }

    /**
     * The {@code secure} strategy between containers: every node completes group rounds as a member across Docker's
     * network, and refuses no frame as malformed.
     */
    @Test
    void composeRunsSecureGroupRoundsBetweenContainers() throws Exception {
        runNet(List.of("averaging.strategy=secure"), (s, i) -> {
            @SuppressWarnings("unchecked")
            Map<String, Object> secure = (Map<String, Object>) s.get("secureAggregation");
            assertThat(secure).as("node %d's secure rounds", i).isNotNull();
            Map<?, ?> refused = (Map<?, ?>) secure.get("framesRefusedBy");
            assertThat((Long) refused.get("malformed"))
                    .as("node %d malformed frames: %s", i, secure)
                    .isZero();
            return (Long) secure.get("roundsCompleted") >= 2;
        });
    }

    /** What a node's status must show, given the status and the node's index, for the test to go on. */
    private interface Ready {
        boolean test(Map<String, Object> status, int node);
    }

    /**
     * Writes a 3-node testnet with {@code sets}, starts it with Compose, waits until every node has both others as
     * admitted members and is {@code ready}, then stops it (each node writing a final checkpoint) and takes it down.
     */
    private void runNet(List<String> sets, Ready ready) throws Exception {
        String image = System.getenv().getOrDefault("CHORUS_DOCKER_IMAGE", "chorus:latest");
        Net net = write(requireDocker(image), image, sets);
        try (HttpClient http =
                HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build()) {
            Output up = run(net.dir(), concat(net.base(), "up", "-d"));
            assertThat(up.code()).as("compose up: %s", up.text()).isZero();
            awaitEveryNode(net, http, ready);
            for (int i = 0; i < 3; i++) {
                String members = get(http, net.apiPort() + i, "/api/members", net.token(i));
                assertThat(members).as("node %d members", i).contains("\"membership\":{\"enforced\":true");
                Map<?, ?> membership =
                        (Map<?, ?>) JsonReader.parseObject(members).get("membership");
                assertThat((List<?>) membership.get("peers"))
                        .as("node %d admitted: %s", i, members)
                        .hasSize(2);
            }
            stopWithCheckpoints(net);
        } finally {
            Output down = run(net.dir(), concat(net.base(), "down", "-t", "5", "--remove-orphans"));
            assertThat(down.code()).as("compose down: %s", down.text()).isZero();
        }
        Output left = run(
                dir, List.of("docker", "ps", "-aq", "--filter", "label=com.docker.compose.project=" + net.project()));
        assertThat(left.text().strip()).as("containers left").isEmpty();
    }

    private Net write(List<String> compose, String image, List<String> sets) throws IOException {
        Path net = dir.resolve("net");
        int apiPort = TestnetUpDownTest.freePortRange(3, new SplittableRandom(System.nanoTime()));
        List<String> args = new ArrayList<>(List.of(
                "testnet",
                "compose",
                "--nodes",
                "3",
                "--dir",
                net.toString(),
                "--api-port",
                Integer.toString(apiPort),
                "--image",
                image));
        for (String set : concat(
                List.of(
                        "model.threads=1",
                        "training.pause_ms=20",
                        "training.eval_every_steps=10",
                        "averaging.every_steps=5",
                        "checkpoint.every_steps=50"),
                sets.toArray(String[]::new))) {
            args.addAll(List.of("--set", set));
        }
        CliRun gen = CliRun.of(args.toArray(String[]::new));
        assertThat(gen.exitCode()).as(gen.err()).isZero();
        String project = "chorustest" + ProcessHandle.current().pid() + "x" + (System.nanoTime() % 100_000);
        List<String> base = new ArrayList<>(compose);
        base.addAll(List.of(
                "-p", project, "-f", net.resolve(LocalnetComposeCommand.FILE).toString()));
        return new Net(net, gen, apiPort, project, base);
    }

    /** Waits until every node answers with both others as peers and is {@code ready}; fails with the logs if not. */
    private static void awaitEveryNode(Net net, HttpClient http, Ready ready) throws Exception {
        long deadline = System.nanoTime() + Duration.ofSeconds(150).toNanos();
        List<String> last = new ArrayList<>();
        boolean converged = false;
        while (!converged && System.nanoTime() < deadline) {
            converged = true;
            last.clear();
            for (int i = 0; i < 3; i++) {
                String token = net.token(i);
                // The dashboard URL printed for the node carries the token its API accepts.
                assertThat(net.gen().out())
                        .contains(LocalnetOptions.nodeName(i) + " http://127.0.0.1:" + (net.apiPort() + i) + "/#token="
                                + token + " peer ");
                Map<String, Object> s = status(http, net.apiPort() + i, token);
                last.add(String.valueOf(s));
                converged &= s != null && (Long) s.get("peerCount") == 2 && ready.test(s, i);
            }
            if (!converged) {
                Thread.sleep(500);
            }
        }
        assertThat(converged)
                .as(
                        "every node has 2 peers and is ready; last: %s; logs: %s",
                        last,
                        run(net.dir(), concat(net.base(), "logs", "--no-color", "--tail", "30"))
                                .text())
                .isTrue();
    }

    /** {@code compose stop}: SIGTERM lets each node finish its step and write a final checkpoint into its directory. */
    private static void stopWithCheckpoints(Net net) throws Exception {
        Output stop = run(net.dir(), concat(net.base(), "stop", "-t", "30"));
        assertThat(stop.code()).as("compose stop: %s", stop.text()).isZero();
        String logs = run(net.dir(), concat(net.base(), "logs", "--no-color")).text();
        for (int i = 0; i < 3; i++) {
            String name = LocalnetOptions.nodeName(i);
            assertThat(logs).containsPattern(name + "[_-]1 +\\| .*stopped at model version");
            try (var checkpoints = Files.list(net.dir().resolve(name).resolve("checkpoints"))) {
                assertThat(checkpoints).as("%s checkpoints", name).isNotEmpty();
            }
        }
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
