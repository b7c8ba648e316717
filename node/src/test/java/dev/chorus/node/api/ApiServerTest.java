package dev.chorus.node.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.chorus.gossip.libcrypto.CryptoMode;
import dev.chorus.gossip.noise.NoiseCiphers;
import dev.chorus.learning.json.JsonReader;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Instant;
import java.time.InstantSource;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** Every endpoint over a real socket on loopback, against a fixed node view. */
class ApiServerTest {

    static class FixedView implements NodeView {
        volatile boolean ready = true;
        final AtomicReference<String> failure = new AtomicReference<>();

        @Override
        public String peerId() {
            return "12D3KooWTestPeer";
        }

        @Override
        public List<String> listenAddrs() {
            return List.of("/ip4/127.0.0.1/tcp/4001/p2p/12D3KooWTestPeer");
        }

        @Override
        public String consortium() {
            return "hospitals \"north\"";
        }

        @Override
        public String strategy() {
            return "async";
        }

        @Override
        public String backend() {
            return "reference";
        }

        @Override
        public NoiseCiphers.Selection cipher() {
            return NoiseCiphers.select(CryptoMode.JDK, "libcrypto.so.3");
        }

        @Override
        public String model() {
            return "mlp:8";
        }

        @Override
        public Instant startedAt() {
            return Instant.now().minusSeconds(90);
        }

        @Override
        public List<PeerInfo> peers() {
            return List.of(new PeerInfo(
                    "12D3KooWOther", "/ip4/127.0.0.1/tcp/5000", "outbound", Instant.parse("2025-01-01T00:00:00Z")));
        }

        @Override
        public boolean ready() {
            return ready;
        }

        @Override
        public String failure() {
            return failure.get();
        }
    }

    static FixedView view;
    static NodeMetrics metrics;
    static ApiServer server;
    static HttpClient client;

    @BeforeAll
    static void start() {
        view = new FixedView();
        metrics = new NodeMetrics(InstantSource.system());
        long t = System.nanoTime();
        for (int i = 1; i <= 5; i++) {
            metrics.recordStep(i, 0.5f, t + i * 10_000_000L);
        }
        metrics.recordEvaluation(0.9, 0.3, 0.95);
        metrics.recordCheckpoint(5);
        metrics.recordBytesIn("/chorus/model/1.0.0", 1234);
        metrics.recordBytesOut("/chorus/model/1.0.0", 4321);
        metrics.observeStaleness(0);
        metrics.observeStaleness(3);
        metrics.observeStaleness(1000);
        metrics.recordScreening(7, 3, 1);
        metrics.bindAveraging(() -> new AveragingCounters(
                7,
                new AveragingCounters.Exchanges(6, 1, 3, 11),
                new AveragingCounters.Updates(9, 8, 1, 0, 0),
                new AveragingCounters.Waits(0.25, 1.5, 2),
                2.5));
        server = ApiServer.start("127.0.0.1", 0, view, metrics);
        client = HttpClient.newHttpClient();
    }

    @AfterAll
    static void stop() {
        client.close();
        server.close();
    }

