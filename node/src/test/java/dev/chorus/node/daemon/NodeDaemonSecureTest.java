package dev.chorus.node.daemon;

import static dev.chorus.node.daemon.NodeDaemonTest.waitFor;
import static org.assertj.core.api.Assertions.assertThat;

import dev.chorus.gossip.host.Host;
import dev.chorus.gossip.host.HostConfig;
import dev.chorus.gossip.identity.PeerId;
import dev.chorus.gossip.identity.PrivateKey;
import dev.chorus.gossip.multiaddr.Multiaddr;
import dev.chorus.node.NodeTestDirs;
import dev.chorus.node.config.ConfigLoader;
import dev.chorus.node.protocol.ModelExchange;
import dev.chorus.node.secagg.SecAggCounters;
import dev.chorus.node.secagg.SecureGroupService;
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
 * Three daemons with {@code averaging.strategy: secure}: they complete group rounds and merge their means, report
 * them in /api/status and /metrics, and serve no model in the clear.
 */
class NodeDaemonSecureTest {

    @TempDir
    Path dir;

    private final List<AutoCloseable> started = new ArrayList<>();
    private final HttpClient http = HttpClient.newHttpClient();

    @AfterEach
    void stopAll() throws Exception {
        for (int i = started.size() - 1; i >= 0; i--) {
            started.get(i).close();
        }
        http.close();
    }

    private NodeDaemon start(String name, List<String> bootstrap) {
        Path yaml = NodeTestDirs.create(dir.resolve(name), "");
        List<String> overrides = new ArrayList<>(List.of(
                "training.pause_ms=5",
                "checkpoint.every_steps=1000",
                "averaging.strategy=secure",
                "averaging.every_steps=2",
                "averaging.secure_offer_window_seconds=0.3",
                "averaging.secure_phase_timeout_seconds=2"));
        if (!bootstrap.isEmpty()) {
            overrides.add("network.bootstrap=["
                    + String.join(
                            ",", bootstrap.stream().map(b -> "\"" + b + "\"").toList()) + "]");
        }
        NodeDaemon d = NodeDaemon.start(ConfigLoader.load(yaml, overrides));
        started.add(d::close);
        return d;
    }

    @Test
    void threeNodesMergeGroupMeansAndServeNoModelInTheClear() throws Exception {
        NodeDaemon a = start("a", List.of());
        NodeDaemon b = start("b", List.of(a.listenAddrs().getFirst()));
        NodeDaemon c =
                start("c", List.of(a.listenAddrs().getFirst(), b.listenAddrs().getFirst()));
        List<NodeDaemon> all = List.of(a, b, c);
        waitFor("every node merged three group means", Duration.ofSeconds(90), () -> all.stream()
                .allMatch(d -> d.secureAggregation().memberCompleted() >= 3));
        SecAggCounters counters = a.secureAggregation();
        assertThat(counters.relayed()
                        + b.secureAggregation().relayed()
                        + c.secureAggregation().relayed())
                .isGreaterThanOrEqualTo(3);

        Map<String, Object> status = dev.chorus.learning.json.JsonReader.parseObject(text(a, "/api/status"));
        @SuppressWarnings("unchecked")
        Map<String, Object> secure = (Map<String, Object>) status.get("secureAggregation");
        assertThat(status.get("strategy")).isEqualTo("secure");
        assertThat((Long) secure.get("roundsCompleted")).isGreaterThanOrEqualTo(3);
        assertThat(secure.get("framesRefusedBy"))
                .asInstanceOf(org.assertj.core.api.InstanceOfAssertFactories.MAP)
                .containsOnlyKeys("malformed", "out-of-turn", "misdirected", "lost", "banned");
        assertThat(secure.get("relaying")).isInstanceOf(Boolean.class);
        assertThat(secure.get("relayDeclines")).isInstanceOf(Long.class);
        assertThat(text(a, "/metrics"))
                .contains("chorus_secagg_relaying ")
                .contains("chorus_secagg_relay_declines_total ")
                .contains("chorus_secagg_rounds_total{")
                .contains("chorus_secagg_sent_bytes_total{role=\"member\"}")
                .contains("chorus_secagg_refused_frames_total{reason=\"out-of-turn\"}");

        // Anyone may dial the node; nobody gets its model: the model exchange is not served at all.
        Host probe = Host.start(HostConfig.defaults(PrivateKey.generate())
                        .withListenAddrs(List.of(Multiaddr.parse("/ip4/127.0.0.1/tcp/0"))))
                .join();
        started.add(probe);
        probe.connect(Multiaddr.parse(a.listenAddrs().getFirst())).join();
        PeerId target = PeerId.parse(a.peerId());
        assertThat(probe.newStream(target, ModelExchange.PROTOCOL))
                .failsWithin(Duration.ofSeconds(10))
                .withThrowableOfType(java.util.concurrent.ExecutionException.class);
        assertThat(probe.newStream(target, SecureGroupService.PROTOCOL)).succeedsWithin(Duration.ofSeconds(10));
    }

    private String text(NodeDaemon d, String path) throws Exception {
        HttpResponse<String> r = http.send(
                HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + d.apiPort() + path))
                        .build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(r.statusCode()).isEqualTo(200);
        return r.body();
    }
}
