package dev.chorus.testnet.soak;

import dev.chorus.learning.json.JsonReader;
import dev.chorus.node.api.ProcessFootprint;
import dev.chorus.testnet.localnet.LocalnetManifest;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * Samples one node process as an operator's monitoring would: resident memory, threads and descriptors from {@code
 * /proc/PID}, outside the node, so that a node that lies or hangs cannot hide them; the live heap, training steps
 * and peers from its {@code api/status}. With {@code jcmd} at hand it first asks the node's JVM for a full
 * collection ({@code jcmd PID GC.run}), so that the heap figure is the live set rather than whatever garbage the
 * last young collection left in the old generation.
 */
public final class SoakProbe implements AutoCloseable {

    private final HttpClient http =
            HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    private final Path jcmd;

    /** @param jcmd the {@code jcmd} binary that forces a full collection before each sample; null: none forced */
    public SoakProbe(Path jcmd) {
        this.jcmd = jcmd;
    }

    /** The {@code jcmd} beside this JVM's {@code java}, when there is one (a jlinked runtime has none). */
    public static Optional<Path> jcmdBesideJava() {
        return ProcessHandle.current()
                .info()
                .command()
                .map(java -> Path.of(java).resolveSibling("jcmd"))
                .filter(Files::isExecutable);
    }

    /** Whether each sample follows a forced full collection. */
    public boolean forcesGc() {
        return jcmd != null;
    }

    /**
     * Node {@code index} now.
     *
     * @param minutes the sample's time, as the report shows it
     * @throws SoakException when the process is gone, its API does not answer, or the collection cannot be forced
     */
    public SoakSample sample(int index, LocalnetManifest.Node node, double minutes) throws InterruptedException {
        requireAlive(node);
        try {
            return measure(index, node, minutes);
        } catch (SoakException e) {
            // A node that died while it was sampled: that, rather than the probe's failure, is the reason.
            requireAlive(node);
            throw e;
        }
    }

    private static void requireAlive(LocalnetManifest.Node node) {
        if (ProcessHandle.of(node.pid()).filter(ProcessHandle::isAlive).isEmpty()) {
            throw new SoakException(node.name() + " (pid " + node.pid() + ") is not running");
        }
    }

    private SoakSample measure(int index, LocalnetManifest.Node node, double minutes) throws InterruptedException {
        Path proc = Path.of("/proc", Long.toString(node.pid()));
        if (jcmd != null) {
            forceGc(node);
        }
        List<String> status;
        long fds;
        try (Stream<Path> open = Files.list(proc.resolve("fd"))) {
            status = Files.readAllLines(proc.resolve("status"));
            fds = open.count();
        } catch (IOException | UncheckedIOException e) {
            throw new SoakException(
                    node.name() + " (pid " + node.pid() + "): cannot read " + proc + ": " + e.getMessage());
        }
        Map<String, Object> api = apiStatus(node);
        @SuppressWarnings("unchecked")
        Map<String, Object> process = (Map<String, Object>) api.get("process");
        if (process == null) {
            throw new SoakException(node.name() + ": api/status has no \"process\" object (an older node?)");
        }
        return new SoakSample(
                index,
                minutes,
                field(status, "VmRSS:") * 1024,
                field(status, "Threads:"),
                fds,
                ((Number) process.get("heapAfterGcBytes")).longValue(),
                ((Number) api.get("steps")).longValue(),
                ((Number) api.get("peerCount")).intValue());
    }

    private static long field(List<String> status, String key) {
        long v = ProcessFootprint.field(status, key);
        if (v < 0) {
            throw new SoakException("/proc status has no " + key + " line with a number");
        }
        return v;
    }

    private void forceGc(LocalnetManifest.Node node) throws InterruptedException {
        try {
            Process p = new ProcessBuilder(jcmd.toString(), Long.toString(node.pid()), "GC.run")
                    .redirectErrorStream(true)
                    .redirectOutput(ProcessBuilder.Redirect.DISCARD)
                    .start();
            if (!p.waitFor(60, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                throw new SoakException(node.name() + ": jcmd GC.run did not return within 60 s");
            }
            if (p.exitValue() != 0) {
                throw new SoakException(node.name() + ": jcmd GC.run exited with " + p.exitValue());
            }
        } catch (IOException e) {
            throw new SoakException(node.name() + ": cannot run " + jcmd + ": " + e.getMessage());
        }
    }

    private Map<String, Object> apiStatus(LocalnetManifest.Node node) throws InterruptedException {
        try {
            HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(node.api() + "api/status"))
                    .timeout(Duration.ofSeconds(20));
            Path token = node.dir().resolve("api.token");
            if (Files.exists(token)) {
                request.header(
                        "Authorization", "Bearer " + Files.readString(token).strip());
            }
            HttpResponse<String> r = http.send(request.build(), HttpResponse.BodyHandlers.ofString());
            if (r.statusCode() != 200) {
                throw new SoakException(node.name() + ": api/status answered " + r.statusCode());
            }
            return JsonReader.parseObject(r.body());
        } catch (IOException e) {
            throw new SoakException(node.name() + ": api/status: " + e.getMessage());
        }
    }

    @Override
    public void close() {
        http.close();
    }
}
