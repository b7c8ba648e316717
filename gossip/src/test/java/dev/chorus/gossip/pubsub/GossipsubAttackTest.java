package dev.chorus.gossip.pubsub;

import static org.assertj.core.api.Assertions.assertThat;

import dev.chorus.gossip.identity.PeerId;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

/**
 * Misbehaving peers against one router: each attack is rejected, penalized and bounded, and the router
 * keeps delivering honest traffic. Oversize frames over a real stream are in {@link PubsubTest}.
 */
class GossipsubAttackTest {
    static final String T = "chorus/t";

    /** Scoring with P1 to P4 on the topic (invalid messages weigh -10 each, squared). */
    static PubsubConfig scored() {
        TopicScoreParams tp = TopicScoreParams.defaults().withoutMeshDeliveryPenalty();
        tp = new TopicScoreParams(
                1,
                tp.p1(),
                tp.p2(),
                new TopicScoreParams.MeshMessageDeliveries(
                        0,
                        0.5,
                        1,
                        1,
                        tp.p3().meshMessageDeliveriesActivation(),
                        tp.p3().meshMessageDeliveryWindow()),
                new TopicScoreParams.MeshFailurePenalty(0, 0.5),
                new TopicScoreParams.InvalidMessageDeliveries(-10, 0.9));
        return PubsubConfig.defaults()
                .withScore(PeerScoreParams.defaults().withTopics(Map.of(T, tp)), PeerScoreThresholds.DEFAULTS);
    }

    private static RouterHarness withHonestPeers(PubsubConfig config, long seed, List<PeerId> honest) {
        RouterHarness h = new RouterHarness(config, seed);
        h.router.subscribe(T);
        for (int i = 1; i <= 3; i++) {
            PeerId p = h.peer(i, false);
            h.subscribePeer(p, T);
            h.graft(p, T);
            honest.add(p);
        }
        return h;
    }

    /** An honest peer can still get a message through. */
    private static void assertStillWorks(RouterHarness h, List<PeerId> honest) {
        int before = h.delivered.size();
        h.rpc(honest.get(0), Rpc.ofMessages(List.of(h.message(honest.get(0), T, ("ok" + before).getBytes()))));
        assertThat(h.delivered).hasSize(before + 1);
    }

    @Test
    void badSignaturesAreRejectedPenalizedAndLeadToGraylisting() {
        List<PeerId> honest = new ArrayList<>();
        RouterHarness h = withHonestPeers(scored(), 1, honest);
        PeerId attacker = h.peer(50, false);
        h.subscribePeer(attacker, T);
        for (int i = 0; i < 5; i++) {
            PubsubMessage good = h.message(attacker, T, new byte[] {(byte) i});
            byte[] sig = good.signature().clone();
            sig[0] ^= 1;
            PubsubMessage forged = new PubsubMessage(good.from(), good.data(), good.seqno(), T, sig, good.key());
            h.rpc(attacker, Rpc.ofMessages(List.of(forged)));
        }
        assertThat(h.delivered).isEmpty();
        // P4 = -10 * n^2: graylisted (below -80) after the third; the rest are not even looked at.
        assertThat(h.router.stats().messages().signatureRejections()).isEqualTo(3);
        assertThat(h.router.stats().rpcs().rpcsGraylisted()).isEqualTo(2);
        assertThat(h.router.score(attacker)).isLessThan(-80);
        // Nothing was forwarded, and the forged ids were not marked seen: the real message still gets through.
        for (PeerId p : honest) {
            assertThat(h.messagesTo(p)).isEmpty();
        }
        PubsubMessage real = h.message(attacker, T, new byte[] {0});
        h.rpc(honest.get(1), Rpc.ofMessages(List.of(real)));
        assertThat(h.delivered).hasSize(1);
        assertStillWorks(h, honest);
        // The penalty decays: after a while the peer is heard again.
        for (int s = 0; s < 30; s++) {
            h.advance(1000);
            h.heartbeat();
        }
        assertThat(h.router.score(attacker)).isGreaterThan(-80);
    }

