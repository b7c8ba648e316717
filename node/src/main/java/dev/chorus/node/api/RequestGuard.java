package dev.chorus.node.api;

import dev.chorus.learning.json.JsonWriter;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpConnection;
import io.vertx.core.http.HttpServerRequest;
import java.util.IdentityHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * What the API checks before it routes a request: the connection cap and the request deadline per connection, then
 * per request the body size, the Host header, the bearer token and the request rate. A connection past the cap is
 * closed on accept,
 * so API clients never hold more than {@link ApiLimits#maxConnections()} of the process's file descriptors.
 */
final class RequestGuard {

    /** The largest request body accepted; the API only reads, so none it answers needs one. */
    static final long MAX_BODY_BYTES = 1024;

    /**
     * Paths open without the token: the probes (an orchestrator's health check has no token) and the dashboard's
     * static files, which hold no node data (the page reads the API with the token itself).
     */
    static final Set<String> OPEN_PATHS = Set.of("/health", "/ready", "/", "/dashboard.js", "/dashboard.css");

    /** The probes: outside the rate limit too, so that a flood of other requests never fails a health check. */
    static final Set<String> PROBES = Set.of("/health", "/ready");

    private final Vertx vertx;
    private final ApiLimits limits;
    private final ApiAccess access;
    private final NodeMetrics metrics;
    private final AtomicInteger open = new AtomicInteger();
    // The rate limit's token bucket: requests it may still answer now, refilled at requestsPerSecond up to as many.
    private double allowance;
    private long refilledAt = System.nanoTime();
    // Touched on the API's single event loop only.
    private final Map<HttpConnection, Long> deadlines = new IdentityHashMap<>();

    RequestGuard(Vertx vertx, ApiLimits limits, ApiAccess access, NodeMetrics metrics) {
        this.vertx = vertx;
        this.limits = limits;
        this.access = access;
        this.metrics = metrics;
        this.allowance = limits.requestsPerSecond();
    }

    /** A new connection: closed at once past the cap, otherwise given its first request's deadline. */
    void accepted(HttpConnection c) {
        if (open.incrementAndGet() > limits.maxConnections()) {
            open.decrementAndGet();
            metrics.apiConnectionRefused();
            c.close();
            return;
        }
        c.closeHandler(v -> {
            open.decrementAndGet();
            Long timer = deadlines.remove(c);
            if (timer != null) {
                vertx.cancelTimer(timer);
            }
        });
        arm(c);
    }

    /**
     * Starts the deadline for the next request on {@code c}: a client that has not sent a whole request by then (a
     * header trickled a byte at a time, or nothing at all) loses the connection.
     */
    private void arm(HttpConnection c) {
        long timer = vertx.setTimer(Math.max(1, limits.requestTimeout().toMillis()), t -> {
            deadlines.remove(c);
            c.close();
        });
        Long previous = deadlines.put(c, timer);
        if (previous != null) {
            vertx.cancelTimer(previous);
        }
    }

    /**
     * Checks a request whose headers have arrived; answers it and returns false when it is refused. The deadline stops
     * here (a request with a body over the limit is refused and its connection closed, so a slow body cannot hold
     * it) and starts again for the next request when the response ends.
     */
    boolean admit(HttpServerRequest req) {
        HttpConnection c = req.connection();
        Long timer = deadlines.remove(c);
        if (timer != null) {
            vertx.cancelTimer(timer);
        }
        req.response().endHandler(v -> {
            if (!deadlines.containsKey(c)) {
                arm(c);
            }
        });
        String length = req.getHeader("Content-Length");
        if (req.getHeader("Transfer-Encoding") != null || (length != null && !smallBody(length))) {
            req.response().putHeader("Connection", "close");
            refuse(req, 413, "a request body may hold at most " + MAX_BODY_BYTES + " bytes")
                    .onComplete(done -> c.close());
            return false;
        }
        String host = hostName(req.getHeader("Host"));
        if (host == null || !access.allowedHosts().contains(host)) {
            refuse(req, 421, "Host " + (host == null ? "missing" : "'" + host + "'") + " is not in api.allowed_hosts");
            return false;
        }
        if (access.token() != null
                && !OPEN_PATHS.contains(req.path())
                && !access.token().matches(req.getHeader("Authorization"))) {
            req.response().putHeader("WWW-Authenticate", "Bearer");
            refuse(req, 401, "this API needs Authorization: Bearer TOKEN (the token is in api.token_file)");
            return false;
        }
        if (!PROBES.contains(req.path()) && !takeToken()) {
            req.response().putHeader("Retry-After", "1");
            refuse(req, 429, "more than api.max_requests_per_second requests");
            return false;
        }
        return true;
    }

    /** Whether the rate limit lets one more request through now (called on the event loop only). */
    private boolean takeToken() {
        long now = System.nanoTime();
        int rate = limits.requestsPerSecond();
        allowance = Math.min(rate, allowance + (now - refilledAt) * 1e-9 * rate);
        refilledAt = now;
        if (allowance < 1) {
            return false;
        }
        allowance -= 1;
        return true;
    }

    private static boolean smallBody(String length) {
        try {
            long n = Long.parseLong(length.strip());
            return n >= 0 && n <= MAX_BODY_BYTES;
        } catch (NumberFormatException e) {
            return false;
        }
    }

    /** The name of a Host header without its port, lower case; an IPv6 address keeps its brackets. Null: none. */
    static String hostName(String header) {
        if (header == null || header.isBlank()) {
            return null;
        }
        String h = header.strip().toLowerCase(Locale.ROOT);
        if (h.startsWith("[")) {
            int end = h.indexOf(']');
            return end < 0 ? h : h.substring(0, end + 1);
        }
        int colon = h.indexOf(':');
        String name = colon < 0 ? h : h.substring(0, colon);
        return name.endsWith(".") ? name.substring(0, name.length() - 1) : name;
    }

    private static Future<Void> refuse(HttpServerRequest req, int status, String reason) {
        StringBuilder sb = new StringBuilder();
        JsonWriter w = JsonWriter.compact(sb);
        w.beginObject();
        w.member("error", reason);
        w.endObject();
        w.finish();
        return req.response()
                .setStatusCode(status)
                .putHeader("Content-Type", "application/json; charset=utf-8")
                .end(sb.toString());
    }
}
