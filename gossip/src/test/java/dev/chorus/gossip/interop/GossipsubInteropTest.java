package dev.chorus.gossip.interop;

import static org.assertj.core.api.Assertions.assertThat;

import dev.chorus.gossip.host.Host;
import dev.chorus.gossip.host.HostConfig;
import dev.chorus.gossip.identity.PeerId;
import dev.chorus.gossip.identity.PrivateKey;
import dev.chorus.gossip.multiaddr.Multiaddr;
import dev.chorus.gossip.pubsub.Pubsub;
import dev.chorus.gossip.pubsub.PubsubConfig;
import dev.chorus.gossip.pubsub.PubsubMessage;
import dev.chorus.gossip.pubsub.SignaturePolicy;
import dev.chorus.testsupport.TestLog;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A mesh of 3 Java nodes and 3 js-libp2p gossipsub nodes ({@code src/test/js/gossip-peer.js},
 * {@code @chainsafe/libp2p-gossipsub} 14.1.2): messages published on either side reach every node with
 * signatures verified by both, and over two minutes js's scoring keeps the Java nodes above its
 * graylist threshold. Skipped, with instructions, when Node.js or the js packages are missing.
 */
class GossipsubInteropTest {
    static final String TOPIC = "chorus/interop/announce";
    /** js-libp2p-gossipsub's default graylist threshold. */
    static final double JS_GRAYLIST_THRESHOLD = -80;

    /** One js gossipsub node: every event line is collected, commands await their reply. */
    static final class JsNode implements AutoCloseable {
        final JsPeer peer;
        final List<String> events = new CopyOnWriteArrayList<>();
        final Thread pump;
        PeerId id;
        Multiaddr addr;
        volatile boolean stopped;

        JsNode(JsPeer peer) {
            this.peer = peer;
            this.pump = Thread.ofPlatform().daemon().name("js-gossip-events").start(() -> {
                while (!stopped) {
                    try {
                        String line = peer.next(200);
                        if (line != null) {
                            events.add(line);
                        }
                    } catch (InterruptedException e) {
                        return;
                    }
                }
            });
        }

        String request(String json, String type, long timeoutSeconds) throws Exception {
            int from = events.size();
            peer.send(json);
            return await(type, from, timeoutSeconds);
        }

        String await(String type, int from, long timeoutSeconds) throws InterruptedException {
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(timeoutSeconds);
            while (System.nanoTime() < deadline) {
                for (int i = from; i < events.size(); i++) {
                    String e = events.get(i);
                    String ev = JsPeer.field(e, "event");
                    if (type.equals(ev)) {
                        return e;
                    }
                    if ("error".equals(ev)) {
                        throw new AssertionError("js peer reported: " + e);
                    }
                }
                Thread.sleep(20);
            }
            throw new AssertionError(
                    "no '" + type + "' event within " + timeoutSeconds + " s; stderr:\n" + peer.stderr());
        }

        List<String> messages() {
            return events.stream()
                    .filter(e -> "message".equals(JsPeer.field(e, "event")))
                    .toList();
        }

        @Override
        public void close() throws InterruptedException {
            stopped = true;
            peer.close();
            pump.join(2000);
        }
    }

    private final List<JsNode> js = new ArrayList<>();
    private final List<Host> hosts = new ArrayList<>();
    private final List<Pubsub> pubsubs = new ArrayList<>();
    private final Map<PeerId, List<PubsubMessage>> javaReceived = new ConcurrentHashMap<>();

    @BeforeEach
    void available() {
        JsPeer.assumeAvailable();
    }

    @AfterEach
    void stop() throws Exception {
        for (Pubsub p : pubsubs) {
            p.close();
        }
        for (Host h : hosts) {
            h.close();
        }
        for (JsNode n : js) {
            n.close();
        }
    }

