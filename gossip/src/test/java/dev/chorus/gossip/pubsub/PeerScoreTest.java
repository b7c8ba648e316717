package dev.chorus.gossip.pubsub;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.data.Offset.offset;

import dev.chorus.gossip.identity.PeerId;
import java.net.InetAddress;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Each score component (gossipsub-v1.1.md, "The Score Function") with hand-computed values. */
class PeerScoreTest {
    static final String T = "t";
    static final PeerId A = RouterHarness.key(1).peerId();
    static final PeerId B = RouterHarness.key(2).peerId();

    /** One topic, weight 1, with round numbers so every value can be checked by hand. */
    static TopicScoreParams topic() {
        return new TopicScoreParams(
                1, // topic weight
                new TopicScoreParams.TimeInMesh(0.5, Duration.ofSeconds(1), 10), // weight, quantum, cap
                new TopicScoreParams.FirstMessageDeliveries(2, 0.5, 100), // weight, decay, cap
                new TopicScoreParams.MeshMessageDeliveries(
                        -1, 0.5, 4, 10, Duration.ofSeconds(5), Duration.ofMillis(10)), // weight, decay, threshold, cap
                new TopicScoreParams.MeshFailurePenalty(-3, 0.5),
                new TopicScoreParams.InvalidMessageDeliveries(-2, 0.5));
    }

    static PeerScore score(PeerScoreParams params) {
        return new PeerScore(params, 120_000, 10_000, 0);
    }

    static PeerScoreParams params() {
        return PeerScoreParams.defaults().withTopics(Map.of(T, topic())).withIpColocation(0, 10, List.of());
    }

    static MessageId id(int i) {
        return MessageId.of(new byte[] {(byte) i});
    }

    @Test
    void timeInMeshGrowsByQuantumUpToTheCap() {
        PeerScore s = score(params());
        s.addPeer(A, null);
        s.graft(A, T, 0);
        assertThat(s.score(A, 3_000)).isCloseTo(1.5, offset(1e-9)); // 3 quanta * 0.5
        assertThat(s.score(A, 60_000)).isCloseTo(5, offset(1e-9)); // capped at 10 quanta
        s.prune(A, T);
        assertThat(s.score(A, 60_000)).isZero();
    }

    @Test
    void firstDeliveriesRewardAndDecay() {
        PeerScore s = score(params());
        s.addPeer(A, null);
        s.addPeer(B, null);
        for (int i = 0; i < 3; i++) {
            s.validateMessage(A, id(i), 0);
            s.deliverMessage(A, id(i), T, 0);
            s.duplicateMessage(B, id(i), T, 0); // not in the mesh: no credit
        }
        assertThat(s.score(A, 0)).isCloseTo(6, offset(1e-9)); // P2 = 3, weight 2
        assertThat(s.score(B, 0)).isZero();
        s.refresh(1000);
        assertThat(s.score(A, 1000)).isCloseTo(3, offset(1e-9));
        s.refresh(2000);
        s.refresh(3000);
        s.refresh(4000); // 0.1875 < DecayToZero 0.1? no: 3*0.5^4 = 0.1875
        assertThat(s.score(A, 4000)).isCloseTo(0.375, offset(1e-9));
        s.refresh(5000); // 0.09375 < 0.1: zero
        assertThat(s.score(A, 5000)).isZero();
    }

    @Test
    void meshDeliveryDeficitAppliesAfterActivationAndStaysAsAFailurePenalty() {
        PeerScore s = score(params());
        s.addPeer(A, null);
        s.graft(A, T, 0);
        s.validateMessage(B, id(1), 0);
        s.deliverMessage(B, id(1), T, 0);
        s.duplicateMessage(A, id(1), T, 5); // near-first (within 10 ms): counts for P3
        s.refresh(4000);
        // Not active yet: only P1 (4 quanta * 0.5 = 2).
        assertThat(s.score(A, 4000)).isCloseTo(2, offset(1e-9));
        s.refresh(6000);
        // Active: deliveries 1 decayed to 0 after 6 decays (1/64 < 0.1); deficit 4, P3 = -16.
        assertThat(s.score(A, 6000)).isCloseTo(3 - 16, offset(1e-9));
        s.prune(A, T);
        // P3b = 16 with weight -3; P1 and P3 gone with the mesh.
        assertThat(s.score(A, 6000)).isCloseTo(-48, offset(1e-9));
        s.refresh(7000);
        assertThat(s.score(A, 7000)).isCloseTo(-24, offset(1e-9));
    }

    @Test
    void lateDuplicatesDoNotCountAsNearFirst() {
        PeerScore s = score(params());
        s.addPeer(A, null);
        s.graft(A, T, 0);
        s.validateMessage(B, id(1), 0);
        s.deliverMessage(B, id(1), T, 0);
        s.duplicateMessage(A, id(1), T, 50); // 50 ms after validation: too late
        s.refresh(6000);
        assertThat(s.score(A, 6000)).isCloseTo(3 - 16, offset(1e-9));
    }

