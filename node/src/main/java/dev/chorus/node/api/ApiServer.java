package dev.chorus.node.api;

import dev.chorus.gossip.identity.Ed25519Engines;
import dev.chorus.gossip.noise.NoiseCiphers;
import dev.chorus.learning.json.JsonWriter;
import dev.chorus.node.announce.ConsortiumMembers;
import dev.chorus.node.announce.ModelAnnouncement;
import io.vertx.core.Vertx;
import io.vertx.core.VertxOptions;
import io.vertx.core.file.FileSystemOptions;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.HttpServerOptions;
import io.vertx.core.http.HttpServerRequest;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * The HTTP API on Vert.x: {@code GET /api/status}, {@code /api/peers}, {@code /api/history},
 * {@code /health}, {@code /ready} and {@code /metrics}, and the dashboard at {@code /} (a page and its script and
 * style sheet, from the class path, which read the API from the browser). Read-only: any other method gets 405, any
 * other path 404. Requests are answered on the event loop from in-memory state; nothing blocks. Before a request is
 * routed, {@link RequestGuard} applies the connection cap and request deadline, the Host allow-list, the bearer
 * token and the rate limit.
 */
public final class ApiServer implements AutoCloseable {

    private final Vertx vertx;
    private final HttpServer server;

    private ApiServer(Vertx vertx, HttpServer server) {
        this.vertx = vertx;
        this.server = server;
    }

    /**
     * Listens on {@code host:port} (port 0: a free one) with the default limits, loopback Host names and no token.
     *
     * @throws java.io.UncheckedIOException naming the address when it cannot be bound
     */
    public static ApiServer start(String host, int port, NodeView view, NodeMetrics metrics) {
        return start(host, port, ApiLimits.DEFAULTS, ApiAccess.LOOPBACK, view, metrics);
    }

    /**
     * Listens on {@code host:port} (port 0: a free one).
     *
     * @throws java.io.UncheckedIOException naming the address when it cannot be bound
     */
    public static ApiServer start(
            String host, int port, ApiLimits limits, ApiAccess access, NodeView view, NodeMetrics metrics) {
        // No file cache and no class-path resolution: the API serves no files and writes none.
        Vertx vertx = Vertx.vertx(new VertxOptions()
                .setEventLoopPoolSize(1)
                .setWorkerPoolSize(1)
                .setInternalBlockingPoolSize(1)
                .setFileSystemOptions(
                        new FileSystemOptions().setFileCachingEnabled(false).setClassPathResolvingEnabled(false)));
        HttpServer server = vertx.createHttpServer(options(host, port, limits));
        RequestGuard guard = new RequestGuard(vertx, limits, access, metrics);
        Routes routes = new Routes(view, metrics);
        server.connectionHandler(guard::accepted);
        server.requestHandler(req -> {
            if (guard.admit(req)) {
                routes.handle(req);
            }
        });
        try {
            server.listen().toCompletionStage().toCompletableFuture().get(30, TimeUnit.SECONDS);
        } catch (ExecutionException | TimeoutException | InterruptedException e) {
            close(vertx);
            if (e instanceof InterruptedException) {
                Thread.currentThread().interrupt();
            }
            Throwable cause = e instanceof ExecutionException ? e.getCause() : e;
            throw new java.io.UncheckedIOException(new java.io.IOException(
                    "cannot listen on " + host + ":" + port + ": "
                            + dev.chorus.gossip.transport.TcpTransport.reason(cause),
                    cause));
        }
        return new ApiServer(vertx, server);
    }

    /**
     * The server's options. HTTP/2 over clear text (h2c, by upgrade or by prior knowledge) is off: the API's replies
     * are small and few, and HTTP/2's streams, flow control and settings would be one more protocol for a client to
     * hold resources with, outside the per-request deadline that guards HTTP/1.1.
     */
    private static HttpServerOptions options(String host, int port, ApiLimits limits) {
        return new HttpServerOptions()
                .setHost(host)
                .setPort(port)
                .setHttp2ClearTextEnabled(false)
                .setMaxInitialLineLength(2048)
                .setMaxHeaderSize(8192)
                .setMaxChunkSize(1024)
                .setIdleTimeout((int) Math.max(1, limits.idleTimeout().toMillis()))
                .setIdleTimeoutUnit(TimeUnit.MILLISECONDS);
    }

    /** The port it listens on. */
    public int port() {
        return server.actualPort();
    }