    private void startMesh() throws Exception {
        for (int i = 0; i < 3; i++) {
            JsNode n = new JsNode(JsPeer.start("gossip-peer.js", Map.of("CHORUS_SCORED_TOPICS", TOPIC)));
            js.add(n);
            String listening = n.await("listening", 0, 60);
            n.id = PeerId.parse(JsPeer.field(listening, "peerId"));
            n.addr = Multiaddr.parse(JsPeer.array(listening, "addrs").get(0));
            n.request("{\"cmd\":\"subscribe\",\"topic\":\"" + TOPIC + "\"}", "subscribed", 10);
        }
        for (int i = 0; i < 3; i++) {
            Host h = Host.start(HostConfig.defaults(PrivateKey.generate())
                            .withListenAddrs(List.of(Multiaddr.parse("/ip4/127.0.0.1/tcp/0")))
                            .withGracePeriod(Duration.ofMillis(300)))
                    .join();
            hosts.add(h);
            Pubsub p = Pubsub.start(h, PubsubConfig.defaults());
            pubsubs.add(p);
            List<PubsubMessage> got = new CopyOnWriteArrayList<>();
            javaReceived.put(h.peerId(), got);
            p.subscribe(TOPIC, (m, id, from) -> got.add(m));
        }
        // Java-Java, Java dials js, js dials Java, js-js: every kind of link is in the mesh.
        hosts.get(0).connect(hosts.get(1).listenAddrs().get(0)).get(10, TimeUnit.SECONDS);
        hosts.get(1).connect(hosts.get(2).listenAddrs().get(0)).get(10, TimeUnit.SECONDS);
        for (int i = 0; i < 3; i++) {
            hosts.get(i).connect(js.get(i).addr).get(10, TimeUnit.SECONDS);
            js.get(i).request(dial(hosts.get((i + 1) % 3).listenAddrs().get(0)), "dialed", 20);
        }
        js.get(0).request(dial(js.get(1).addr), "dialed", 20);
        js.get(1).request(dial(js.get(2).addr), "dialed", 20);

        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (true) {
            boolean ready = true;
            for (Pubsub p : pubsubs) {
                ready &= p.meshPeers(TOPIC).join().size() >= 2;
            }
            for (JsNode n : js) {
                String mesh = n.request("{\"cmd\":\"mesh\",\"topic\":\"" + TOPIC + "\"}", "mesh", 10);
                ready &= JsPeer.array(mesh, "peers").size() >= 2;
            }
            if (ready) {
                break;
            }
            assertThat(System.nanoTime()).as("meshes formed within 30 s").isLessThan(deadline);
            Thread.sleep(250);
        }
    }

    private static String dial(Multiaddr a) {
        return "{\"cmd\":\"dial\",\"addr\":\"" + a + "\"}";
    }

    /** Every node publishes {@code perNode} messages, tagged with the round; returns the payloads in hex. */
    private List<String> publishRound(int round, int perNode) throws Exception {
        List<String> payloads = new ArrayList<>();
        for (int k = 0; k < perNode; k++) {
            for (int i = 0; i < 3; i++) {
                byte[] data = ("java-" + i + "-r" + round + "-" + k).getBytes(java.nio.charset.StandardCharsets.UTF_8);
                pubsubs.get(i).publish(TOPIC, data).get(10, TimeUnit.SECONDS);
                payloads.add(HexFormat.of().formatHex(data));
                String jsData = HexFormat.of()
                        .formatHex(
                                ("js-" + i + "-r" + round + "-" + k).getBytes(java.nio.charset.StandardCharsets.UTF_8));
                js.get(i)
                        .request(
                                "{\"cmd\":\"publish\",\"topic\":\"" + TOPIC + "\",\"dataHex\":\"" + jsData + "\"}",
                                "published",
                                10);
                payloads.add(jsData);
            }
        }
        return payloads;
    }

