package dev.chorus.gossip.pubsub;

import static org.assertj.core.api.Assertions.assertThat;

import dev.chorus.testsupport.TestLog;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * 100 real routers on the in-memory network with a controlled clock: meshes settle within
 * [D_lo, D_hi], every subscriber receives every message exactly once, and no honest peer ends with a
 * negative score. Prints the delivery latency in heartbeats and the duplicate ratio.
 */
class GossipsubSimulationTest {
    static final String TOPIC = "chorus/sim/announce";
    static final int NODES = 100;
    static final int MESSAGES = 100;

    @Test
    void hundredNodesDeliverEverythingWithBoundedMeshes() {
        runSimulation(0x5EEDL, GossipsubParams.defaults());
    }

    @Test
    void meshPublishingWithoutFloodPublishAlsoDeliversEverything() {
        runSimulation(
                0xF00DL,
                GossipsubParams.defaults().toBuilder().floodPublish(false).build());
    }

    private void runSimulation(long seed, GossipsubParams params) {
        TestLog.figures("simulation seed " + seed + ", floodPublish "
                + params.dissemination().floodPublish());
        SimNetwork net = new SimNetwork(seed);
        PeerScoreParams score = PeerScoreParams.defaults()
                .withTopics(Map.of(TOPIC, TopicScoreParams.defaults().withoutMeshDeliveryPenalty()))
                // 100 simulated peers share the loopback /16: no colocation penalty among them
                .withIpColocation(-5, 10, List.of("127.0.0.0/8"));
        PubsubConfig config = PubsubConfig.defaults().withParams(params).withScore(score, PeerScoreThresholds.DEFAULTS);
        for (int i = 0; i < NODES; i++) {
            net.addNode(config);
        }
        List<SimNetwork.Node> nodes = new ArrayList<>(net.nodes.values());
        net.connectRandomly(8);
        nodes.forEach(n -> n.router.subscribe(TOPIC));
        net.run(10_000);
        assertMeshDegrees(nodes, params);

        long heartbeat = params.timing().heartbeatInterval().toMillis();
        Map<MessageId, Long> publishedAt = new HashMap<>();
        Map<MessageId, SimNetwork.Node> publisher = new HashMap<>();
        for (int i = 0; i < MESSAGES; i++) {
            SimNetwork.Node from = nodes.get(net.random.nextInt(nodes.size()));
            byte[] data = ByteBuffer.allocate(64).putInt(i).array();
            GossipsubRouter.PublishResult r = from.router.publish(TOPIC, data);
            publishedAt.put(r.id(), net.clock.millis());
            publisher.put(r.id(), from);
            net.run(100);
        }
        net.run(10_000);

        List<Double> latencies = new ArrayList<>();
        long delivered = 0;
        long duplicates = 0;
        for (SimNetwork.Node n : nodes) {
            Map<MessageId, Integer> counts = new HashMap<>();
            for (SimNetwork.Delivery d : n.received) {
                counts.merge(d.id(), 1, Integer::sum);
                latencies.add((d.at() - publishedAt.get(d.id())) / (double) heartbeat);
            }
            for (MessageId id : publishedAt.keySet()) {
                int expected = publisher.get(id) == n ? 0 : 1;
                assertThat(counts.getOrDefault(id, 0))
                        .as("deliveries of %s at %s (seed %d)", id, n.id, seed)
                        .isEqualTo(expected);
            }
            delivered += n.received.size();
            duplicates += n.router.stats().messages().duplicates();
        }
        assertThat(delivered).isEqualTo((long) MESSAGES * (NODES - 1));
        assertMeshDegrees(nodes, params);
        for (SimNetwork.Node n : nodes) {
            for (var peer : n.router.peers()) {
                assertThat(n.router.score(peer))
                        .as("score of %s at %s", peer, n.id)
                        .isGreaterThanOrEqualTo(0);
            }
            assertThat(n.router.stats().penalties()).isZero();
        }
        Collections.sort(latencies);
        TestLog.figures(
                "simulation: %d nodes, %d messages, %d deliveries; latency p50 %.3f, p99 %.3f, max %.3f heartbeats;"
                        + " duplicates %d (%.2f per delivery); %d RPCs, %.1f MiB on the wire%n",
                NODES,
                MESSAGES,
                delivered,
                percentile(latencies, 0.50),
                percentile(latencies, 0.99),
                latencies.get(latencies.size() - 1),
                duplicates,
                duplicates / (double) delivered,
                net.rpcsSent,
                net.bytesSent / 1048576.0);
    }

    private static void assertMeshDegrees(List<SimNetwork.Node> nodes, GossipsubParams params) {
        int min = Integer.MAX_VALUE, max = 0;
        for (SimNetwork.Node n : nodes) {
            int d = n.router.meshPeers(TOPIC).size();
            min = Math.min(min, d);
            max = Math.max(max, d);
        }
        TestLog.figures("mesh degrees in [" + min + ", " + max + "]");
        assertThat(min).isGreaterThanOrEqualTo(params.degree().D_lo());
        assertThat(max).isLessThanOrEqualTo(params.degree().D_hi());
    }

    static double percentile(List<Double> sorted, double q) {
        int i = (int) Math.ceil(q * sorted.size()) - 1;
        return sorted.get(Math.max(0, Math.min(sorted.size() - 1, i)));
    }
}
