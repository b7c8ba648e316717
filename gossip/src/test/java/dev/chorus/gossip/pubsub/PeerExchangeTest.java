package dev.chorus.gossip.pubsub;

import static org.assertj.core.api.Assertions.assertThat;

import dev.chorus.gossip.identity.PeerId;
import dev.chorus.gossip.identity.PrivateKey;
import dev.chorus.gossip.multiaddr.Multiaddr;
import dev.chorus.gossip.record.PeerRecord;
import dev.chorus.gossip.record.SignedEnvelope;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * Gossipsub's peer exchange: a PRUNE's PX is learnt only from a peer whose score reaches the accept-PX threshold,
 * and only for entries whose signed peer record verifies and names the entry's peer; PRUNEs this router sends carry
 * the records it holds.
 */
class PeerExchangeTest {

    private static final String T = "px-topic";

    /** What the router learnt, in order. */
    private static final class Learnt implements GossipsubRouter.PeerExchange {
        final Map<PeerId, List<Multiaddr>> learnt = new LinkedHashMap<>();
        final Map<PeerId, byte[]> records = new LinkedHashMap<>();

        @Override
        public Optional<byte[]> recordOf(PeerId peer) {
            return Optional.ofNullable(records.get(peer));
        }

        @Override
        public void learned(PeerId peer, List<Multiaddr> addrs) {
            learnt.put(peer, addrs);
        }
    }

    private static byte[] record(PrivateKey signer, PeerId of, String addr) {
        if (signer.peerId().equals(of)) {
            return new PeerRecord(of, 1, List.of(Multiaddr.parse(addr)))
                    .seal(signer)
                    .encode();
        }
        byte[] payload = new dev.chorus.gossip.encoding.ProtobufWriter()
                .bytes(1, of.toBytes())
                .message(
                        3,
                        new dev.chorus.gossip.encoding.ProtobufWriter()
                                .bytes(1, Multiaddr.parse(addr).toBytes()))
                .toByteArray();
        return SignedEnvelope.seal(signer, PeerRecord.DOMAIN, new byte[] {0x03, 0x01}, payload)
                .encode();
    }

    private static PubsubConfig acceptingFromAnyone() {
        PubsubConfig d = PubsubConfig.defaults();
        return d.withScore(d.scoreParams(), new PeerScoreThresholds(-10, -50, -80, 0, 20));
    }

    private static List<Rpc.PeerInfo> offer() {
        PrivateKey c = RouterHarness.key(50);
        PrivateKey d = RouterHarness.key(51);
        PrivateKey e = RouterHarness.key(52);
        PrivateKey g = RouterHarness.key(53);
        return List.of(
                new Rpc.PeerInfo(c.peerId().toBytes(), record(c, c.peerId(), "/ip4/10.0.0.50/tcp/4001")),
                // a record of d signed by e: the pruning peer cannot vouch for another's addresses
                new Rpc.PeerInfo(d.peerId().toBytes(), record(e, d.peerId(), "/ip4/10.0.0.51/tcp/4001")),
                // no record: an ID without an address
                new Rpc.PeerInfo(e.peerId().toBytes(), null),
                // g's good record under another peer's ID
                new Rpc.PeerInfo(d.peerId().toBytes(), record(g, g.peerId(), "/ip4/10.0.0.53/tcp/4001")),
                // junk
                new Rpc.PeerInfo(g.peerId().toBytes(), new byte[] {1, 2, 3}));
    }

    private static void pruneWith(RouterHarness h, PeerId from, List<Rpc.PeerInfo> px) {
        h.control(from, List.of(), List.of(), List.of(), List.of(new Rpc.Prune(T, px, 60)), List.of());
    }

    /** A peer joins {@code h}'s mesh of {@link #T}, then prunes it with {@link #offer}; what the router learnt. */
    private static Learnt prunedWithOffer(RouterHarness h) {
        Learnt learnt = new Learnt();
        h.router.setPeerExchange(learnt);
        h.router.subscribe(T);
        PeerId p = h.peer(1, false);
        h.subscribePeer(p, T);
        h.graft(p, T);
        pruneWith(h, p, offer());
        return learnt;
    }

    @Test
    void onlyVerifiedRecordsNamingTheirPeerAreLearnt() {
        RouterHarness h = new RouterHarness(acceptingFromAnyone(), 1);
        Learnt learnt = prunedWithOffer(h);
        assertThat(h.router.meshPeers(T)).isEmpty();
        assertThat(learnt.learnt)
                .containsOnlyKeys(RouterHarness.key(50).peerId())
                .containsValue(List.of(Multiaddr.parse("/ip4/10.0.0.50/tcp/4001")));
    }

    @Test
    void aPeerBelowTheAcceptThresholdIsNotListenedTo() {
        RouterHarness h = new RouterHarness(2); // default threshold 10: a peer just grafted scores 0
        assertThat(prunedWithOffer(h).learnt).isEmpty();
    }

    @Test
    void prunesCarryTheRecordsThisRouterHolds() {
        PubsubConfig d = PubsubConfig.defaults();
        RouterHarness h =
                new RouterHarness(d.withParams(d.params().toBuilder().doPX(true).build()), 3);
        Learnt records = new Learnt();
        h.router.setPeerExchange(records);
        h.router.subscribe(T);
        List<PeerId> peers = new ArrayList<>();
        for (int i = 1; i <= 20; i++) {
            PeerId p = h.peer(i, true);
            h.subscribePeer(p, T);
            records.records.put(p, record(RouterHarness.key(i), p, "/ip4/10.0.1." + i + "/tcp/4001"));
            peers.add(p);
        }
        for (PeerId p : peers) {
            h.graft(p, T);
        }
        h.clearSent();
        h.heartbeat();
        int withRecords = 0;
        for (PeerId p : peers) {
            for (Rpc.Prune prune : h.prunesTo(p)) {
                for (Rpc.PeerInfo pi : prune.peers()) {
                    PeerRecord r = PeerRecord.open(pi.signedPeerRecord());
                    assertThat(r.peerId())
                            .isEqualTo(PeerId.fromBytes(pi.peerId()))
                            .isNotEqualTo(p);
                    withRecords++;
                }
            }
        }
        assertThat(withRecords).as("PX entries, each with its peer's record").isPositive();
    }
}
