package dev.chorus.gossip.pubsub;

import static org.assertj.core.api.Assertions.assertThat;

import dev.chorus.gossip.identity.PeerId;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

/** The router on a controlled clock: mesh maintenance, backoff, gossip, fanout, IDONTWANT, validation. */
class GossipsubRouterTest {
    static final String T = "chorus/t";

    private static List<PeerId> peers(RouterHarness h, int from, int n, boolean outbound) {
        List<PeerId> out = new ArrayList<>();
        for (int i = from; i < from + n; i++) {
            PeerId p = h.peer(i, outbound);
            h.subscribePeer(p, T);
            out.add(p);
        }
        return out;
    }

    private static int outboundCount(Set<PeerId> mesh, List<PeerId> outbound) {
        return (int) mesh.stream().filter(outbound::contains).count();
    }

    @Test
    void heartbeatGraftsUpToDWithTheOutboundQuota() {
        RouterHarness h = new RouterHarness(1);
        h.router.subscribe(T);
        assertThat(h.router.meshPeers(T)).isEmpty();
        List<PeerId> out = peers(h, 1, 2, true);
        peers(h, 3, 18, false);
        // Every peer got our subscription when it was added.
        assertThat(h.sentTo(out.get(0)).get(0).subscriptions()).containsExactly(new Rpc.SubOpts(true, T));
        h.clearSent();
        h.heartbeat();
        Set<PeerId> mesh = h.router.meshPeers(T);
        assertThat(mesh.size()).isBetween(6, 8);
        assertThat(outboundCount(mesh, out)).isEqualTo(2);
        for (PeerId p : h.router.topicPeers(T)) {
            assertThat(h.graftsTo(p)).isEqualTo(mesh.contains(p) ? List.of(T) : List.of());
        }
    }

    @Test
    void subscribingJoinsWithDPeersAtOnce() {
        RouterHarness h = new RouterHarness(2);
        peers(h, 1, 10, false);
        h.router.subscribe(T);
        assertThat(h.router.meshPeers(T)).hasSize(6);
    }

    @Test
    void graftsBeyondDHiAreRefusedUnlessOutboundAndTheHeartbeatPrunesToD() {
        RouterHarness h = new RouterHarness(3);
        h.router.subscribe(T);
        List<PeerId> inbound = peers(h, 1, 20, false);
        List<PeerId> outbound = peers(h, 21, 3, true);
        for (PeerId p : inbound) {
            h.graft(p, T);
        }
        assertThat(h.router.meshPeers(T)).hasSize(12);
        long refused = inbound.stream().filter(p -> !h.prunesTo(p).isEmpty()).count();
        assertThat(refused).isEqualTo(8);
        for (PeerId p : outbound) {
            h.graft(p, T);
        }
        assertThat(h.router.meshPeers(T)).hasSize(15).containsAll(outbound);
        h.clearSent();
        h.heartbeat();
        Set<PeerId> mesh = h.router.meshPeers(T);
        assertThat(mesh).hasSize(6);
        assertThat(outboundCount(mesh, outbound)).isGreaterThanOrEqualTo(2);
        int pruned = 0;
        for (PeerId p : h.router.topicPeers(T)) {
            List<Rpc.Prune> prunes = h.prunesTo(p);
            if (!prunes.isEmpty()) {
                pruned++;
                assertThat(mesh).doesNotContain(p);
                assertThat(prunes.get(0).backoffSeconds()).isEqualTo(60);
                assertThat(prunes.get(0).peers()).as("PX is off by default").isEmpty();
            }
        }
        assertThat(pruned).isEqualTo(9);
    }