    @Test
    void iwantFloodsAreServedWithinBudgetAndPenalized() {
        List<PeerId> honest = new ArrayList<>();
        RouterHarness h = withHonestPeers(PubsubConfig.defaults(), 2, honest);
        List<MessageId> ids = new ArrayList<>();
        for (int i = 0; i < 100; i++) {
            PubsubMessage m = h.message(honest.get(0), T, new byte[] {(byte) i, 1});
            h.rpc(honest.get(0), Rpc.ofMessages(List.of(m)));
            ids.add(h.id(m));
        }
        PeerId attacker = h.peer(50, false);
        h.subscribePeer(attacker, T);
        h.clearSent();
        // 100 RPCs asking for the 100 cached messages 50 times each: 500,000 ids in one heartbeat.
        List<MessageId> ask = new ArrayList<>();
        for (int k = 0; k < 50; k++) {
            ask.addAll(ids);
        }
        for (int r = 0; r < 100; r++) {
            h.control(attacker, List.of(), List.of(new Rpc.IWant(ask)), List.of(), List.of(), List.of());
        }
        // Only the first 5000 ids of the heartbeat are looked at; each message is served at most
        // gossip_retransmission (3) times, and sent once per RPC however often it is asked for.
        assertThat(h.messagesTo(attacker)).hasSize(100);
        assertThat(h.router.stats().control().iwantServed()).isEqualTo(300);
        assertThat(h.router.stats().control().iwantRefused()).isEqualTo(500_000 - 300);
        assertThat(h.router.behaviourPenalty(attacker)).isEqualTo(1);
        // Next heartbeat: the per-heartbeat budget resets, the retransmission cap does not.
        h.advance(1000);
        h.heartbeat();
        h.clearSent();
        h.control(attacker, List.of(), List.of(new Rpc.IWant(ids)), List.of(), List.of(), List.of());
        assertThat(h.messagesTo(attacker)).isEmpty();
        assertStillWorks(h, honest);
    }

    @Test
    void graftSpamDuringBackoffEndsInGraylisting() {
        List<PeerId> honest = new ArrayList<>();
        RouterHarness h = withHonestPeers(PubsubConfig.defaults(), 3, honest);
        PeerId attacker = h.peer(50, false);
        h.subscribePeer(attacker, T);
        h.graft(attacker, T);
        h.prune(attacker, T, 60);
        for (int i = 0; i < 20; i++) {
            h.graft(attacker, T);
        }
        assertThat(h.router.meshPeers(T)).doesNotContain(attacker);
        // Two penalties per early GRAFT; -10 * P7^2 passes -80 at the second GRAFT, then RPCs are ignored.
        assertThat(h.router.stats().control().graftsDuringBackoff()).isEqualTo(2);
        assertThat(h.router.score(attacker)).isLessThan(-80);
        assertThat(h.router.stats().rpcs().rpcsGraylisted()).isEqualTo(18);
        h.heartbeat();
        assertThat(h.router.meshPeers(T)).doesNotContain(attacker);
        assertStillWorks(h, honest);
    }

    @Test
    void thousandsOfTopicsAreCappedPerPeerAndPenalized() {
        List<PeerId> honest = new ArrayList<>();
        RouterHarness h = withHonestPeers(PubsubConfig.defaults(), 4, honest);
        PeerId attacker = h.peer(50, false);
        for (int r = 0; r < 5; r++) {
            List<Rpc.SubOpts> subs = new ArrayList<>();
            for (int i = 0; i < 1000; i++) {
                subs.add(new Rpc.SubOpts(true, "spam/" + r + "/" + i));
            }
            h.rpc(attacker, Rpc.ofSubscriptions(subs));
        }
        assertThat(h.router.peerTopics(attacker)).hasSize(1024);
        // One penalty per RPC over the cap; at the third (-10 * 3^2 < -80) the peer is graylisted.
        assertThat(h.router.stats().rpcs().topicLimitRejections()).isEqualTo(3);
        assertThat(h.router.stats().rpcs().rpcsGraylisted()).isEqualTo(1);
        assertThat(h.router.behaviourPenalty(attacker)).isEqualTo(3);
        // More than 1024 subscriptions in one RPC is refused by the codec (and penalized).
        List<Rpc.SubOpts> tooMany = new ArrayList<>();
        for (int i = 0; i < 1025; i++) {
            tooMany.add(new Rpc.SubOpts(true, "x" + i));
        }
        h.rpc(attacker, Rpc.ofSubscriptions(tooMany));
        assertThat(h.router.stats().rpcs().invalidRpcs()).isEqualTo(1);
        assertStillWorks(h, honest);
    }