    @Override
    public void close() {
        close(vertx);
    }

    private static void close(Vertx vertx) {
        try {
            vertx.close().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
        } catch (ExecutionException | TimeoutException e) {
            // closing is best effort; the event loop threads are daemons
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /**
     * The dashboard's three files, read once from the class path. The page loads nothing from elsewhere and runs no
     * inline script: the content security policy allows this origin's script, style and API calls only, so a peer
     * ID, address or announced metric that held markup could not run as script even if it reached the page as HTML
     * (the script writes every such value as text).
     */
    private static final class Dashboard {
        static final String PAGE = "/dashboard.html";
        static final String SCRIPT = "/dashboard.js";
        static final String STYLE = "/dashboard.css";
        private static final String POLICY = "default-src 'none'; script-src 'self'; style-src 'self';"
                + " connect-src 'self'; img-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";
        private static final Map<String, io.vertx.core.buffer.Buffer> FILES =
                Map.of(PAGE, load(PAGE), SCRIPT, load(SCRIPT), STYLE, load(STYLE));
        private static final Map<String, String> TYPES = Map.of(
                PAGE,
                "text/html; charset=utf-8",
                SCRIPT,
                "text/javascript; charset=utf-8",
                STYLE,
                "text/css; charset=utf-8");

        private static io.vertx.core.buffer.Buffer load(String name) {
            try (java.io.InputStream in = ApiServer.class.getResourceAsStream(name.substring(1))) {
                if (in == null) {
                    throw new IllegalStateException("the dashboard's " + name + " is missing from the jar");
                }
                return io.vertx.core.buffer.Buffer.buffer(in.readAllBytes());
            } catch (java.io.IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
        }

        static void serve(HttpServerRequest req, String name) {
            req.response()
                    .setStatusCode(200)
                    .putHeader("Content-Type", TYPES.get(name))
                    .putHeader("Content-Security-Policy", POLICY)
                    .putHeader("X-Content-Type-Options", "nosniff")
                    .putHeader("Referrer-Policy", "no-referrer")
                    .putHeader("Cache-Control", "no-cache")
                    .end(FILES.get(name));
        }
    }

    /** The request router. */
    private record Routes(NodeView view, NodeMetrics metrics) {

        void handle(HttpServerRequest req) {
            String path = req.path();
            boolean known =
                    switch (path) {
                        case "/api/status",
                                "/api/peers",
                                "/api/members",
                                "/api/history",
                                "/health",
                                "/ready",
                                "/metrics",
                                "/",
                                Dashboard.SCRIPT,
                                Dashboard.STYLE -> true;
                        default -> false;
                    };
            if (!known) {
                json(req, 404, "{\"error\":\"not found\"}");
                return;
            }
            if (req.method() != HttpMethod.GET && req.method() != HttpMethod.HEAD) {
                req.response().putHeader("Allow", "GET, HEAD");
                json(req, 405, "{\"error\":\"method not allowed\"}");
                return;
            }
            switch (path) {
                case "/api/status" -> json(req, 200, status());
                case "/api/peers" -> json(req, 200, peers());
                case "/api/members" -> json(req, 200, members());
                case "/api/history" -> history(req);
                case "/health" -> {
                    String failure = view.failure();
                    json(req, failure == null ? 200 : 503, health(failure));
                }
                case "/ready" -> {
                    boolean ready = view.ready();
                    json(req, ready ? 200 : 503, "{\"ready\":" + ready + "}");
                }
                case "/metrics" ->
                    req.response()
                            .setStatusCode(200)
                            .putHeader("Content-Type", PrometheusText.CONTENT_TYPE)
                            .end(PrometheusText.render(view, metrics, System.nanoTime()));
                case "/" -> Dashboard.serve(req, Dashboard.PAGE);
                case Dashboard.SCRIPT -> Dashboard.serve(req, Dashboard.SCRIPT);
                case Dashboard.STYLE -> Dashboard.serve(req, Dashboard.STYLE);
                default -> throw new IllegalStateException(path);
            }
        }

        private String status() {
            StringBuilder sb = new StringBuilder();
            JsonWriter w = JsonWriter.compact(sb);
            w.beginObject();
            w.member("peerId", view.peerId());
            w.name("listenAddrs").beginArray();
            for (String a : view.listenAddrs()) {
                w.value(a);
            }
            w.endArray();
            Instant started = view.startedAt();
            w.member("startedAt", started.toString());
            w.member("uptimeSeconds", Duration.between(started, Instant.now()).toMillis() / 1000.0);
            w.member("consortium", view.consortium());
            w.member("strategy", view.strategy());
            w.member("backend", view.backend());
            cipher(w, view.cipher());
            signatures(w, Ed25519Engines.current());
            w.member("model", view.model());
            w.member("modelVersion", metrics.version());
            w.member("steps", metrics.steps());
            w.member("accuracy", metrics.accuracy());
            w.member("loss", metrics.validationLoss());
            w.member("trainLoss", metrics.trainLoss());
            w.member("learningRate", metrics.learningRate());
            w.member("peerCount", view.peers().size());
            w.member("knownDisconnectedPeers", view.knownDisconnectedPeers());
            w.member("redials", view.redials());
            w.member("memberCount", view.members().size());
            secureAggregation(w, view.secureAggregation());
            w.member("ready", view.ready());
            recovery(w);
            AveragingCounters a = metrics.averaging();
            w.name("averaging").beginObject();
            w.member("rounds", a.rounds());
            w.member("exchanges", a.exchanges().sent());
            w.member("exchangeFailures", a.exchanges().sendFailures());
            w.member("exchangesAbandoned", a.exchanges().abandoned());
            w.member("throttledRounds", a.exchanges().throttledRounds());
            w.member("received", a.updates().received());
            w.member("merged", a.updates().merged());
            w.member("ignored", a.updates().ignored());
            w.member("refused", a.updates().refused());
            w.member("versionsClamped", a.updates().versionsClamped());
            w.member("driftWaitSeconds", a.waits().driftWaitSeconds());
            w.member("barrierWaitSeconds", a.waits().barrierWaitSeconds());
            w.member("roundTimeouts", a.waits().roundTimeouts());
            w.member("stepScale", a.stepScale());
            w.member("peerBans", view.peerBans());
            long[] counts = metrics.stalenessCounts();
            long merges = 0;
            for (long c : counts) {
                merges += c;
            }
            w.member("stalenessMean", merges == 0 ? Double.NaN : (double) metrics.stalenessSum() / merges);
            w.name("stalenessBuckets").beginObject();
            for (int i = 0; i < counts.length; i++) {
                String le = i < NodeMetrics.STALENESS_BUCKETS.length
                        ? Long.toString(NodeMetrics.STALENESS_BUCKETS[i])
                        : "+Inf";
                w.member(le, counts[i]);
            }
            w.endObject();
            w.endObject();
            earlyStopping(w, metrics.earlyStopping());
            audit(w, metrics.auditGrowth());
            w.name("bytesIn").beginObject();
            metrics.bytesIn().forEach(w::member);
            w.endObject();
            w.name("bytesOut").beginObject();
            metrics.bytesOut().forEach(w::member);
            w.endObject();
            process(w, ProcessFootprint.sample());
            w.endObject();
            w.finish();
            return sb.toString();
        }

        /** The process's resources ({@link ProcessFootprint}); -1 where the platform does not report one. */
        private static void process(JsonWriter w, ProcessFootprint p) {
            w.name("process").beginObject();
            w.member("residentBytes", p.residentBytes());
            w.member("threads", p.threads());
            w.member("openFds", p.openFds());
            w.member("maxFds", p.maxFds());
            w.member("heapAfterGcBytes", p.heapAfterGcBytes());
            w.member("heapMaxBytes", p.heapMaxBytes());
            w.endObject();
        }

        /** The Noise transport's cipher and why it was chosen; null when the node does not report one. */
        private static void cipher(JsonWriter w, NoiseCiphers.Selection cipher) {
            if (cipher == null) {
                w.name("cipher").nullValue();
                return;
            }
            w.name("cipher").beginObject();
            w.member("name", cipher.name());
            w.member("reason", cipher.reason());
            w.endObject();
        }

        /** The process's Ed25519 implementation (gossipsub's and every other signature) and why it was chosen. */
        private static void signatures(JsonWriter w, Ed25519Engines.Selection ed25519) {
            w.name("signatures").beginObject();
            w.member("name", ed25519.name());
            w.member("reason", ed25519.reason());
            w.endObject();
        }

        /** The collapses detected and the rollbacks made ({@code CollapseDetector}). */
        private void recovery(JsonWriter w) {
            w.name("recovery").beginObject();
            w.member("collapses", metrics.collapses());
            w.member("rollbacks", metrics.rollbacks());
            w.member("lastCollapse", metrics.lastCollapse());
            long collapsedAt = metrics.lastCollapseMillis();
            if (collapsedAt >= 0) {
                w.member("lastCollapseAt", Instant.ofEpochMilli(collapsedAt).toString());
            }
            w.member("lastRollbackVersion", metrics.lastRollbackVersion());
            w.endObject();
        }

        /** Every member heard on the announcement topic, connected or not (gossip reaches beyond neighbours). */
        private String members() {
            List<ConsortiumMembers.Member> members = view.members();
            StringBuilder sb = new StringBuilder();
            JsonWriter w = JsonWriter.compact(sb);
            w.beginObject();
            w.member("count", members.size());
            w.member("rejected", view.announcementsRejected());
            w.name("members").beginArray();
            for (ConsortiumMembers.Member m : members) {
                w.beginObject();
                announced(w, m);
                w.endObject();
            }
            w.endArray();
            MembershipJson.write(w, view.membership(), Instant.now());
            w.endObject();
            w.finish();
            return sb.toString();
        }

        private static void announced(JsonWriter w, ConsortiumMembers.Member m) {
            ModelAnnouncement a = m.announcement();
            w.member("peerId", a.peer());
            w.member("version", a.version());
            w.member("sampleCount", a.sampleCount());
            w.member("architecture", HexFormat.of().formatHex(a.architecture()));
            w.member("digest", HexFormat.of().formatHex(a.digest()));
            w.member("announcedAt", Instant.ofEpochMilli(a.timestampMillis()).toString());
            w.member("receivedAt", m.receivedAt().toString());
            w.name("metrics").beginObject();
            a.metrics().forEach(w::member);
            w.endObject();
        }

        private String peers() {
            List<PeerInfo> peers = view.peers();
            var timings = view.peerTimings();
            Map<String, ConsortiumMembers.Member> heard = new HashMap<>();
            for (ConsortiumMembers.Member m : view.members()) {
                heard.put(m.announcement().peer(), m);
            }
            StringBuilder sb = new StringBuilder();
            JsonWriter w = JsonWriter.compact(sb);
            w.beginObject();
            w.member("count", peers.size());
            w.name("peers").beginArray();
            for (PeerInfo p : peers) {
                w.beginObject();
                w.member("peerId", p.peerId());
                w.member("address", p.address());
                w.member("direction", p.direction());
                w.member("connectedAt", p.connectedAt().toString());
                PeerExchangeCounts x = metrics.peerExchanges(p.peerId());
                if (x != null) {
                    w.member("exchangesQueued", x.queued());
                    w.member("merged", x.merged());
                    w.member("exchangeFailures", x.failures());
                    w.member("lastMergedVersion", x.lastVersion());
                    if (x.lastMergeMillis() >= 0) {
                        w.member(
                                "lastMergedAt",
                                Instant.ofEpochMilli(x.lastMergeMillis()).toString());
                    }
                }
                var timing = timings.get(p.peerId());
                if (timing != null) {
                    w.member("exchangeSeconds", timing.exchangeSeconds());
                    w.member("slow", timing.slow());
                }
                ConsortiumMembers.Member m = heard.get(p.peerId());
                if (m != null) {
                    w.name("announced").beginObject();
                    announced(w, m);
                    w.endObject();
                }
                w.endObject();
            }
            w.endArray();
            w.endObject();
            w.finish();
            return sb.toString();
        }

        private static void earlyStopping(JsonWriter w, EarlyStoppingState es) {
            w.name("earlyStopping").beginObject();
            w.member("mode", es.mode());
            w.member("triggered", es.triggered());
            w.member("stopped", es.stopped());
            w.member("bestLoss", es.bestLoss());
            w.member("bestVersion", es.bestVersion());
            w.member("evaluationsSinceBest", es.evaluationsSinceBest());
            w.endObject();
        }

        /** The egress audit log's size and growth; nothing when the node keeps none. */
        private static void audit(JsonWriter w, AuditGrowth.Estimate audit) {
            if (audit == null) {
                return;
            }
            w.name("audit").beginObject();
            w.member("sizeBytes", audit.sizeBytes());
            w.member("capBytes", audit.capBytes());
            w.member("bytesPerHour", audit.bytesPerHour());
            // JSON has no infinity: a log that does not grow has a null daysUntilCap and growing false.
            w.member("growing", audit.bytesPerHour() > 0);
            w.member("daysUntilCap", audit.daysUntilCap());
            w.endObject();
        }

        /**
         * {@code /api/history}: every point kept, or with {@code since} only those newer than what the client has. A
         * whole number is a sequence number ({@code seq} of the last point the client holds), anything else an
         * ISO-8601 instant; the reply's {@code lastSeq} is what to send next time.
         */
        private void history(HttpServerRequest req) {
            String since = req.getParam("since");
            EvaluationHistory h = metrics.evaluations();
            long lastSeq = h.lastSeq();
            List<EvaluationHistory.Entry> entries;
            if (since == null) {
                entries = h.all();
            } else if (since.matches("\\d{1,18}")) {
                entries = h.afterSeq(Long.parseLong(since));
            } else {
                try {
                    entries = h.afterTime(Instant.parse(since).toEpochMilli());
                } catch (java.time.format.DateTimeParseException e) {
                    json(
                            req,
                            400,
                            error("since: expected a sequence number or an ISO-8601 instant, got '" + since + "'"));
                    return;
                }
            }
            json(req, 200, history(entries, lastSeq));
        }

        private static String error(String message) {
            StringBuilder sb = new StringBuilder();
            JsonWriter w = JsonWriter.compact(sb);
            w.beginObject();
            w.member("error", message);
            w.endObject();
            w.finish();
            return sb.toString();
        }

        private static String history(List<EvaluationHistory.Entry> entries, long lastSeq) {
            StringBuilder sb = new StringBuilder();
            JsonWriter w = JsonWriter.compact(sb);
            w.beginObject();
            w.member("lastSeq", lastSeq);
            w.name("evaluations").beginArray();
            for (EvaluationHistory.Entry e : entries) {
                HistoryPoint p = e.point();
                w.beginObject();
                w.member("seq", e.seq());
                w.member("count", e.count());
                w.member("time", Instant.ofEpochMilli(p.timeMillis()).toString());
                w.member("modelVersion", p.version());
                w.member("steps", p.steps());
                w.member("trainLoss", p.trainLoss());
                w.member("accuracy", p.accuracy());
                w.member("loss", p.loss());
                w.member("auc", p.auc());
                w.endObject();
            }
            w.endArray();
            w.endObject();
            w.finish();
            return sb.toString();
        }

        private static String health(String failure) {
            StringBuilder sb = new StringBuilder();
            JsonWriter w = JsonWriter.compact(sb);
            w.beginObject();
            w.member("status", failure == null ? "up" : "down");
            if (failure != null) {
                w.member("reason", failure);
            }
            w.endObject();
            w.finish();
            return sb.toString();
        }

        private static void json(HttpServerRequest req, int status, String body) {
            req.response()
                    .setStatusCode(status)
                    .putHeader("Content-Type", "application/json; charset=utf-8")
                    .end(body);
        }
    }

    /** The group rounds of the {@code secure} strategy, as a member and as a relay; nothing for the others. */
    private static void secureAggregation(JsonWriter w, dev.chorus.node.secagg.SecAggCounters c) {
        if (c == null) {
            return;
        }
        w.name("secureAggregation").beginObject();
        w.member("offers", c.offers());
        w.member("offersUnanswered", c.unanswered());
        w.member("tooFewPeers", c.tooFewPeers());
        w.member("roundsJoined", c.joined());
        w.member("roundsCompleted", c.memberCompleted());
        w.member("roundsAbandoned", c.memberAbandoned());
        w.member("relayedRounds", c.relayed());
        w.member("relayedCompleted", c.relayCompleted());
        w.member("relayedAbandoned", c.relayAbandoned());
        w.member("relayedCancelled", c.relayCancelled());
        w.member("relaying", c.relaying());
        w.member("relayDeclines", c.relayDeclines());
        w.member("lateOffersCancelled", c.lateOffers());
        w.member("dropoutsRecovered", c.dropoutsRecovered());
        w.member("bytesSentAsMember", c.bytesSentAsMember());
        w.member("bytesSentAsRelay", c.bytesSentAsRelay());
        w.member("framesRefused", c.refused());
        w.name("framesRefusedBy").beginObject();
        for (dev.chorus.node.secagg.SecAggCounters.Refusal r : dev.chorus.node.secagg.SecAggCounters.Refusal.values()) {
            w.member(r.id(), c.refused(r));
        }
        w.endObject();
        w.endObject();
    }
}