    @Test
    void graftDuringBackoffIsRefusedPenalizedAndExtended() {
        RouterHarness h = new RouterHarness(4);
        h.router.subscribe(T);
        PeerId p = peers(h, 1, 1, false).get(0);
        h.graft(p, T);
        assertThat(h.router.meshPeers(T)).containsExactly(p);
        h.prune(p, T, 60);
        assertThat(h.router.meshPeers(T)).isEmpty();

        h.advance(1000);
        h.clearSent();
        h.graft(p, T);
        assertThat(h.router.meshPeers(T)).isEmpty();
        assertThat(h.prunesTo(p)).hasSize(1);
        assertThat(h.router.behaviourPenalty(p))
                .as("within the flood threshold: two")
                .isEqualTo(2);

        h.advance(29_000);
        h.graft(p, T);
        assertThat(h.router.behaviourPenalty(p)).isEqualTo(3);
        assertThat(h.router.stats().control().graftsDuringBackoff()).isEqualTo(2);
        // The refusal extended the backoff to 60 s after the last GRAFT (plus 2 s slack for our own grafts).
        h.advance(61_000);
        assertThat(h.router.isBackedOff(T, p)).isTrue();
        h.advance(1_000);
        assertThat(h.router.isBackedOff(T, p)).isFalse();
    }

    @Test
    void ownGraftsWaitForTheBackoffPlusSlack() {
        RouterHarness h = new RouterHarness(5);
        h.router.subscribe(T);
        PeerId p = peers(h, 1, 1, false).get(0);
        h.heartbeat();
        assertThat(h.router.meshPeers(T)).containsExactly(p);
        h.prune(p, T, 10);
        for (int s = 1; s <= 11; s++) {
            h.advance(1000);
            h.heartbeat();
            assertThat(h.router.meshPeers(T)).as("second %d", s).isEmpty();
        }
        h.advance(1000); // 12 s: backoff 10 s + 2 s slack
        h.heartbeat();
        assertThat(h.router.meshPeers(T)).containsExactly(p);
    }

    @Test
    void unsubscribingPrunesWithTheUnsubscribeBackoff() {
        RouterHarness h = new RouterHarness(6);
        List<PeerId> ps = peers(h, 1, 3, false);
        h.router.subscribe(T);
        h.clearSent();
        h.router.unsubscribe(T);
        for (PeerId p : ps) {
            assertThat(h.prunesTo(p)).extracting(Rpc.Prune::backoffSeconds).containsExactly(10L);
            assertThat(h.sentTo(p).get(0).subscriptions()).containsExactly(new Rpc.SubOpts(false, T));
        }
        // A GRAFT for a topic we left is ignored, not answered (v1.1 spam hardening).
        h.clearSent();
        h.graft(ps.get(0), T);
        assertThat(h.sentTo(ps.get(0))).isEmpty();
    }

    @Test
    void v10PeersGetPrunesWithoutBackoffAndFloodsubPeersGetNoControl() {
        RouterHarness h = new RouterHarness(7);
        PeerId old = h.peer(1, false, PubsubProtocol.MESHSUB_1_0, RouterHarness.ip(1));
        PeerId flood = h.peer(2, false, PubsubProtocol.FLOODSUB, RouterHarness.ip(2));
        PeerId author = h.peer(3, false);
        h.subscribePeer(old, T);
        h.subscribePeer(flood, T);
        h.router.subscribe(T);
        assertThat(h.router.meshPeers(T)).containsExactly(old);
        h.clearSent();
        h.router.unsubscribe(T);
        assertThat(h.prunesTo(old)).extracting(Rpc.Prune::backoffSeconds).containsExactly(-1L);
        assertThat(h.sentTo(flood)).allSatisfy(r -> assertThat(r.control()).isNull());
        // Floodsub peers get every message of their topics.
        h.router.subscribe(T);
        h.clearSent();
        h.rpc(author, Rpc.ofMessages(List.of(h.message(author, T, new byte[] {1}))));
        assertThat(h.messagesTo(flood)).hasSize(1);
    }

