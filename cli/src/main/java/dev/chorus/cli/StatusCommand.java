package dev.chorus.cli;

import dev.chorus.learning.json.JsonException;
import dev.chorus.learning.json.JsonReader;
import dev.chorus.node.setup.UserError;
import java.io.IOException;
import java.io.PrintWriter;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code chorus status --api URL}: a running node's status as a table. */
@Command(
        name = "status",
        mixinStandardHelpOptions = true,
        description = {
            "Prints a running node's status (GET /api/status) as a table.",
            "Exit code 1 when the node cannot be reached, 2 for a bad URL."
        })
final class StatusCommand implements Callable<Integer> {

    @Spec
    CommandLine.Model.CommandSpec spec;

    @Option(names = "--api", paramLabel = "URL", description = "Base URL of the node's API. Default: ${DEFAULT-VALUE}.")
    String api = "http://127.0.0.1:" + dev.chorus.node.config.ConfigSchema.DEFAULT_API_PORT;

    @Option(
            names = "--token-file",
            paramLabel = "FILE",
            description = "The node's API token file (its api.token_file), for a node that requires the token.")
    java.nio.file.Path tokenFile;

    private String token() {
        try {
            return java.nio.file.Files.readString(tokenFile).strip();
        } catch (IOException e) {
            throw new UserError("--token-file: cannot read " + tokenFile + ": " + reason(e), e);
        }
    }

    @Override
    public Integer call() throws InterruptedException {
        URI uri;
        try {
            uri = URI.create(api.endsWith("/") ? api + "api/status" : api + "/api/status");
            if (uri.getScheme() == null || !uri.getScheme().startsWith("http") || uri.getHost() == null) {
                throw new IllegalArgumentException("expected http://HOST:PORT");
            }
        } catch (IllegalArgumentException e) {
            throw new UserError("--api: not a usable URL '" + api + "': " + e.getMessage());
        }
        PrintWriter err = spec.commandLine().getErr();
        String body;
        try (HttpClient client =
                HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build()) {
            HttpRequest.Builder request =
                    HttpRequest.newBuilder(uri).timeout(Duration.ofSeconds(10)).GET();
            if (tokenFile != null) {
                request.header("Authorization", "Bearer " + token());
            }
            HttpResponse<String> r = client.send(request.build(), HttpResponse.BodyHandlers.ofString());
            if (r.statusCode() == 401) {
                err.println("chorus: " + uri + " answered HTTP 401: "
                        + (tokenFile == null
                                ? "the node requires its API token (--token-file DATA_DIR/api.token)"
                                : "the token of " + tokenFile + " is not the node's"));
                err.flush();
                return 1;
            }
            if (r.statusCode() != 200) {
                err.println("chorus: " + uri + " answered HTTP " + r.statusCode());
                err.flush();
                return 1;
            }
            body = r.body();
        } catch (IOException e) {
            err.println("chorus: cannot reach the node at " + uri + ": " + reason(e));
            err.flush();
            return 1;
        }
        Map<String, Object> s;
        try {
            s = JsonReader.parseObject(body);
        } catch (JsonException e) {
            err.println("chorus: " + uri + " did not answer with a status object: " + e.getMessage());
            err.flush();
            return 1;
        }
        PrintWriter out = spec.commandLine().getOut();
        row(out, "peer id", s.get("peerId"));
        Object addrs = s.get("listenAddrs");
        if (addrs instanceof List<?> list && !list.isEmpty()) {
            for (int i = 0; i < list.size(); i++) {
                row(out, i == 0 ? "listen addresses" : "", list.get(i));
            }
        } else {
            row(out, "listen addresses", "(none)");
        }
        row(out, "uptime", uptime(s.get("uptimeSeconds")));
        row(out, "consortium", s.get("consortium"));
        row(out, "strategy", s.get("strategy"));
        row(out, "backend", s.get("backend"));
        row(out, "model", s.get("model"));
        row(out, "model version", s.get("modelVersion"));
        row(out, "steps", s.get("steps"));
        row(out, "accuracy", number(s.get("accuracy")));
        row(out, "loss", number(s.get("loss")));
        row(out, "train loss", number(s.get("trainLoss")));
        row(out, "peers", s.get("peerCount"));
        row(out, "cipher", cipher(s.get("cipher")));
        row(out, "signatures", cipher(s.get("signatures")));
        if (s.get("secureAggregation") != null) {
            row(out, "group rounds", groupRounds(s.get("secureAggregation")));
        }
        row(out, "ready", s.get("ready"));
        row(out, "audit log", audit(s.get("audit")));
        out.flush();
        return 0;
    }