    /** Waits until every node has every payload it did not publish itself, then checks the details. */
    private void assertEveryoneReceived(List<String> payloads) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (true) {
            int missing = 0;
            for (int i = 0; i < 3; i++) {
                Set<String> atJava = javaPayloads(hosts.get(i).peerId());
                Set<String> atJs = jsPayloads(js.get(i));
                for (String p : payloads) {
                    String own = new String(HexFormat.of().parseHex(p), java.nio.charset.StandardCharsets.UTF_8);
                    if (!own.startsWith("java-" + i + "-") && !atJava.contains(p)) {
                        missing++;
                    }
                    if (!own.startsWith("js-" + i + "-") && !atJs.contains(p)) {
                        missing++;
                    }
                }
            }
            if (missing == 0) {
                break;
            }
            assertThat(System.nanoTime())
                    .as(missing + " deliveries missing after 30 s")
                    .isLessThan(deadline);
            Thread.sleep(100);
        }
        Set<PeerId> jsIds = Set.of(js.get(0).id, js.get(1).id, js.get(2).id);
        for (List<PubsubMessage> got : javaReceived.values()) {
            for (PubsubMessage m : got) {
                // The router checked it already; check again that js's signatures verify here.
                assertThat(SignaturePolicy.STRICT_SIGN.check(m)).isNull();
                assertThat(m.seqno()).hasSize(8);
                String text = new String(m.data(), java.nio.charset.StandardCharsets.UTF_8);
                if (text.startsWith("js-")) {
                    assertThat(jsIds).contains(m.author());
                }
            }
        }
        Set<String> javaIds = Set.of(
                hosts.get(0).peerId().toBase58(),
                hosts.get(1).peerId().toBase58(),
                hosts.get(2).peerId().toBase58());
        for (JsNode n : js) {
            for (String m : n.messages()) {
                // js only emits messages whose StrictSign signature it verified.
                assertThat(JsPeer.field(m, "signed")).isEqualTo("true");
                String text = new String(
                        HexFormat.of().parseHex(JsPeer.field(m, "dataHex")), java.nio.charset.StandardCharsets.UTF_8);
                if (text.startsWith("java-")) {
                    assertThat(javaIds).contains(JsPeer.field(m, "from"));
                    assertThat(JsPeer.field(m, "seqno")).hasSize(16);
                }
            }
        }
    }

    private Set<String> javaPayloads(PeerId id) {
        Set<String> out = new java.util.HashSet<>();
        for (PubsubMessage m : javaReceived.get(id)) {
            out.add(HexFormat.of().formatHex(m.data()));
        }
        return out;
    }

    private static Set<String> jsPayloads(JsNode n) {
        Set<String> out = new java.util.HashSet<>();
        for (String m : n.messages()) {
            out.add(JsPeer.field(m, "dataHex"));
        }
        return out;
    }

    /** js's scores of the three Java nodes, from each js node that is connected to them. */
    private List<Double> jsScoresOfJava() throws Exception {
        List<Double> out = new ArrayList<>();
        for (JsNode n : js) {
            String scores = n.request("{\"cmd\":\"scores\"}", "scores", 10);
            for (Host h : hosts) {
                Matcher m = Pattern.compile("\"" + h.peerId().toBase58() + "\":(-?[0-9.eE+-]+)")
                        .matcher(scores);
                if (m.find()) {
                    out.add(Double.parseDouble(m.group(1)));
                }
            }
        }
        return out;
    }

    @Test
    @Timeout(value = 180, unit = TimeUnit.SECONDS)
    void messagesFromEitherSideReachEveryNode() throws Exception {
        startMesh();
        List<String> payloads = publishRound(0, 2);
        assertEveryoneReceived(payloads);
        List<Double> scores = jsScoresOfJava();
        TestLog.figures("js scores of the Java nodes: " + scores);
        assertThat(scores).hasSizeGreaterThanOrEqualTo(6).allSatisfy(s -> assertThat(s)
                .isGreaterThan(JS_GRAYLIST_THRESHOLD));
        for (Pubsub p : pubsubs) {
            for (JsNode n : js) {
                double s = p.score(n.id).join();
                assertThat(s).as("Java's score of a js peer").isGreaterThanOrEqualTo(0);
            }
            assertThat(p.stats().join().messages().signatureRejections()).isZero();
        }
    }

    /** Two minutes of traffic: js never graylists a Java node (run alone with -Dgroups=long). */
    @Test
    @Tag("long")
    @Timeout(value = 300, unit = TimeUnit.SECONDS)
    void jsScoringDoesNotGraylistJavaNodesOverTwoMinutes() throws Exception {
        startMesh();
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
        double min = Double.MAX_VALUE, max = -Double.MAX_VALUE;
        int round = 0;
        List<String> all = new ArrayList<>();
        while (System.nanoTime() < end) {
            all.addAll(publishRound(++round, 1));
            if (round % 10 == 0) {
                List<Double> scores = jsScoresOfJava();
                for (double s : scores) {
                    min = Math.min(min, s);
                    max = Math.max(max, s);
                }
                assertThat(scores).allSatisfy(s -> assertThat(s).isGreaterThan(JS_GRAYLIST_THRESHOLD));
            }
            Thread.sleep(1000);
        }
        assertEveryoneReceived(all);
        List<Double> last = jsScoresOfJava();
        TestLog.figures(
                "over 120 s and %d rounds (%d messages): js scores of Java nodes stayed in [%.2f, %.2f]; final %s%n",
                round, all.size(), min, max, last);
        assertThat(last).hasSizeGreaterThanOrEqualTo(6).allSatisfy(s -> assertThat(s)
                .isGreaterThan(JS_GRAYLIST_THRESHOLD));
        for (Pubsub p : pubsubs) {
            TestLog.figures("Java node stats: " + p.stats().join());
        }
    }
}
