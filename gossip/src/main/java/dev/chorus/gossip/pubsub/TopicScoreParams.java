package dev.chorus.gossip.pubsub;

import java.time.Duration;

/**
 * Per-topic score parameters (gossipsub-v1.1.md, "Overview of New Parameters"): P1 time in mesh, P2 first
 * message deliveries, P3 mesh message delivery rate, P3b mesh delivery failures, P4 invalid messages.
 * A topic without parameters does not contribute to a peer's score.
 */
public record TopicScoreParams(
        double topicWeight,
        double timeInMeshWeight,
        Duration timeInMeshQuantum,
        double timeInMeshCap,
        double firstMessageDeliveriesWeight,
        double firstMessageDeliveriesDecay,
        double firstMessageDeliveriesCap,
        double meshMessageDeliveriesWeight,
        double meshMessageDeliveriesDecay,
        double meshMessageDeliveriesThreshold,
        double meshMessageDeliveriesCap,
        Duration meshMessageDeliveriesActivation,
        Duration meshMessageDeliveryWindow,
        double meshFailurePenaltyWeight,
        double meshFailurePenaltyDecay,
        double invalidMessageDeliveriesWeight,
        double invalidMessageDeliveriesDecay) {

    public TopicScoreParams {
        requireDecay(firstMessageDeliveriesDecay, "FirstMessageDeliveriesDecay");
        requireDecay(meshMessageDeliveriesDecay, "MeshMessageDeliveriesDecay");
        requireDecay(meshFailurePenaltyDecay, "MeshFailurePenaltyDecay");
        requireDecay(invalidMessageDeliveriesDecay, "InvalidMessageDeliveriesDecay");
        if (topicWeight < 0) {
            throw new IllegalArgumentException("TopicWeight must be >= 0");
        }
        if (timeInMeshWeight < 0 || timeInMeshCap < 0 || timeInMeshQuantum.isZero() || timeInMeshQuantum.isNegative()) {
            throw new IllegalArgumentException("TimeInMesh weight and cap must be >= 0, quantum positive");
        }
        if (firstMessageDeliveriesWeight < 0 || firstMessageDeliveriesCap < 0) {
            throw new IllegalArgumentException("FirstMessageDeliveries weight and cap must be >= 0");
        }
        if (meshMessageDeliveriesWeight > 0 || meshFailurePenaltyWeight > 0 || invalidMessageDeliveriesWeight > 0) {
            throw new IllegalArgumentException("P3, P3b and P4 weights must be <= 0");
        }
        if (meshMessageDeliveriesWeight != 0
                && (meshMessageDeliveriesThreshold <= 0 || meshMessageDeliveriesCap < meshMessageDeliveriesThreshold)) {
            throw new IllegalArgumentException("need 0 < MeshMessageDeliveriesThreshold <= MeshMessageDeliveriesCap");
        }
    }

    private static void requireDecay(double d, String name) {
        if (!(d > 0 && d < 1)) {
            throw new IllegalArgumentException(name + " must be in (0, 1), got " + d);
        }
    }

    /**
     * A starting point, js-libp2p-gossipsub's default topic parameters; P3's threshold (20 messages per
     * decay period) fits a busy topic and should be tuned to the topic's real rate.
     */
    public static TopicScoreParams defaults() {
        return new TopicScoreParams(
                0.5,
                1,
                Duration.ofMillis(1),
                3600,
                1,
                0.5,
                2000,
                -1,
                0.5,
                20,
                100,
                Duration.ofSeconds(5),
                Duration.ofMillis(10),
                -1,
                0.5,
                -1,
                0.3);
    }

    /** The same parameters with P3 and P3b switched off, for topics with a low or irregular rate. */
    public TopicScoreParams withoutMeshDeliveryPenalty() {
        return new TopicScoreParams(
                topicWeight,
                timeInMeshWeight,
                timeInMeshQuantum,
                timeInMeshCap,
                firstMessageDeliveriesWeight,
                firstMessageDeliveriesDecay,
                firstMessageDeliveriesCap,
                0,
                meshMessageDeliveriesDecay,
                meshMessageDeliveriesThreshold,
                meshMessageDeliveriesCap,
                meshMessageDeliveriesActivation,
                meshMessageDeliveryWindow,
                0,
                meshFailurePenaltyDecay,
                invalidMessageDeliveriesWeight,
                invalidMessageDeliveriesDecay);
    }
}
