package dev.chorus.node.daemon;

import static dev.chorus.node.daemon.NodeDaemonTest.waitFor;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.chorus.node.NodeTestDirs;
import dev.chorus.node.config.ConfigException;
import dev.chorus.node.config.ConfigLoader;
import dev.chorus.node.config.NodeConfig;
import dev.chorus.testsupport.TestLog;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Two averaging daemons on loopback, one bootstrapped to the other. When the bootstrap peer stops and starts again
 * on its port, the other node redials it, is connected again and exchanges models again; a node that restarts on
 * its data directory rejoins through its bootstrap peer and exchanges too.
 */
class NodeDaemonReconnectTest {

    @TempDir
    Path dir;

    private final List<NodeDaemon> started = new ArrayList<>();
    private final HttpClient http = HttpClient.newHttpClient();

    @AfterEach
    void stopAll() {
        started.forEach(NodeDaemon::close);
        http.close();
    }

    private static final List<String> AVERAGING = List.of(
            "training.pause_ms=5",
            "checkpoint.every_steps=1000",
            "averaging.strategy=async",
            "averaging.every_steps=2",
            "averaging.announce_every_seconds=0.3");

    private NodeDaemon start(Path yaml, List<String> extra) {
        List<String> overrides = new ArrayList<>(AVERAGING);
        overrides.addAll(extra);
        NodeDaemon d = NodeDaemon.start(ConfigLoader.load(yaml, overrides));
        started.add(d);
        return d;
    }

    private static long merged(NodeDaemon d) {
        return d.metrics().averaging().updates().merged();
    }

    private static long sent(NodeDaemon d) {
        return d.metrics().averaging().exchanges().sent();
    }

    @Test
    void aNodeWhoseBootstrapPeerRestartsReconnectsAndExchangesAgain() throws Exception {
        Path yamlA = NodeTestDirs.create(dir.resolve("a"), "");
        Path yamlB = NodeTestDirs.create(dir.resolve("b"), "");
        NodeDaemon a = start(yamlA, List.of());
        String addrA = a.listenAddrs().getFirst();
        String listenA = addrA.substring(0, addrA.indexOf("/p2p/"));
        List<String> toA = List.of("network.bootstrap=[\"" + addrA + "\"]");
        NodeDaemon b = start(yamlB, toA);
        waitFor("b exchanging with a", Duration.ofSeconds(60), () -> b.peers().size() == 1 && merged(b) > 0);
        assertThat(b.redials()).isZero();

        // a stops: b is alone, and keeps redialing it.
        a.close();
        waitFor("b alone", Duration.ofSeconds(30), () -> b.peers().isEmpty() && b.knownDisconnectedPeers() == 1);
        waitFor("a redial of a", Duration.ofSeconds(30), () -> b.redials() >= 1);
        long mergedBefore = merged(b);
        long sentBefore = sent(b);

        // a starts again on its port, from its data directory: b reconnects and the exchanges resume.
        NodeDaemon a2 = start(yamlA, List.of("network.listen=[\"" + listenA + "\"]"));
        assertThat(a2.peerId()).isEqualTo(a.peerId());
        waitFor(
                "b exchanging with a again",
                Duration.ofSeconds(60),
                () -> b.peers().size() == 1 && merged(b) > mergedBefore + 2 && sent(b) > sentBefore + 2);
        waitFor("no peer left to redial", Duration.ofSeconds(30), () -> b.knownDisconnectedPeers() == 0);
        TestLog.figures(
                "b: %d redials, merged %d before a restarted and %d after%n", b.redials(), mergedBefore, merged(b));

        Map<String, Object> status = get(b, "/api/status");
        assertThat((Long) status.get("redials")).isPositive();
        assertThat(status.get("knownDisconnectedPeers")).isEqualTo(0L);
        String metrics = text(b, "/metrics");
        assertThat(metrics).contains("chorus_peer_redials_total ").contains("chorus_known_disconnected_peers 0");

        // b restarts from its data directory: it rejoins through its bootstrap peer and exchanges again.
        long a2Merged = merged(a2);
        b.close();
        NodeDaemon b2 = start(yamlB, toA);
        assertThat(b2.peerId()).isEqualTo(b.peerId());
        waitFor(
                "the restarted b exchanging with a",
                Duration.ofSeconds(60),
                () -> b2.peers().size() == 1 && merged(b2) > 0 && merged(a2) > a2Merged);
    }

    @Test
    void targetPeersIsValidated() throws Exception {
        Path yaml = NodeTestDirs.create(dir, "");
        NodeConfig config = ConfigLoader.load(yaml, List.of("network.target_peers=3"));
        assertThat(config.network().targetPeers()).isEqualTo(3);
        assertThat(ConfigLoader.load(yaml, List.of()).network().targetPeers()).isEqualTo(8);
        assertThatThrownBy(() -> ConfigLoader.load(yaml, List.of("network.target_peers=-1")))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("network.target_peers")
                .hasMessageContaining("at least 0");
        assertThatThrownBy(() -> ConfigLoader.load(yaml, List.of("network.target_peers=257")))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("network.target_peers")
                .hasMessageContaining("at most 256");
    }

    @Test
    void dialFailuresAreSummedUpByKindNotByAddress() {
        assertThat(NodeDaemon.dialFailureKind(new java.net.ConnectException("Connection refused: /127.0.0.1:4001")))
                .isEqualTo(
                        NodeDaemon.dialFailureKind(new java.net.ConnectException("Connection refused: /10.0.0.2:4001")))
                .isEqualTo("connection refused");
        assertThat(NodeDaemon.dialFailureKind(
                        new dev.chorus.gossip.host.ConnectionRefusedException("unknown-ca", "issuer not in roster")))
                .isEqualTo("refused (unknown-ca)");
    }

    private String text(NodeDaemon d, String path) throws Exception {
        HttpResponse<String> r = http.send(
                HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + d.apiPort() + path))
                        .build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(r.statusCode()).isEqualTo(200);
        return r.body();
    }

    private Map<String, Object> get(NodeDaemon d, String path) throws Exception {
        return dev.chorus.learning.json.JsonReader.parseObject(text(d, path));
    }
}