    /** Why the request failed, in a few words and without Java class names. */
    static String reason(IOException e) {
        if (e instanceof java.net.http.HttpConnectTimeoutException) {
            return "no connection within 5 s";
        }
        if (e instanceof java.net.http.HttpTimeoutException) {
            return "no answer within 10 s";
        }
        return dev.chorus.gossip.transport.TcpTransport.reason(e);
    }

    private static void row(PrintWriter out, String name, Object value) {
        out.printf(Locale.ROOT, "%-18s %s%n", name, value == null ? "-" : value);
    }

    /** {@code openssl (why)}, from the status's {@code cipher} part; null when the node does not report one. */
    /** {@code NAME (REASON)} from a status part with a name and a reason: the cipher, the signatures. */
    static String cipher(Object v) {
        if (!(v instanceof Map<?, ?> c) || !(c.get("name") instanceof String name)) {
            return null;
        }
        return c.get("reason") instanceof String reason ? name + " (" + reason + ")" : name;
    }

    /**
     * {@code 12 of 14 joined merged, 5 relayed (1 abandoned), 2 dropouts recovered}, from the status's {@code
     * secureAggregation} part; {@code , declining the relay's role (1 time)} while the node declines it.
     */
    static String groupRounds(Object v) {
        if (!(v instanceof Map<?, ?> g)) {
            return null;
        }
        String rounds = String.format(
                Locale.ROOT,
                "%s of %s joined merged, %s relayed (%s abandoned), %s dropouts recovered",
                g.get("roundsCompleted"),
                g.get("roundsJoined"),
                g.get("relayedRounds"),
                g.get("relayedAbandoned"),
                g.get("dropoutsRecovered"));
        if (Boolean.FALSE.equals(g.get("relaying"))) {
            Object declines = g.get("relayDeclines");
            rounds += ", declining the relay's role"
                    + (declines instanceof Number n && n.longValue() > 0 ? " (" + times(n.longValue()) + ")" : "");
        }
        return rounds;
    }

    private static String times(long n) {
        return n == 1 ? "1 time" : n + " times";
    }

    private static String number(Object v) {
        return v instanceof Number n ? String.format(Locale.ROOT, "%.4f", n.doubleValue()) : "-";
    }

    /** {@code 12.0 MiB of 1024 MiB, +4.1 MiB/h: the cap in 10.4 days}, from the status's {@code audit} part. */
    static String audit(Object v) {
        if (!(v instanceof Map<?, ?> a)
                || !(a.get("sizeBytes") instanceof Number size)
                || !(a.get("capBytes") instanceof Number cap)) {
            return "-";
        }
        String text = String.format(
                Locale.ROOT, "%.1f MiB of %.0f MiB", size.doubleValue() / (1 << 20), cap.doubleValue() / (1 << 20));
        if (!(a.get("bytesPerHour") instanceof Number rate)) {
            return text + ", growth not measured yet";
        }
        text += String.format(Locale.ROOT, ", +%.2f MiB/h", rate.doubleValue() / (1 << 20));
        if (a.get("daysUntilCap") instanceof Number days) {
            return text + String.format(Locale.ROOT, ": the cap in %.1f days at this pace", days.doubleValue());
        }
        return text + ": not growing";
    }

    private static String uptime(Object v) {
        if (!(v instanceof Number n)) {
            return "-";
        }
        long s = (long) n.doubleValue();
        return String.format(Locale.ROOT, "%dd %02dh %02dm %02ds", s / 86400, s / 3600 % 24, s / 60 % 60, s % 60);
    }
}