    static HttpResponse<String> get(String path) throws IOException, InterruptedException {
        return client.send(
                HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + server.port() + path))
                        .build(),
                HttpResponse.BodyHandlers.ofString());
    }

    @Test
    void status() throws Exception {
        HttpResponse<String> r = get("/api/status");
        assertThat(r.statusCode()).isEqualTo(200);
        assertThat(r.headers().firstValue("Content-Type")).hasValue("application/json; charset=utf-8");
        Map<String, Object> s = JsonReader.parseObject(r.body());
        assertThat(s)
                .containsEntry("peerId", "12D3KooWTestPeer")
                .containsEntry("listenAddrs", List.of("/ip4/127.0.0.1/tcp/4001/p2p/12D3KooWTestPeer"))
                .containsEntry("consortium", "hospitals \"north\"")
                .containsEntry("strategy", "async")
                .containsEntry("backend", "reference")
                .containsEntry("model", "mlp:8")
                .containsEntry("modelVersion", 5L)
                .containsEntry("steps", 5L)
                .containsEntry("accuracy", 0.9)
                .containsEntry("loss", 0.3)
                .containsEntry("peerCount", 1L)
                .containsEntry("ready", true);
        assertThat(((Number) s.get("uptimeSeconds")).doubleValue()).isBetween(89.0, 200.0);
        assertThat(s.get("cipher")).isEqualTo(Map.of("name", "jdk", "reason", "network.crypto is jdk"));
        assertThat(s.get("signatures"))
                .isEqualTo(Map.of(
                        "name",
                        dev.chorus.gossip.identity.Ed25519Engines.current().name(),
                        "reason",
                        dev.chorus.gossip.identity.Ed25519Engines.current().reason()));
        assertThat(((Number) s.get("trainLoss")).doubleValue()).isEqualTo(0.5);
        @SuppressWarnings("unchecked")
        Map<String, Object> averaging = (Map<String, Object>) s.get("averaging");
        assertThat(averaging)
                .containsEntry("rounds", 7L)
                .containsEntry("exchanges", 6L)
                .containsEntry("exchangeFailures", 1L)
                .containsEntry("exchangesAbandoned", 3L)
                .containsEntry("throttledRounds", 11L)
                .containsEntry("merged", 8L)
                .containsEntry("driftWaitSeconds", 0.25)
                .containsEntry("barrierWaitSeconds", 1.5)
                .containsEntry("roundTimeouts", 2L)
                .containsEntry("stepScale", 2.5);
        @SuppressWarnings("unchecked")
        Map<String, Object> earlyStopping = (Map<String, Object>) s.get("earlyStopping");
        assertThat(earlyStopping)
                .containsEntry("mode", "off")
                .containsEntry("triggered", false)
                .containsEntry("stopped", false)
                .containsEntry("bestVersion", -1L);
        assertThat(s).as("no audit log bound").doesNotContainKey("audit");
    }

    @Test
    void peers() throws Exception {
        Map<String, Object> p = JsonReader.parseObject(get("/api/peers").body());
        assertThat(p).containsEntry("count", 1L);
        assertThat(p.get("peers"))
                .isEqualTo(List.of(Map.of(
                        "peerId", "12D3KooWOther",
                        "address", "/ip4/127.0.0.1/tcp/5000",
                        "direction", "outbound",
                        "connectedAt", "2025-01-01T00:00:00Z")));
    }

    @Test
    void history() throws Exception {
        Map<String, Object> h = JsonReader.parseObject(get("/api/history").body());
        List<?> evals = (List<?>) h.get("evaluations");
        assertThat(evals).hasSize(1);
        @SuppressWarnings("unchecked")
        Map<String, Object> e = (Map<String, Object>) evals.getFirst();
        assertThat(e)
                .containsEntry("modelVersion", 5L)
                .containsEntry("accuracy", 0.9)
                .containsEntry("loss", 0.3)
                .containsEntry("auc", 0.95);
    }

    @Test
    void healthAndReadiness() throws Exception {
        assertThat(get("/health").statusCode()).isEqualTo(200);
        assertThat(get("/health").body()).isEqualTo("{\"status\":\"up\"}");
        assertThat(get("/ready").statusCode()).isEqualTo(200);
        view.ready = false;
        view.failure.set("training stopped: diverged");
        try {
            assertThat(get("/ready").statusCode()).isEqualTo(503);
            HttpResponse<String> h = get("/health");
            assertThat(h.statusCode()).isEqualTo(503);
            assertThat(JsonReader.parseObject(h.body())).containsEntry("reason", "training stopped: diverged");
        } finally {
            view.ready = true;
            view.failure.set(null);
        }
    }

    /** The process's own figures: this JVM holds memory, threads, descriptors and a heap, on Linux as in CI. */
    @Test
    void statusAndMetricsCarryTheProcessFootprint() throws Exception {
        Map<String, Object> s = JsonReader.parseObject(get("/api/status").body());
        @SuppressWarnings("unchecked")
        Map<String, Object> process = (Map<String, Object>) s.get("process");
        long maxHeap = Runtime.getRuntime().maxMemory();
        assertThat(((Number) process.get("residentBytes")).longValue()).isGreaterThan(1 << 20);
        assertThat(((Number) process.get("threads")).longValue()).isGreaterThan(1);
        assertThat(((Number) process.get("openFds")).longValue())
                .isPositive()
                .isLessThan(((Number) process.get("maxFds")).longValue());
        assertThat(((Number) process.get("heapMaxBytes")).longValue()).isEqualTo(maxHeap);
        assertThat(((Number) process.get("heapAfterGcBytes")).longValue()).isBetween(0L, maxHeap);

        Map<String, PrometheusTextParser.Family> f =
                PrometheusTextParser.parse(get("/metrics").body());
        assertThat(f.get("process_resident_memory_bytes").type()).isEqualTo("gauge");
        assertThat(f.get("process_resident_memory_bytes").samples().getFirst().value())
                .isGreaterThan(1 << 20);
        assertThat(f.get("process_open_fds").samples().getFirst().value()).isPositive();
        assertThat(f.get("process_threads").samples().getFirst().value()).isGreaterThan(1);
        assertThat(f.get("chorus_jvm_heap_max_bytes").samples().getFirst().value())
                .isEqualTo((double) maxHeap);
        assertThat(f).containsKeys("process_max_fds", "chorus_jvm_heap_after_gc_bytes");
    }

    @Test
    void procStatusFields() {
        List<String> lines = List.of("Name:\tjava", "VmRSS:\t  123456 kB", "Threads:\t41", "VmSwap:\tx kB");
        assertThat(ProcessFootprint.field(lines, "VmRSS:")).isEqualTo(123456);
        assertThat(ProcessFootprint.field(lines, "Threads:")).isEqualTo(41);
        assertThat(ProcessFootprint.field(lines, "VmSwap:")).isEqualTo(-1);
        assertThat(ProcessFootprint.field(lines, "VmHWM:")).isEqualTo(-1);
    }

    @Test
    void metricsParseAndCarryTheValues() throws Exception {
        HttpResponse<String> r = get("/metrics");
        assertThat(r.statusCode()).isEqualTo(200);
        assertThat(r.headers().firstValue("Content-Type")).hasValue(PrometheusText.CONTENT_TYPE);
        Map<String, PrometheusTextParser.Family> f = PrometheusTextParser.parse(r.body());
        assertThat(f)
                .containsKeys(
                        "chorus_model_version",
                        "chorus_train_loss",
                        "chorus_validation_accuracy",
                        "chorus_training_steps_per_second",
                        "chorus_network_received_bytes_total",
                        "chorus_network_sent_bytes_total",
                        "chorus_connected_peers",
                        "chorus_merge_staleness_versions",
                        "chorus_checkpoint_age_seconds");
        PrometheusTextParser.Sample version =
                f.get("chorus_model_version").samples().getFirst();
        assertThat(version.value()).isEqualTo(5);
        assertThat(version.labels()).containsEntry("consortium", "hospitals \"north\"");
        assertThat(f.get("chorus_validation_accuracy").samples().getFirst().value())
                .isEqualTo(0.9);
        assertThat(f.get("chorus_network_sent_bytes_total").samples().getFirst())
                .isEqualTo(new PrometheusTextParser.Sample(
                        "chorus_network_sent_bytes_total", Map.of("protocol", "/chorus/model/1.0.0"), 4321));
        assertThat(f.get("chorus_connected_peers").samples().getFirst().value()).isEqualTo(1);
        assertThat(f.get("chorus_training_steps_per_second")
                        .samples()
                        .getFirst()
                        .value())
                .isGreaterThan(0);
        PrometheusTextParser.Family staleness = f.get("chorus_merge_staleness_versions");
        assertThat(staleness.type()).isEqualTo("histogram");
        assertThat(staleness.samples())
                .filteredOn(s -> s.name().endsWith("_count"))
                .singleElement()
                .extracting(PrometheusTextParser.Sample::value)
                .isEqualTo(3.0);
        assertThat(staleness.samples())
                .filteredOn(s -> "4".equals(s.labels().get("le")))
                .singleElement()
                .extracting(PrometheusTextParser.Sample::value)
                .isEqualTo(2.0);
        assertThat(f.get("chorus_checkpoint_age_seconds").samples().getFirst().value())
                .isBetween(0.0, 60.0);
        assertThat(f.get("chorus_averaging_wait_seconds_total").samples())
                .containsExactlyInAnyOrder(
                        new PrometheusTextParser.Sample(
                                "chorus_averaging_wait_seconds_total", Map.of("reason", "drift"), 0.25),
                        new PrometheusTextParser.Sample(
                                "chorus_averaging_wait_seconds_total", Map.of("reason", "barrier"), 1.5));
        assertThat(f.get("chorus_averaging_round_timeouts_total")
                        .samples()
                        .getFirst()
                        .value())
                .isEqualTo(2);
        assertThat(f.get("chorus_averaging_clipped_total").samples().getFirst().value())
                .isEqualTo(7);
        assertThat(f.get("chorus_averaging_step_scale").type()).isEqualTo("gauge");
        assertThat(f.get("chorus_averaging_step_scale").samples().getFirst().value())
                .isEqualTo(2.5);
        assertThat(f.get("chorus_averaging_screened_out_total")
                        .samples()
                        .getFirst()
                        .value())
                .isEqualTo(3);
        assertThat(f.get("chorus_averaging_peers_excluded").type()).isEqualTo("gauge");
        assertThat(f.get("chorus_averaging_peers_excluded").samples().getFirst().value())
                .isEqualTo(1);
    }

    /**
     * The exposition read by the Prometheus project's own Python client parser (Debian's
     * python3-prometheus-client, which .ci/run installs): every family and sample our strict parser sees, with the
     * same values. Skipped on a machine without it; .ci/run installs it and stops when it cannot.
     */
    @Test
    void theOfficialPythonClientParsesTheSameExposition() throws Exception {
        boolean available = new ProcessBuilder("/usr/bin/python3", "-c", "import prometheus_client.parser")
                        .redirectErrorStream(true)
                        .start()
                        .waitFor()
                == 0;
        org.junit.jupiter.api.Assumptions.assumeTrue(
                available, "python3-prometheus-client is not installed (/usr/bin/python3 cannot import it)");
        String body = get("/metrics").body();
        String script = String.join(
                "\n",
                "import sys",
                "from prometheus_client.parser import text_string_to_metric_families",
                "for fam in text_string_to_metric_families(sys.stdin.read()):",
                "    for s in fam.samples:",
                "        labels = ','.join(k + '=' + v for k, v in sorted(s.labels.items()))",
                "        print(fam.type, s.name, labels, repr(float(s.value)), sep='\\t')");
        Process p = new ProcessBuilder("/usr/bin/python3", "-c", script).start();
        try (var in = p.getOutputStream()) {
            in.write(body.getBytes(java.nio.charset.StandardCharsets.UTF_8));
        }
        String out = new String(p.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
        String err = new String(p.getErrorStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
        assertThat(p.waitFor()).as(err).isZero();
        Map<String, Double> python = new java.util.TreeMap<>();
        for (String line : out.split("\n")) {
            if (line.isEmpty()) {
                continue;
            }
            String[] f = line.split("\t", -1);
            python.put(
                    f[1] + "{" + f[2] + "}",
                    Double.parseDouble(f[3].replace("nan", "NaN").replace("inf", "Infinity")));
        }
        Map<String, Double> ours = new java.util.TreeMap<>();
        for (PrometheusTextParser.Family fam : PrometheusTextParser.parse(body).values()) {
            for (PrometheusTextParser.Sample s : fam.samples()) {
                String labels = String.join(
                        ",",
                        new java.util.TreeMap<>(s.labels())
                                .entrySet().stream()
                                        .map(e -> e.getKey() + "=" + e.getValue())
                                        .toList());
                ours.put(s.name() + "{" + labels + "}", s.value());
            }
        }
        assertThat(python).isNotEmpty().isEqualTo(ours);
    }

    @Test
    void unknownPathsAndOtherMethodsAreRefused() throws Exception {
        assertThat(get("/api/nothing").statusCode()).isEqualTo(404);
        HttpResponse<String> post = client.send(
                HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + server.port() + "/api/status"))
                        .POST(HttpRequest.BodyPublishers.ofString("{}"))
                        .build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(post.statusCode()).isEqualTo(405);
        assertThat(post.headers().firstValue("Allow")).hasValue("GET, HEAD");
    }

    @Test
    void theParserRejectsMalformedExpositions() {
        assertThatThrownBy(() -> PrometheusTextParser.parse("a b\n")).hasMessageContaining("bad value");
        assertThatThrownBy(() -> PrometheusTextParser.parse("1a 1\n")).hasMessageContaining("bad metric name");
        assertThatThrownBy(() -> PrometheusTextParser.parse("a{b=\"\\x\"} 1\n")).hasMessageContaining("bad escape");
        assertThatThrownBy(() -> PrometheusTextParser.parse("a 1\n# TYPE a gauge\n"))
                .hasMessageContaining("after its samples");
        assertThatThrownBy(() -> PrometheusTextParser.parse("a 1\nb 1\na{x=\"1\"} 2\n"))
                .hasMessageContaining("not contiguous");
        assertThatThrownBy(() -> PrometheusTextParser.parse(
                        "# TYPE h histogram\nh_bucket{le=\"1\"} 2\nh_bucket{le=\"+Inf\"} 1\nh_count 1\n"))
                .hasMessageContaining("decrease");
        assertThatThrownBy(() -> PrometheusTextParser.parse("a 1")).hasMessageContaining("line feed");
    }
}