    @Test
    void invalidMessagesArePenalizedSquaredForEveryDeliverer() {
        PeerScore s = score(params());
        s.addPeer(A, null);
        s.addPeer(B, null);
        s.validateMessage(A, id(1), 0);
        s.duplicateMessage(B, id(1), T, 1); // relayed while pending
        s.rejectMessage(A, id(1), T);
        s.rejectMessage(A, null, T); // e.g. a bad signature: not tracked, still P4
        assertThat(s.score(A, 0)).isCloseTo(-2 * 4, offset(1e-9));
        assertThat(s.score(B, 0)).isCloseTo(-2, offset(1e-9));
        // A copy arriving after the rejection is invalid too.
        PeerId c = RouterHarness.key(3).peerId();
        s.addPeer(c, null);
        s.duplicateMessage(c, id(1), T, 2);
        assertThat(s.score(c, 0)).isCloseTo(-2, offset(1e-9));
    }

    @Test
    void ignoredMessagesCostNothing() {
        PeerScore s = score(params());
        s.addPeer(A, null);
        s.addPeer(B, null);
        s.validateMessage(A, id(1), 0);
        s.duplicateMessage(B, id(1), T, 1);
        s.ignoreMessage(id(1));
        assertThat(s.score(A, 0)).isZero();
        assertThat(s.score(B, 0)).isZero();
    }

    @Test
    void topicCapLimitsThePositiveTopicContribution() {
        PeerScore s = score(params()); // cap 10 by default
        s.addPeer(A, null);
        for (int i = 0; i < 20; i++) {
            s.validateMessage(A, id(i), 0);
            s.deliverMessage(A, id(i), T, 0);
        }
        assertThat(s.score(A, 0)).isCloseTo(10, offset(1e-9));
    }

    @Test
    void applicationSpecificScore() {
        PeerScore s = score(params().withAppSpecificScore(p -> p.equals(A) ? -3 : 1, 10));
        s.addPeer(A, null);
        s.addPeer(B, null);
        assertThat(s.score(A, 0)).isCloseTo(-30, offset(1e-9));
        assertThat(s.score(B, 0)).isCloseTo(10, offset(1e-9));
    }

    @Test
    void ipColocationPenalizesTheSurplusSquaredExceptWhitelisted() throws Exception {
        InetAddress shared = InetAddress.getByAddress(new byte[] {127, 0, 0, 9});
        PeerScore s = score(params().withIpColocation(-5, 2, List.of()));
        for (int i = 1; i <= 4; i++) {
            s.addPeer(RouterHarness.key(i).peerId(), shared);
        }
        assertThat(s.score(A, 0)).isCloseTo(-5 * 4, offset(1e-9)); // 4 peers, threshold 2: (4-2)^2
        s.removePeer(RouterHarness.key(4).peerId(), 0);
        assertThat(s.score(A, 0)).isCloseTo(-5, offset(1e-9));
        PeerScore w = score(params().withIpColocation(-5, 2, List.of("127.0.0.0/24")));
        for (int i = 1; i <= 4; i++) {
            w.addPeer(RouterHarness.key(i).peerId(), shared);
        }
        assertThat(w.score(A, 0)).isZero();
    }

    @Test
    void behaviourPenaltyIsSquaredAboveItsThresholdAndDecays() {
        PeerScore s = score(params().withBehaviourPenalty(-10, 1, 0.5));
        s.addPeer(A, null);
        s.addPenalty(A, 1);
        assertThat(s.score(A, 0)).isZero(); // at the threshold
        s.addPenalty(A, 2);
        assertThat(s.score(A, 0)).isCloseTo(-40, offset(1e-9)); // (3-1)^2 * -10
        s.refresh(1000);
        assertThat(s.score(A, 1000)).isCloseTo(-2.5, offset(1e-9)); // 1.5 -> (0.5)^2 * -10
    }

    @Test
    void negativeScoresSurviveADisconnectAndPositiveOnesAreForgotten() {
        PeerScore s = score(params());
        s.addPeer(A, null);
        s.addPeer(B, null);
        s.addPenalty(A, 2);
        s.validateMessage(B, id(1), 0);
        s.deliverMessage(B, id(1), T, 0);
        s.removePeer(A, 0);
        s.removePeer(B, 0);
        s.addPeer(A, null);
        s.addPeer(B, null);
        assertThat(s.score(A, 0)).isCloseTo(-40, offset(1e-9));
        assertThat(s.score(B, 0)).isZero();
        // After RetainScore (1 h) a disconnected peer is forgotten.
        s.removePeer(A, 0);
        s.refresh(3_600_001);
        assertThat(s.trackedPeers()).isEqualTo(1);
    }
}
