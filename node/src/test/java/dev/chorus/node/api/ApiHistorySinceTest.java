package dev.chorus.node.api;

import static org.assertj.core.api.Assertions.assertThat;

import dev.chorus.learning.json.JsonReader;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** {@code /api/history?since=}: only the points newer than what the client has, over a real socket on loopback. */
class ApiHistorySinceTest {

    static final long T0 = Instant.parse("2026-01-01T00:00:00Z").toEpochMilli();
    static ApiServer server;
    static HttpClient client;

    @BeforeAll
    static void start() {
        AtomicLong now = new AtomicLong(T0);
        NodeMetrics metrics = new NodeMetrics(() -> Instant.ofEpochMilli(now.get()));
        for (int i = 1; i <= 5; i++) {
            now.set(T0 + i * 1000L);
            metrics.recordStep(i, 0.5f, System.nanoTime());
            metrics.recordEvaluation(0.5 + i / 100.0, 0.3, 0.9);
        }
        server = ApiServer.start("127.0.0.1", 0, new ApiServerTest.FixedView(), metrics);
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

    /** The {@code seq} of each point of a 200 reply, after checking its {@code lastSeq}. */
    static List<Long> seqs(String query) throws Exception {
        HttpResponse<String> r = get("/api/history" + query);
        assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
        Map<String, Object> h = JsonReader.parseObject(r.body());
        assertThat(h).containsEntry("lastSeq", 5L);
        return ((List<?>) h.get("evaluations"))
                .stream().map(e -> (Long) ((Map<?, ?>) e).get("seq")).toList();
    }

    @Test
    void withoutSinceEveryPointComes() throws Exception {
        assertThat(seqs("")).containsExactly(1L, 2L, 3L, 4L, 5L);
        Map<String, Object> h = JsonReader.parseObject(get("/api/history").body());
        Map<?, ?> first = (Map<?, ?>) ((List<?>) h.get("evaluations")).getFirst();
        assertThat(first.get("time")).isEqualTo("2026-01-01T00:00:01Z");
        assertThat(first.get("accuracy")).isEqualTo(0.51);
        assertThat(first.get("count")).isEqualTo(1L);
    }

    @Test
    void aSequenceNumberGivesOnlyNewerPoints() throws Exception {
        assertThat(seqs("?since=3")).containsExactly(4L, 5L);
        assertThat(seqs("?since=0")).containsExactly(1L, 2L, 3L, 4L, 5L);
        assertThat(seqs("?since=5")).isEmpty();
    }

    @Test
    void anInstantGivesOnlyLaterPoints() throws Exception {
        assertThat(seqs("?since=2026-01-01T00:00:02Z")).containsExactly(3L, 4L, 5L);
        assertThat(seqs("?since=2026-01-01T00:00:02.500Z")).containsExactly(3L, 4L, 5L);
    }

    @Test
    void anythingElseIsABadRequestThatSaysWhy() throws Exception {
        for (String bad : List.of("yesterday", "-1", "1.5")) {
            HttpResponse<String> r = get("/api/history?since=" + bad);
            assertThat(r.statusCode()).as(bad).isEqualTo(400);
            assertThat(JsonReader.parseObject(r.body()).get("error"))
                    .isEqualTo("since: expected a sequence number or an ISO-8601 instant, got '" + bad + "'");
        }
    }
}