    @Test
    void messagesAreForwardedToTheMeshButNotBackToSourceOrAuthor() {
        RouterHarness h = new RouterHarness(8);
        h.router.subscribe(T);
        List<PeerId> ps = peers(h, 1, 4, false);
        for (PeerId p : ps) {
            h.graft(p, T);
        }
        PubsubMessage m = h.message(ps.get(1), T, new byte[] {42});
        h.clearSent();
        h.rpc(ps.get(0), Rpc.ofMessages(List.of(m)));
        assertThat(h.delivered).hasSize(1);
        assertThat(h.messagesTo(ps.get(0))).as("source").isEmpty();
        assertThat(h.messagesTo(ps.get(1))).as("author").isEmpty();
        assertThat(h.messagesTo(ps.get(2))).hasSize(1);
        assertThat(h.messagesTo(ps.get(3))).hasSize(1);
        // A duplicate is neither delivered nor forwarded again.
        h.clearSent();
        h.rpc(ps.get(2), Rpc.ofMessages(List.of(m)));
        assertThat(h.delivered).hasSize(1);
        assertThat(h.sent).isEmpty();
        assertThat(h.router.stats().messages().duplicates()).isEqualTo(1);
        // Messages of topics we are not subscribed to are not routed.
        h.rpc(ps.get(0), Rpc.ofMessages(List.of(h.message(ps.get(1), "other", new byte[] {1}))));
        assertThat(h.delivered).hasSize(1);
    }

    @Test
    void gossipAdvertisesRecentMessagesToNonMeshPeersAndServesIWant() {
        RouterHarness h = new RouterHarness(9);
        h.router.subscribe(T);
        List<PeerId> ps = peers(h, 1, 12, false);
        h.heartbeat();
        Set<PeerId> mesh = h.router.meshPeers(T);
        PeerId author = ps.stream().filter(mesh::contains).findFirst().orElseThrow();
        PubsubMessage m = h.message(author, T, new byte[] {7});
        h.rpc(author, Rpc.ofMessages(List.of(m)));
        h.clearSent();
        h.heartbeat();
        List<PeerId> gossiped =
                ps.stream().filter(p -> !h.ihavesTo(p).isEmpty()).toList();
        assertThat(gossiped).isNotEmpty().allSatisfy(p -> assertThat(mesh).doesNotContain(p));
        assertThat(gossiped.size()).isEqualTo(Math.min(6, 12 - mesh.size()));
        PeerId asker = gossiped.get(0);
        assertThat(h.ihavesTo(asker)).containsExactly(h.id(m));
        // IWANT is served at most gossip_retransmission (3) times per peer.
        for (int i = 0; i < 5; i++) {
            h.control(asker, List.of(), List.of(new Rpc.IWant(List.of(h.id(m)))), List.of(), List.of(), List.of());
        }
        assertThat(h.messagesTo(asker)).hasSize(3);
        // After mcache_gossip (3) heartbeats the message is no longer advertised.
        h.heartbeat();
        h.heartbeat();
        h.clearSent();
        h.heartbeat();
        assertThat(ps.stream().allMatch(p -> h.ihavesTo(p).isEmpty())).isTrue();
    }

    @Test
    void ihaveIsAnsweredWithIWantAndABrokenPromiseIsPenalized() {
        RouterHarness h = new RouterHarness(10);
        h.router.subscribe(T);
        List<PeerId> ps = peers(h, 1, 2, false);
        PeerId liar = ps.get(0), honest = ps.get(1);
        MessageId bogus = MessageId.of(new byte[] {1, 2, 3});
        PubsubMessage real = h.message(honest, T, new byte[] {5});
        h.control(liar, List.of(new Rpc.IHave(T, List.of(bogus))), List.of(), List.of(), List.of(), List.of());
        h.control(honest, List.of(new Rpc.IHave(T, List.of(h.id(real)))), List.of(), List.of(), List.of(), List.of());
        assertThat(h.iwantsTo(liar)).containsExactly(bogus);
        assertThat(h.iwantsTo(honest)).containsExactly(h.id(real));
        h.rpc(honest, Rpc.ofMessages(List.of(real)));
        h.advance(2000);
        h.heartbeat();
        assertThat(h.router.behaviourPenalty(liar)).isZero();
        h.advance(1500);
        h.heartbeat();
        assertThat(h.router.behaviourPenalty(liar)).isEqualTo(1);
        h.advance(1000);
        h.heartbeat();
        assertThat(h.router.behaviourPenalty(liar)).isCloseTo(0.2, org.assertj.core.data.Offset.offset(1e-9));
        assertThat(h.router.behaviourPenalty(honest)).isZero();
        assertThat(h.router.stats().control().brokenPromises()).isEqualTo(1);
        // An IHAVE for a seen message asks for nothing.
        h.clearSent();
        h.control(honest, List.of(new Rpc.IHave(T, List.of(h.id(real)))), List.of(), List.of(), List.of(), List.of());
        assertThat(h.iwantsTo(honest)).isEmpty();
    }

