package dev.chorus.gossip;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.chorus.gossip.host.HostConfig;
import dev.chorus.gossip.identity.PeerId;
import dev.chorus.gossip.identity.PrivateKey;
import dev.chorus.gossip.multiaddr.Multiaddr;
import dev.chorus.gossip.pubsub.GossipsubParams;
import dev.chorus.gossip.pubsub.MessageIdFunction;
import dev.chorus.gossip.pubsub.PeerScoreParams;
import dev.chorus.gossip.pubsub.PeerScoreThresholds;
import dev.chorus.gossip.pubsub.PubsubConfig;
import dev.chorus.gossip.pubsub.PubsubProtocol;
import dev.chorus.gossip.pubsub.RpcLimits;
import dev.chorus.gossip.pubsub.SignaturePolicy;
import dev.chorus.gossip.pubsub.TopicScoreParams;
import dev.chorus.gossip.yamux.YamuxConfig;
import java.lang.reflect.RecordComponent;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
import java.util.function.ToDoubleFunction;
import org.junit.jupiter.api.Test;

/** Each {@code with*} method of the gossip configs changes exactly its own components and validates again. */
class ConfigWithersTest {

    @Test
    void hostConfigWithersChangeOnlyTheirComponents() throws Exception {
        HostConfig d = HostConfig.defaults(PrivateKey.generate());
        List<Multiaddr> addrs = List.of(Multiaddr.parse("/ip4/127.0.0.1/tcp/0"));
        YamuxConfig yamux = YamuxConfig.defaults().withMaxInboundStreams(7);

        assertEquals(Map.of("listenAddrs", addrs), changed(d, d.withListenAddrs(addrs)));
        assertEquals(Map.of("agentVersion", "other/1"), changed(d, d.withAgentVersion("other/1")));
        assertEquals(
                Map.of("maxConnections", 7, "maxConnectionsPerPeer", 3, "maxConnectionsPerIp", 5),
                changed(d, d.withConnectionLimits(7, 3, 5)));
        assertEquals(
                Map.of("idleTimeout", Duration.ofSeconds(7)), changed(d, d.withIdleTimeout(Duration.ofSeconds(7))));
        assertEquals(
                Map.of("dialBackoffBase", Duration.ofMillis(7), "dialBackoffMax", Duration.ofSeconds(70)),
                changed(d, d.withDialBackoff(Duration.ofMillis(7), Duration.ofSeconds(70))));
        assertEquals(Map.of("inlineMuxers", false), changed(d, d.withInlineMuxers(false)));
        assertEquals(
                Map.of(
                        "dialTimeout", Duration.ofSeconds(1),
                        "upgradeTimeout", Duration.ofSeconds(2),
                        "streamNegotiationTimeout", Duration.ofSeconds(3)),
                changed(d, d.withTimeouts(Duration.ofSeconds(1), Duration.ofSeconds(2), Duration.ofSeconds(3))));
        assertEquals(Map.of("yamux", yamux), changed(d, d.withYamux(yamux)));
        assertEquals(
                Map.of("gracePeriod", Duration.ofSeconds(7)), changed(d, d.withGracePeriod(Duration.ofSeconds(7))));
        assertEquals(Map.of("preferEpoll", false), changed(d, d.withPreferEpoll(false)));
        assertEquals(Map.of("bandwidthLimit", 1000L), changed(d, d.withBandwidthLimit(1000)));

        assertEquals(
                "connection limits must be positive",
                assertThrows(IllegalArgumentException.class, () -> d.withConnectionLimits(0, 1, 1))
                        .getMessage());
        assertEquals(
                "bandwidthLimit must not be negative",
                assertThrows(IllegalArgumentException.class, () -> d.withBandwidthLimit(-1))
                        .getMessage());
    }

    @Test
    void pubsubConfigWithersChangeOnlyTheirComponents() throws Exception {
        PubsubConfig d = PubsubConfig.defaults();
        GossipsubParams params = GossipsubParams.builder().D_lazy(3).build();
        RpcLimits limits = RpcLimits.DEFAULTS.withMaxRpcBytes(2 << 20);
        PeerScoreParams score = PeerScoreParams.defaults().withBehaviourPenalty(-1, 2, 0.5);
        PeerScoreThresholds thresholds = new PeerScoreThresholds(-1, -2, -3, 1, 2);

        assertEquals(Map.of("params", params), changed(d, d.withParams(params)));
        assertEquals(Map.of("limits", limits), changed(d, d.withLimits(limits)));
        assertEquals(
                Map.of(
                        "signaturePolicy", SignaturePolicy.STRICT_NO_SIGN,
                        "messageIdFunction", MessageIdFunction.SHA256_OF_DATA),
                changed(d, d.withStrictNoSign()));
        assertEquals(
                Map.of("messageIdFunction", MessageIdFunction.SHA256_OF_DATA),
                changed(d, d.withMessageIdFunction(MessageIdFunction.SHA256_OF_DATA)));
        assertEquals(
                Map.of("scoreParams", score, "thresholds", thresholds), changed(d, d.withScore(score, thresholds)));
        assertEquals(
                Map.of("protocols", List.of(PubsubProtocol.FLOODSUB)),
                changed(d, d.withProtocols(List.of(PubsubProtocol.FLOODSUB))));

        assertEquals(
                "at least one pubsub protocol is needed",
                assertThrows(IllegalArgumentException.class, () -> d.withProtocols(List.of()))
                        .getMessage());
    }

