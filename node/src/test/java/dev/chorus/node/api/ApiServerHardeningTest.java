package dev.chorus.node.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The API under a hostile client on the same machine, over raw sockets on loopback: slow and silent connections are
 * closed by the request deadline, connections past the cap are closed at once, a foreign Host header, an h2c upgrade,
 * a large body and a missing or wrong token are refused, and the probes stay open.
 */
class ApiServerHardeningTest {

    private static final String TOKEN = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef";

    @TempDir
    Path dir;

    private final NodeMetrics metrics = new NodeMetrics(InstantSource.system());
    private final List<Socket> sockets = new ArrayList<>();
    private ApiServer server;

    @AfterEach
    void stop() throws IOException {
        for (Socket s : sockets) {
            s.close();
        }
        if (server != null) {
            server.close();
        }
    }

    private void start(ApiLimits limits, ApiToken token) {
        server = ApiServer.start(
                "127.0.0.1",
                0,
                limits,
                new ApiAccess(ApiAccess.LOOPBACK.allowedHosts(), token),
                new ApiServerTest.FixedView(),
                metrics);
    }

    private Socket connect() throws IOException {
        Socket s = new Socket("127.0.0.1", server.port());
        s.setSoTimeout(100);
        sockets.add(s);
        return s;
    }

    /** Reads until the server closes the connection or {@code max} passes; null when it stayed open. */
    private static String readUntilClosed(Socket s, Duration max, Runnable eachTick) throws IOException {
        long end = System.nanoTime() + max.toNanos();
        ByteArrayOutputStream got = new ByteArrayOutputStream();
        InputStream in = s.getInputStream();
        byte[] buf = new byte[4096];
        while (System.nanoTime() < end) {
            try {
                int n = in.read(buf);
                if (n < 0) {
                    return got.toString(StandardCharsets.ISO_8859_1);
                }
                got.write(buf, 0, n);
            } catch (SocketTimeoutException e) {
                eachTick.run();
            } catch (IOException e) {
                return got.toString(StandardCharsets.ISO_8859_1); // reset by the server: closed too
            }
        }
        return null;
    }

    /** One request on a new connection, answered and then closed by the client's Connection: close. */
    private String request(String head) throws IOException {
        Socket s = connect();
        s.getOutputStream().write((head + "Connection: close\r\n\r\n").getBytes(StandardCharsets.ISO_8859_1));
        String reply = readUntilClosed(s, Duration.ofSeconds(5), () -> {});
        assertThat(reply).as("the reply to %s", head).isNotNull();
        return reply;
    }

    private String get(String path, String host, String authorization) throws IOException {
        return request("GET " + path + " HTTP/1.1\r\n" + (host == null ? "" : "Host: " + host + "\r\n")
                + (authorization == null ? "" : "Authorization: " + authorization + "\r\n"));
    }

    private String localhost() {
        return "localhost:" + server.port();
    }