    @Test
    void idontwantIsSentForLargeMessagesAndHonoured() {
        RouterHarness h = new RouterHarness(11);
        h.router.subscribe(T);
        List<PeerId> ps = peers(h, 1, 3, false);
        PeerId v11 = h.peer(9, false, PubsubProtocol.MESHSUB_1_1, RouterHarness.ip(9));
        h.subscribePeer(v11, T);
        for (PeerId p : ps) {
            h.graft(p, T);
        }
        h.graft(v11, T);
        PubsubMessage big = h.message(ps.get(0), T, new byte[600]);
        // ps[2] says it does not want it: it is skipped when forwarding.
        h.control(
                ps.get(2), List.of(), List.of(), List.of(), List.of(), List.of(new Rpc.IDontWant(List.of(h.id(big)))));
        h.clearSent();
        h.rpc(ps.get(0), Rpc.ofMessages(List.of(big)));
        assertThat(h.idontwantsTo(ps.get(1))).containsExactly(h.id(big));
        assertThat(h.idontwantsTo(ps.get(0))).as("not to the source").isEmpty();
        assertThat(h.idontwantsTo(v11)).as("only v1.2 peers").isEmpty();
        assertThat(h.messagesTo(ps.get(1))).hasSize(1);
        assertThat(h.messagesTo(ps.get(2))).isEmpty();
        // Small messages get no IDONTWANT.
        h.clearSent();
        h.rpc(ps.get(0), Rpc.ofMessages(List.of(h.message(ps.get(0), T, new byte[10]))));
        assertThat(h.idontwantsTo(ps.get(1))).isEmpty();
    }

    @Test
    void asynchronousValidationAcceptsRejectsAndIgnores() {
        PeerScoreParams sp = PeerScoreParams.defaults().withTopics(Map.of(T, TopicScoreParams.defaults()));
        RouterHarness h = new RouterHarness(PubsubConfig.defaults().withScore(sp, PeerScoreThresholds.DEFAULTS), 12);
        h.router.subscribe(T);
        List<PeerId> ps = peers(h, 1, 3, false);
        for (PeerId p : ps) {
            h.graft(p, T);
        }
        List<CompletableFuture<ValidationResult>> pending = new ArrayList<>();
        h.router.setValidator(T, (from, m) -> {
            CompletableFuture<ValidationResult> f = new CompletableFuture<>();
            pending.add(f);
            return f;
        });
        PubsubMessage a = h.message(ps.get(0), T, new byte[] {1});
        PubsubMessage b = h.message(ps.get(0), T, new byte[] {2});
        PubsubMessage c = h.message(ps.get(0), T, new byte[] {3});
        h.rpc(ps.get(0), Rpc.ofMessages(List.of(a, b, c)));
        // ps[1] delivers a copy of b while it is being validated: it shares b's fate.
        h.rpc(ps.get(1), Rpc.ofMessages(List.of(b)));
        assertThat(h.router.pendingValidations()).isEqualTo(3);
        assertThat(h.delivered).isEmpty();
        h.clearSent();
        pending.get(0).complete(ValidationResult.ACCEPT);
        pending.get(1).complete(ValidationResult.REJECT);
        pending.get(2).complete(ValidationResult.IGNORE);
        h.runTasks();
        assertThat(h.router.pendingValidations()).isZero();
        assertThat(h.delivered).containsExactly(a);
        assertThat(h.messagesTo(ps.get(2))).containsExactly(a);
        assertThat(h.router.stats().messages().validationRejections()).isEqualTo(1);
        assertThat(h.router.stats().messages().validationIgnored()).isEqualTo(1);
        // P4 for the sender and the peer that relayed the invalid copy; none for ps[2].
        assertThat(h.router.score(ps.get(1))).isLessThan(0);
        assertThat(h.router.score(ps.get(2))).isGreaterThanOrEqualTo(0);
    }