    @Test
    void yamuxConfigWithersChangeOnlyTheirComponentsAndRaiseTheWindowsAbove() throws Exception {
        YamuxConfig d = YamuxConfig.defaults(); // windows: 1 MiB initial, 16 MiB per stream, 64 MiB per session
        int mib = 1024 * 1024;

        assertEquals(Map.of("initialWindow", 2 * mib), changed(d, d.withInitialWindow(2 * mib)));
        assertEquals(
                Map.of("initialWindow", 32 * mib, "maxStreamWindow", 32 * mib),
                changed(d, d.withInitialWindow(32 * mib)));
        assertEquals(
                Map.of("initialWindow", 128 * mib, "maxStreamWindow", 128 * mib, "maxSessionReceiveWindow", 128L * mib),
                changed(d, d.withInitialWindow(128 * mib)));
        assertEquals(Map.of("maxStreamWindow", 32 * mib), changed(d, d.withMaxStreamWindow(32 * mib)));
        assertEquals(
                Map.of("maxStreamWindow", 128 * mib, "maxSessionReceiveWindow", 128L * mib),
                changed(d, d.withMaxStreamWindow(128 * mib)));
        assertEquals(Map.of("maxInboundStreams", 7), changed(d, d.withMaxInboundStreams(7)));
        assertEquals(Map.of("keepAliveInterval", Duration.ZERO), changed(d, d.withKeepAliveInterval(Duration.ZERO)));
        assertEquals(Map.of("maxRefusedStreams", 7), changed(d, d.withMaxRefusedStreams(7)));

        assertEquals(
                "initialWindow below the spec's 256 KiB",
                assertThrows(IllegalArgumentException.class, () -> d.withInitialWindow(1024))
                        .getMessage());
    }

    @Test
    void peerScoreParamsWithersChangeOnlyTheirComponents() throws Exception {
        PeerScoreParams d = PeerScoreParams.defaults();
        Map<String, TopicScoreParams> topics = Map.of("models", TopicScoreParams.defaults());
        ToDoubleFunction<PeerId> app = p -> 1;

        assertEquals(Map.of("topics", topics), changed(d, d.withTopics(topics)));
        assertEquals(
                Map.of("appSpecificScore", app, "appSpecificWeight", 3.0), changed(d, d.withAppSpecificScore(app, 3)));
        assertEquals(
                Map.of(
                        "ipColocationFactorWeight",
                        -1.0,
                        "ipColocationFactorThreshold",
                        3.0,
                        "ipColocationFactorWhitelist",
                        List.of("10.0.0.0/8")),
                changed(d, d.withIpColocation(-1, 3, List.of("10.0.0.0/8"))));
        assertEquals(
                Map.of("behaviourPenaltyWeight", -1.0, "behaviourPenaltyThreshold", 2.0, "behaviourPenaltyDecay", 0.5),
                changed(d, d.withBehaviourPenalty(-1, 2, 0.5)));

        assertEquals(
                "not an IP subnet: nope",
                assertThrows(IllegalArgumentException.class, () -> d.withIpColocation(-1, 3, List.of("nope")))
                        .getMessage());
    }

    /**
     * The components of {@code after} whose values differ from those of {@code before}, by name. A component that is
     * a record nested in the config's own class (a group, such as {@code YamuxConfig.Windows}) is compared by its own
     * components, so that each setting keeps its name whichever group holds it.
     */
    private static Map<String, Object> changed(Record before, Record after) throws ReflectiveOperationException {
        Map<String, Object> diff = new TreeMap<>();
        for (RecordComponent c : before.getClass().getRecordComponents()) {
            Object was = c.getAccessor().invoke(before);
            Object value = c.getAccessor().invoke(after);
            if (was instanceof Record group && group.getClass().getEnclosingClass() == before.getClass()) {
                diff.putAll(changed(group, (Record) value));
            } else if (!Objects.equals(was, value)) {
                diff.put(c.getName(), value);
            }
        }
        return diff;
    }
}