    @Test
    void aHeaderSentAByteAtATimeIsCutOffByTheRequestDeadline() throws IOException {
        start(new ApiLimits(8, Duration.ofSeconds(1), Duration.ofSeconds(30), 1000), null);
        Socket s = connect();
        s.setSoTimeout(200);
        byte[] header = ("GET /health HTTP/1.1\r\nHost: localhost\r\nX-Slow: " + "a".repeat(200))
                .getBytes(StandardCharsets.ISO_8859_1);
        int[] sent = {0};
        long start = System.nanoTime();
        String reply = readUntilClosed(s, Duration.ofSeconds(8), () -> {
            try {
                s.getOutputStream().write(header[sent[0]++ % header.length]);
            } catch (IOException e) {
                // the server closed it; the next read says so
            }
        });
        assertThat(reply).as("closed by the request deadline").isNotNull();
        assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(4));
        assertThat(sent[0]).isLessThan(header.length);
    }

    @Test
    void silentAndIdleConnectionsAreClosed() throws IOException {
        start(new ApiLimits(8, Duration.ofMillis(800), Duration.ofSeconds(30), 1000), null);
        assertThat(readUntilClosed(connect(), Duration.ofSeconds(4), () -> {})).isEmpty();
        // A kept-alive connection after its reply: the deadline for the next request runs from the reply's end.
        Socket s = connect();
        s.getOutputStream()
                .write(("GET /health HTTP/1.1\r\nHost: " + localhost() + "\r\n\r\n")
                        .getBytes(StandardCharsets.US_ASCII));
        String reply = readUntilClosed(s, Duration.ofSeconds(4), () -> {});
        assertThat(reply).startsWith("HTTP/1.1 200");
        // The idle timeout alone, with a request deadline longer than it.
        server.close();
        start(new ApiLimits(8, Duration.ofSeconds(30), Duration.ofMillis(500), 1000), null);
        assertThat(readUntilClosed(connect(), Duration.ofSeconds(4), () -> {})).isEmpty();
    }

    @Test
    void connectionsPastTheCapAreClosedAtOnceAndHealthAnswersOnceTheyGo() throws Exception {
        int cap = 4;
        start(new ApiLimits(cap, Duration.ofSeconds(30), Duration.ofSeconds(30), 1000), null);
        List<Socket> held = new ArrayList<>();
        for (int i = 0; i < cap + 3; i++) {
            Socket s = connect();
            // half a request, as a client holding connections would send
            s.getOutputStream().write("GET /health HTTP/1.1\r\n".getBytes(StandardCharsets.US_ASCII));
            held.add(s);
            Thread.sleep(20);
        }
        int closed = 0;
        for (Socket s : held) {
            if (readUntilClosed(s, Duration.ofMillis(500), () -> {}) != null) {
                closed++;
            }
        }
        assertThat(closed).isEqualTo(3);
        assertThat(metrics.apiConnectionsRefused()).isEqualTo(3);
        for (Socket s : held) {
            s.close();
        }
        String health = null;
        for (int i = 0; i < 50 && (health == null || !health.startsWith("HTTP/1.1 200")); i++) {
            Thread.sleep(20);
            health = get("/health", localhost(), null);
        }
        assertThat(health).startsWith("HTTP/1.1 200");
        // 3, or more if a retry above came before the server had seen the held connections close
        assertThat(get("/metrics", localhost(), null))
                .containsPattern("\nchorus_api_connections_refused_total [1-9]\\d*\n");
    }

    @Test
    void requestsPastTheRateGet429ButTheProbesStillAnswer() throws IOException {
        start(new ApiLimits(8, Duration.ofSeconds(30), Duration.ofSeconds(30), 5), null);
        int answered = 0;
        String refused = null;
        for (int i = 0; i < 8 && refused == null; i++) {
            String reply = get("/api/status", localhost(), null);
            if (reply.startsWith("HTTP/1.1 200")) {
                answered++;
            } else {
                refused = reply;
            }
        }
        // 5 at once, and perhaps one more refilled while they were answered
        assertThat(answered).isBetween(5, 6);
        assertThat(refused).startsWith("HTTP/1.1 429").contains("Retry-After: 1");
        assertThat(get("/health", localhost(), null)).startsWith("HTTP/1.1 200");
        assertThat(get("/ready", localhost(), null)).startsWith("HTTP/1.1 200");
    }

    @Test
    void onlyAllowedHostNamesAreAnswered() throws IOException {
        start(ApiLimits.DEFAULTS, null);
        assertThat(get("/api/status", "evil.example", null))
                .startsWith("HTTP/1.1 421")
                .contains("Host 'evil.example' is not in api.allowed_hosts");
        assertThat(get("/api/status", "evil.example:" + server.port(), null)).startsWith("HTTP/1.1 421");
        assertThat(get("/health", "localhost.evil.example", null)).startsWith("HTTP/1.1 421");
        assertThat(request("GET /health HTTP/1.0\r\n"))
                .startsWith("HTTP/1.0 421")
                .contains("Host missing");
        assertThat(get("/api/status", localhost(), null)).startsWith("HTTP/1.1 200");
        assertThat(get("/api/status", "127.0.0.1:" + server.port(), null)).startsWith("HTTP/1.1 200");
        assertThat(get("/api/status", "[::1]:" + server.port(), null)).startsWith("HTTP/1.1 200");
        assertThat(get("/api/status", "LOCALHOST", null)).startsWith("HTTP/1.1 200");
    }

    @Test
    void h2cIsRefused() throws IOException {
        start(ApiLimits.DEFAULTS, null);
        String upgrade = request("GET /health HTTP/1.1\r\nHost: localhost\r\nConnection: Upgrade, HTTP2-Settings\r\n"
                + "Upgrade: h2c\r\nHTTP2-Settings: AAMAAABkAAQAAP__\r\n");
        assertThat(upgrade).startsWith("HTTP/1.1 200").doesNotContain("101 Switching");
        // HTTP/2 with prior knowledge: the preface is read as an HTTP/1 request with an unknown method and version,
        // and refused in text (an HTTP/2 server would answer with a binary SETTINGS frame).
        Socket s = connect();
        s.getOutputStream().write("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
        String reply = readUntilClosed(s, Duration.ofSeconds(5), () -> {});
        assertThat(reply).isNotNull();
        assertThat(reply.isEmpty() || reply.matches("(?s)HTTP/\\S+ [45]\\d\\d .*"))
                .as(reply)
                .isTrue();
    }

    @Test
    void largeBodiesGet413() throws IOException {
        start(ApiLimits.DEFAULTS, null);
        assertThat(request("POST /api/status HTTP/1.1\r\nHost: localhost\r\nContent-Length: 100000\r\n"))
                .startsWith("HTTP/1.1 413");
        assertThat(request("POST /api/status HTTP/1.1\r\nHost: localhost\r\nTransfer-Encoding: chunked\r\n"))
                .startsWith("HTTP/1.1 413");
    }

    @Test
    void theTokenIsRequiredExceptOnTheProbes() throws IOException {
        start(ApiLimits.DEFAULTS, ApiToken.of(TOKEN));
        String h = localhost();
        assertThat(get("/api/status", h, null)).startsWith("HTTP/1.1 401").contains("WWW-Authenticate: Bearer");
        assertThat(get("/metrics", h, null)).startsWith("HTTP/1.1 401");
        assertThat(get("/api/peers", h, "Bearer " + TOKEN.substring(1))).startsWith("HTTP/1.1 401");
        assertThat(get("/api/peers", h, "Bearer " + TOKEN + "0")).startsWith("HTTP/1.1 401");
        assertThat(get("/api/peers", h, "Basic " + TOKEN)).startsWith("HTTP/1.1 401");
        assertThat(get("/api/status", h, "Bearer " + TOKEN)).startsWith("HTTP/1.1 200");
        assertThat(get("/metrics", h, "Bearer " + TOKEN)).startsWith("HTTP/1.1 200");
        assertThat(get("/health", h, null)).startsWith("HTTP/1.1 200");
        assertThat(get("/ready", h, null)).startsWith("HTTP/1.1 200");
        assertThat(get("/", h, null)).startsWith("HTTP/1.1 200");
        assertThat(get("/dashboard.js", h, null)).startsWith("HTTP/1.1 200");
        // The Host check comes first: a rebinding page learns nothing, not even whether a token is needed.
        assertThat(get("/api/status", "evil.example", "Bearer " + TOKEN)).startsWith("HTTP/1.1 421");
    }

    @Test
    void theTokenFileIsCreatedOwnerOnlyAndReadBack() throws IOException {
        Path file = dir.resolve("api.token");
        ApiToken created = ApiToken.loadOrCreate(file);
        String text = Files.readString(file).strip();
        assertThat(text).matches("[0-9a-f]{64}");
        if (Files.getFileStore(file).supportsFileAttributeView("posix")) {
            assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(file)))
                    .isEqualTo("rw-------");
        }
        assertThat(created.matches("Bearer " + text)).isTrue();
        assertThat(ApiToken.loadOrCreate(file).matches("Bearer " + text)).isTrue();
        assertThat(created.matches(null)).isFalse();
        assertThatThrownBy(() -> ApiToken.create(file)).isInstanceOf(java.nio.file.FileAlreadyExistsException.class);
        Path shortToken = dir.resolve("short.token");
        Files.writeString(shortToken, "secret\n");
        assertThatThrownBy(() -> ApiToken.loadOrCreate(shortToken))
                .isInstanceOf(IOException.class)
                .hasMessageContaining("at least 32 characters");
    }

    @Test
    void hostNamesLoseTheirPort() {
        assertThat(RequestGuard.hostName("LocalHost:8080")).isEqualTo("localhost");
        assertThat(RequestGuard.hostName("[::1]:7465")).isEqualTo("[::1]");
        assertThat(RequestGuard.hostName("node.example.")).isEqualTo("node.example");
        assertThat(RequestGuard.hostName(" ")).isNull();
        assertThat(RequestGuard.hostName(null)).isNull();
    }
}