    @Test
    void fanoutPublishingWithoutFloodPublishAndItsExpiry() {
        GossipsubParams params =
                GossipsubParams.defaults().toBuilder().floodPublish(false).build();
        RouterHarness h = new RouterHarness(PubsubConfig.defaults().withParams(params), 13);
        peers(h, 1, 10, false);
        GossipsubRouter.PublishResult r = h.router.publish(T, new byte[] {1});
        assertThat(r.recipients()).isEqualTo(6);
        assertThat(h.router.fanoutPeers(T)).hasSize(6);
        h.advance(59_000);
        h.heartbeat();
        assertThat(h.router.fanoutPeers(T)).hasSize(6);
        h.advance(2_000);
        h.heartbeat();
        assertThat(h.router.fanoutPeers(T)).isEmpty();
        // With flood publishing (the default) every topic peer gets our message.
        RouterHarness f = new RouterHarness(14);
        peers(f, 1, 10, false);
        assertThat(f.router.publish(T, new byte[] {1}).recipients()).isEqualTo(10);
    }

    @Test
    void strictNoSignPublishesBareMessagesWithContentIds() {
        RouterHarness h = new RouterHarness(PubsubConfig.defaults().withStrictNoSign(), 15);
        h.router.subscribe(T);
        PeerId p = peers(h, 1, 1, false).get(0);
        GossipsubRouter.PublishResult r = h.router.publish(T, new byte[] {9});
        assertThat(r.message().from()).isNull();
        assertThat(r.message().signature()).isNull();
        assertThat(r.id().length()).isEqualTo(32);
        // A signed message is refused under StrictNoSign.
        PubsubMessage signed =
                SignaturePolicy.STRICT_SIGN.author(RouterHarness.key(1), T, new byte[] {1}, new java.util.Random(1));
        h.rpc(p, Rpc.ofMessages(List.of(signed)));
        assertThat(h.delivered).isEmpty();
        assertThat(h.router.stats().messages().signatureRejections()).isEqualTo(1);
        h.rpc(p, Rpc.ofMessages(List.of(new PubsubMessage(null, new byte[] {2}, null, T, null, null))));
        assertThat(h.delivered).hasSize(1);
    }

    @Test
    void parametersAreValidated() {
        org.assertj.core.api.Assertions.assertThatThrownBy(
                        () -> GossipsubParams.builder().degree(6, 7, 12).build())
                .isInstanceOf(IllegalArgumentException.class);
        org.assertj.core.api.Assertions.assertThatThrownBy(
                        () -> GossipsubParams.builder().D_out(5).build())
                .isInstanceOf(IllegalArgumentException.class);
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> new GossipsubParams.Timing(
                        Duration.ofSeconds(1), Duration.ofSeconds(60), 3, 4, Duration.ofMinutes(2)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("mcache_gossip <= mcache_len");
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> PubsubConfig.defaults()
                        .withStrictNoSign()
                        .withMessageIdFunction(MessageIdFunction.FROM_AND_SEQNO))
                .isInstanceOf(IllegalArgumentException.class);
        GossipsubParams d = GossipsubParams.defaults();
        assertThat(d.degree()).isEqualTo(new GossipsubParams.Degree(6, 5, 12, 6, 4, 2));
        assertThat(d.timing().heartbeatInterval()).isEqualTo(Duration.ofSeconds(1));
        assertThat(d.timing().fanoutTTL()).isEqualTo(Duration.ofSeconds(60));
        assertThat(d.prune().doPX()).isFalse();
        assertThat(d.dissemination().floodPublish()).isTrue();
    }
}
