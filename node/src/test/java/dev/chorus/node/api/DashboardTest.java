package dev.chorus.node.api;

import static org.assertj.core.api.Assertions.assertThat;

import dev.chorus.node.announce.ConsortiumMembers;
import dev.chorus.node.announce.ModelAnnouncement;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.InstantSource;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The dashboard in a real browser (Debian's Chromium, headless): the page shows what the API says, draws the
 * evaluation history, and shows markup that peers control (an address, an announced metric's name) as text. Skipped
 * on a machine without Chromium, except under CI, where .ci/run installs it and its absence is a failure.
 */
class DashboardTest {

    /** Markup a peer could send: it must reach the page as text, never as an element. */
    static final String HOSTILE = "<img/src=x/onerror=alert(1)>";

    static final class HostileView extends ApiServerTest.FixedView {
        @Override
        public List<PeerInfo> peers() {
            return List.of(new PeerInfo("12D3KooWOther", HOSTILE, "inbound", Instant.parse("2025-01-01T00:00:00Z")));
        }

        @Override
        public Map<String, dev.chorus.node.averaging.AveragingEngine.PeerTiming> peerTimings() {
            return Map.of("12D3KooWOther", new dev.chorus.node.averaging.AveragingEngine.PeerTiming(2.5, true));
        }

        @Override
        public dev.chorus.node.membership.Membership membership() {
            return membership;
        }

        @Override
        public List<ConsortiumMembers.Member> members() {
            ModelAnnouncement a = new ModelAnnouncement(
                    "12D3KooWOther", new byte[32], 42, 300, new byte[32], 1_700_000_000_000L, Map.of(HOSTILE, 0.5));
            return List.of(new ConsortiumMembers.Member(a, Instant.parse("2025-01-01T00:00:01Z")));
        }
    }

    static ApiServer server;
    static NodeMetrics metrics;
    static HttpClient client;
    /** A real membership: one member of another institution admitted, one outsider refused. */
    static dev.chorus.node.membership.Membership membership;

    static final java.util.List<AutoCloseable> network = new java.util.ArrayList<>();

    /**
     * This node's membership after a member of Hospital B was admitted and a peer with a certificate from a CA
     * outside the roster, whose organisation is markup, was refused: the refusal's detail names that CA.
     */
    static void admitOneRefuseOne() throws Exception {
        var consortium = new dev.chorus.node.membership.Consortium();
        var hostileCa =
                dev.chorus.privacy.membership.CertificateAuthority.create(HOSTILE, java.time.Duration.ofDays(365));
        var self = dev.chorus.gossip.identity.PrivateKey.generate();
        membership = consortium.membership(
                self,
                dev.chorus.node.membership.Consortium.issue(
                        consortium.hospitalA, self, dev.chorus.privacy.membership.Role.MEMBER),
                java.util.Set.of());
        network.add(membership);
        var a = host(self, membership.gate());
        var bKey = dev.chorus.gossip.identity.PrivateKey.generate();
        var b = consortium.membership(
                bKey,
                dev.chorus.node.membership.Consortium.issue(
                        consortium.hospitalB, bKey, dev.chorus.privacy.membership.Role.MEMBER),
                java.util.Set.of());
        network.add(b);
        host(bKey, b.gate()).connect(a.listenAddrs().get(0)).get(10, TimeUnit.SECONDS);
        var xKey = dev.chorus.gossip.identity.PrivateKey.generate();
        var outsider = host(
                xKey,
                dev.chorus.node.membership.Consortium.presentOnly(dev.chorus.node.membership.Consortium.issue(
                        hostileCa, xKey, dev.chorus.privacy.membership.Role.MEMBER)));
        try {
            outsider.connect(a.listenAddrs().get(0)).get(10, TimeUnit.SECONDS);
        } catch (java.util.concurrent.ExecutionException expected) {
            // refused: what the dashboard shows
        }
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (membership.gate().recentRefusals().isEmpty()
                || membership.gate().admitted().isEmpty()) {
            assertThat(System.nanoTime()).as("an admission and a refusal").isLessThan(deadline);
            Thread.sleep(20);
        }
    }

    private static dev.chorus.gossip.host.Host host(
            dev.chorus.gossip.identity.PrivateKey key, dev.chorus.gossip.host.ConnectionGate gate) {
        var h = dev.chorus.gossip.host.Host.start(
                        dev.chorus.gossip.host.HostConfig.defaults(key)
                                .withListenAddrs(
                                        List.of(dev.chorus.gossip.multiaddr.Multiaddr.parse("/ip4/127.0.0.1/tcp/0"))),
                        gate)
                .join();
        network.add(h);
        return h;
    }

    @BeforeAll
    static void start() throws Exception {
        admitOneRefuseOne();
        AtomicLong millis = new AtomicLong(1_700_000_000_000L);
        InstantSource clock = () -> Instant.ofEpochMilli(millis.get());
        metrics = new NodeMetrics(clock);
        long t = System.nanoTime();
        for (int i = 1; i <= 5; i++) {
            metrics.recordStep(i, 0.5f, t + i * 10_000_000L);
        }
        double[] accuracy = {0.5, 0.7, 0.8, 0.85, 0.9};
        for (double a : accuracy) {
            metrics.recordEvaluation(a, 1 - a, 0.95);
            millis.addAndGet(30_000);
        }
        metrics.bindAveraging(() -> new AveragingCounters(
                7,
                new AveragingCounters.Exchanges(6, 1, 3, 11),
                new AveragingCounters.Updates(9, 8, 1, 0, 0),
                new AveragingCounters.Waits(0.25, 1.5, 2),
                2.5));
        server = ApiServer.start("127.0.0.1", 0, new HostileView(), metrics);
        client = HttpClient.newHttpClient();
    }

    @AfterAll
    static void stop() throws Exception {
        client.close();
        server.close();
        for (int i = network.size() - 1; i >= 0; i--) {
            network.get(i).close();
        }
    }

    private static HttpResponse<String> get(String path) throws IOException, InterruptedException {
        return client.send(
                HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + server.port() + path))
                        .build(),
                HttpResponse.BodyHandlers.ofString());
    }

    @Test
    void theFilesAreServedWithTheirTypesAndAPolicyThatAllowsOnlyThisOrigin() throws Exception {
        Map<String, String> types = Map.of(
                "/", "text/html; charset=utf-8",
                "/dashboard.js", "text/javascript; charset=utf-8",
                "/dashboard.css", "text/css; charset=utf-8");
        for (var e : types.entrySet()) {
            HttpResponse<String> r = get(e.getKey());
            assertThat(r.statusCode()).as(e.getKey()).isEqualTo(200);
            assertThat(r.headers().firstValue("Content-Type")).hasValue(e.getValue());
            assertThat(r.headers().firstValue("X-Content-Type-Options")).hasValue("nosniff");
            assertThat(r.headers().firstValue("Content-Security-Policy").orElseThrow())
                    .contains("default-src 'none'", "script-src 'self'", "connect-src 'self'")
                    .doesNotContain("unsafe-inline", "unsafe-eval");
        }
        assertThat(get("/").body()).contains("<script src=\"/dashboard.js\" defer></script>");
        assertThat(get("/dashboard.html").statusCode()).as("only at /").isEqualTo(404);
        HttpResponse<String> post = client.send(
                HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + server.port() + "/"))
                        .POST(HttpRequest.BodyPublishers.ofString("x"))
                        .build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(post.statusCode()).isEqualTo(405);
    }

    @Test
    void aBrowserShowsTheNodeAndPeersMarkupAsText(@TempDir Path profile) throws Exception {
        Path chromium = Path.of("/usr/bin/chromium");
        // Skipped where Chromium is absent; .ci/run installs it and stops when it cannot.
        Assumptions.assumeTrue(Files.isExecutable(chromium), "Chromium is not installed at " + chromium);
        String dom = dumpDom(chromium, profile, "http://127.0.0.1:" + server.port() + "/");

        assertThat(text(dom, "node-id")).isEqualTo("12D3KooWTestPeer");
        assertThat(text(dom, "listen-addrs")).isEqualTo("/ip4/127.0.0.1/tcp/4001/p2p/12D3KooWTestPeer");
        assertThat(text(dom, "consortium")).isEqualTo("hospitals \"north\"");
        assertThat(text(dom, "state")).isEqualTo("training");
        assertThat(text(dom, "version")).isEqualTo("5");
        assertThat(text(dom, "accuracy")).isEqualTo("0.9000");
        assertThat(text(dom, "peer-count")).isEqualTo("1");
        assertThat(text(dom, "member-count")).isEqualTo("1");
        assertThat(dom).contains("<td>models merged</td><td>8</td>").contains("<td>pulls given up</td><td>3</td>");
        // One point per evaluation, left to right, the last (0.9) highest.
        Matcher line =
                Pattern.compile("<polyline class=\"line\" points=\"([^\"]*)\"").matcher(dom);
        assertThat(line.find()).as(dom).isTrue();
        String[] points = line.group(1).split(" ");
        assertThat(points).hasSize(5);
        assertThat(Double.parseDouble(points[0].split(",")[0]))
                .isLessThan(Double.parseDouble(points[4].split(",")[0]));
        assertThat(Double.parseDouble(points[4].split(",")[1]))
                .isLessThan(Double.parseDouble(points[0].split(",")[1]));
        assertThat(text(dom, "chart-note")).isEqualTo("5 evaluations; latest accuracy 0.9000");
        // The peer's address and its announced metric name, as text.
        assertThat(dom)
                .contains("<td>&lt;img/src=x/onerror=alert(1)&gt;</td>")
                .contains("&lt;img/src=x/onerror=alert(1)&gt; 0.5000")
                .doesNotContain("<img");
        assertThat(text(dom, "banner")).isEmpty();
        assertThat(dom).contains("<td>2.5 s (slow: left out of 9 rounds in 10)</td>");
        // Membership: the roster, the admitted member of Hospital B, and the refused outsider, whose CA's
        // organisation (markup) reaches the page as text.
        assertThat(text(dom, "membership-note"))
                .startsWith("enforced: Hospital A, Hospital B on the roster; this node is a member of Hospital A")
                .endsWith("refused: unknown-ca 1");
        assertThat(dom).contains("<td>Hospital B</td><td>member</td>").contains("<td>unknown-ca</td>");
        assertThat(dom)
                .contains("&lt;img/src\\=x/onerror\\=alert(1)\\&gt; is not a roster CA</td>")
                .doesNotContain("<img");
    }

    @Test
    void withATokenThePageReadsItFromTheFragmentAndSendsItOnEveryRequest(@TempDir Path profile) throws Exception {
        Path chromium = Path.of("/usr/bin/chromium");
        Assumptions.assumeTrue(Files.isExecutable(chromium), "Chromium is not installed at " + chromium);
        String token = "f".repeat(32) + "0123456789abcdef0123456789abcdef";
        try (ApiServer guarded = ApiServer.start(
                "127.0.0.1",
                0,
                ApiLimits.DEFAULTS,
                new ApiAccess(ApiAccess.LOOPBACK.allowedHosts(), ApiToken.of(token)),
                new HostileView(),
                metrics)) {
            String base = "http://127.0.0.1:" + guarded.port() + "/";
            String without = dumpDom(chromium, profile.resolve("without"), base);
            assertThat(text(without, "state")).isEqualTo("unreachable");
            assertThat(text(without, "banner")).contains("needs the API token: open this page as /#token=TOKEN");
            String with = dumpDom(chromium, profile.resolve("with"), base + "#token=" + token);
            assertThat(text(with, "node-id")).isEqualTo("12D3KooWTestPeer");
            assertThat(text(with, "state")).isEqualTo("training");
            assertThat(text(with, "chart-note")).isEqualTo("5 evaluations; latest accuracy 0.9000");
            assertThat(text(with, "banner")).isEmpty();
            String wrong = dumpDom(chromium, profile.resolve("wrong"), base + "#token=" + "0".repeat(64));
            assertThat(text(wrong, "state")).isEqualTo("unreachable");
        }
    }

    /** The text of the element with {@code id} in a dumped DOM (no nested elements expected). */
    private static String text(String dom, String id) {
        Matcher m = Pattern.compile("id=\"" + id + "\"[^>]*>([^<]*)<").matcher(dom);
        assertThat(m.find()).as("element %s in %s", id, dom).isTrue();
        return m.group(1).replace("&quot;", "\"").replace("&amp;", "&");
    }

    /** Loads {@code url} in headless Chromium, lets its scripts run their first refreshes, and returns the DOM. */
    private static String dumpDom(Path chromium, Path profile, String url) throws Exception {
        Files.createDirectories(profile);
        Path out = profile.resolve("dom.html");
        Process p = new ProcessBuilder(
                        chromium.toString(),
                        "--headless",
                        "--no-sandbox",
                        "--disable-gpu",
                        "--disable-dev-shm-usage",
                        "--no-first-run",
                        "--user-data-dir=" + profile.resolve("user"),
                        "--virtual-time-budget=5000",
                        "--dump-dom",
                        url)
                .redirectOutput(out.toFile())
                .redirectError(profile.resolve("stderr.txt").toFile())
                .start();
        try {
            assertThat(p.waitFor(90, TimeUnit.SECONDS)).as("Chromium finished").isTrue();
        } finally {
            p.descendants().forEach(ProcessHandle::destroyForcibly);
            p.destroyForcibly();
        }
        assertThat(p.exitValue())
                .as(Files.readString(profile.resolve("stderr.txt")))
                .isZero();
        return Files.readString(out, StandardCharsets.UTF_8);
    }
}