    @Test
    void ihaveFloodsAreCappedAndBrokenPromisesPenalized() {
        List<PeerId> honest = new ArrayList<>();
        RouterHarness h = withHonestPeers(PubsubConfig.defaults(), 5, honest);
        PeerId attacker = h.peer(50, false);
        h.subscribePeer(attacker, T);
        h.clearSent();
        int n = 0;
        for (int r = 0; r < 50; r++) {
            List<MessageId> bogus = new ArrayList<>();
            for (int i = 0; i < 5000; i++, n++) {
                bogus.add(MessageId.of(new byte[] {(byte) (n >> 16), (byte) (n >> 8), (byte) n, 9}));
            }
            h.control(attacker, List.of(new Rpc.IHave(T, bogus)), List.of(), List.of(), List.of(), List.of());
        }
        // At most max_ihave_length (5000) ids asked per heartbeat, from at most 10 IHAVEs.
        assertThat(h.iwantsTo(attacker)).hasSize(5000);
        assertThat(h.router.trackedPromises()).isEqualTo(1);
        h.advance(3500);
        h.heartbeat();
        assertThat(h.router.behaviourPenalty(attacker)).isEqualTo(1);
        assertThat(h.router.trackedPromises()).isZero();
        assertStillWorks(h, honest);
    }

    @Test
    void pendingValidationsAndTheSeenCacheAreBounded() {
        GossipsubParams params = GossipsubParams.defaults().toBuilder()
                .maxPendingValidations(50)
                .seenCapacity(500)
                .build();
        List<PeerId> honest = new ArrayList<>();
        RouterHarness h = withHonestPeers(PubsubConfig.defaults().withParams(params), 6, honest);
        List<CompletableFuture<ValidationResult>> never = new ArrayList<>();
        h.router.setValidator(T, (from, m) -> {
            CompletableFuture<ValidationResult> f = new CompletableFuture<>();
            never.add(f);
            return f;
        });
        PeerId flooder = h.peer(50, false);
        h.subscribePeer(flooder, T);
        for (int r = 0; r < 20; r++) {
            List<PubsubMessage> batch = new ArrayList<>();
            for (int i = 0; i < 100; i++) {
                batch.add(h.message(flooder, T, new byte[] {(byte) r, (byte) i}));
            }
            h.rpc(flooder, Rpc.ofMessages(batch));
        }
        assertThat(h.router.pendingValidations()).isEqualTo(50);
        assertThat(never).hasSize(50);
        assertThat(h.router.stats().messages().validationThrottled()).isEqualTo(2000 - 50);
        assertThat(h.router.seenCacheSize()).isEqualTo(500);
        // Throttled messages cost the sender nothing: it may just be fast.
        assertThat(h.router.score(flooder)).isEqualTo(0);
        // Completing the validations frees the slots.
        never.forEach(f -> f.complete(ValidationResult.ACCEPT));
        h.runTasks();
        assertThat(h.router.pendingValidations()).isZero();
        h.router.setValidator(T, null);
        assertStillWorks(h, honest);
    }

    @Test
    void oversizeAndMalformedRpcsAreRejectedWholeAndPenalized() {
        List<PeerId> honest = new ArrayList<>();
        RouterHarness h = withHonestPeers(PubsubConfig.defaults(), 7, honest);
        PeerId attacker = h.peer(50, false);
        h.subscribePeer(attacker, T);
        // 1025 messages in one RPC: over the per-RPC limit, nothing of it is processed.
        List<PubsubMessage> many = new ArrayList<>();
        for (int i = 0; i < 1025; i++) {
            many.add(h.message(attacker, T, new byte[] {(byte) i, (byte) (i >> 8)}));
        }
        h.rpc(attacker, Rpc.ofMessages(many));
        assertThat(h.delivered).isEmpty();
        assertThat(h.router.stats().rpcs().invalidRpcs()).isEqualTo(1);
        assertThat(h.router.behaviourPenalty(attacker)).isEqualTo(1);
        // A message larger than the RPC limit cannot be published either.
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> h.router.publish(T, new byte[2 << 20]))
                .isInstanceOf(IllegalArgumentException.class);
        assertStillWorks(h, honest);
    }
}
