package dev.chorus.gossip.pubsub;

import java.time.Duration;
import java.util.Objects;

/**
 * Per-topic score parameters (gossipsub-v1.1.md, "Overview of New Parameters", the table of parameters "applied to a
 * peer's behavior within a single topic"): the topic's weight, then one group per score term of "The Score
 * Function", as that table groups them, under the spec's parameter names. A topic without parameters does not
 * contribute to a peer's score.
 *
 * @param topicWeight how much behaviour in this topic contributes to the overall score
 * @param p1 P₁, time in mesh
 * @param p2 P₂, first message deliveries
 * @param p3 P₃, mesh message delivery rate
 * @param p3b P₃b, mesh message delivery failures
 * @param p4 P₄, invalid messages
 */
public record TopicScoreParams(
        double topicWeight,
        TimeInMesh p1,
        FirstMessageDeliveries p2,
        MeshMessageDeliveries p3,
        MeshFailurePenalty p3b,
        InvalidMessageDeliveries p4) {

    /**
     * P₁: a reward for time in the mesh, so that stable mesh peers outrank newcomers.
     *
     * @param timeInMeshWeight weight of P₁ (small, positive)
     * @param timeInMeshQuantum time a peer must be in the mesh to accrue one point
     * @param timeInMeshCap the most P₁ can reach
     */
    public record TimeInMesh(double timeInMeshWeight, Duration timeInMeshQuantum, double timeInMeshCap) {
        public TimeInMesh {
            if (timeInMeshWeight < 0
                    || timeInMeshCap < 0
                    || timeInMeshQuantum.isZero()
                    || timeInMeshQuantum.isNegative()) {
                throw new IllegalArgumentException("TimeInMesh weight and cap must be >= 0, quantum positive");
            }
        }
    }

    /**
     * P₂: a reward for delivering messages first, so that fast peers are kept.
     *
     * @param firstMessageDeliveriesWeight weight of P₂ (positive)
     * @param firstMessageDeliveriesDecay decay factor of P₂ per decay interval
     * @param firstMessageDeliveriesCap the most P₂ can reach
     */
    public record FirstMessageDeliveries(
            double firstMessageDeliveriesWeight, double firstMessageDeliveriesDecay, double firstMessageDeliveriesCap) {
        public FirstMessageDeliveries {
            requireDecay(firstMessageDeliveriesDecay, "FirstMessageDeliveriesDecay");
            if (firstMessageDeliveriesWeight < 0 || firstMessageDeliveriesCap < 0) {
                throw new IllegalArgumentException("FirstMessageDeliveries weight and cap must be >= 0");
            }
        }
    }

    /**
     * P₃: a penalty, squared, for a mesh peer that delivers fewer messages than the threshold, so that peers which
     * hold back messages leave the mesh.
     *
     * @param meshMessageDeliveriesWeight weight of P₃ (negative; zero switches P₃ off)
     * @param meshMessageDeliveriesDecay decay factor of the delivery counter per decay interval
     * @param meshMessageDeliveriesThreshold counter value below which the penalty applies
     * @param meshMessageDeliveriesCap the most the counter can reach, at least the threshold
     * @param meshMessageDeliveriesActivation time in the mesh before P₃ applies
     * @param meshMessageDeliveryWindow time after the first delivery in which a duplicate still counts
     */
    public record MeshMessageDeliveries(
            double meshMessageDeliveriesWeight,
            double meshMessageDeliveriesDecay,
            double meshMessageDeliveriesThreshold,
            double meshMessageDeliveriesCap,
            Duration meshMessageDeliveriesActivation,
            Duration meshMessageDeliveryWindow) {
        public MeshMessageDeliveries {
            requireDecay(meshMessageDeliveriesDecay, "MeshMessageDeliveriesDecay");
            if (meshMessageDeliveriesWeight > 0) {
                throw new IllegalArgumentException("MeshMessageDeliveriesWeight must be <= 0");
            }
            if (meshMessageDeliveriesWeight != 0
                    && (meshMessageDeliveriesThreshold <= 0
                            || meshMessageDeliveriesCap < meshMessageDeliveriesThreshold)) {
                throw new IllegalArgumentException(
                        "need 0 < MeshMessageDeliveriesThreshold <= MeshMessageDeliveriesCap");
            }
            Objects.requireNonNull(meshMessageDeliveriesActivation, "meshMessageDeliveriesActivation");
            Objects.requireNonNull(meshMessageDeliveryWindow, "meshMessageDeliveryWindow");
        }

        /** The same settings with P₃ switched off. */
        MeshMessageDeliveries withoutPenalty() {
            return new MeshMessageDeliveries(
                    0,
                    meshMessageDeliveriesDecay,
                    meshMessageDeliveriesThreshold,
                    meshMessageDeliveriesCap,
                    meshMessageDeliveriesActivation,
                    meshMessageDeliveryWindow);
        }
    }

    /**
     * P₃b: a sticky penalty for a peer pruned while it under-delivered, so that it is not grafted right back.
     *
     * @param meshFailurePenaltyWeight weight of P₃b (negative; zero switches P₃b off)
     * @param meshFailurePenaltyDecay decay factor of P₃b per decay interval
     */
    public record MeshFailurePenalty(double meshFailurePenaltyWeight, double meshFailurePenaltyDecay) {
        public MeshFailurePenalty {
            requireDecay(meshFailurePenaltyDecay, "MeshFailurePenaltyDecay");
            if (meshFailurePenaltyWeight > 0) {
                throw new IllegalArgumentException("MeshFailurePenaltyWeight must be <= 0");
            }
        }
    }

    /**
     * P₄: a penalty, squared, for invalid messages, so that spammers are graylisted quickly.
     *
     * @param invalidMessageDeliveriesWeight weight of P₄ (negative)
     * @param invalidMessageDeliveriesDecay decay factor of P₄ per decay interval
     */
    public record InvalidMessageDeliveries(
            double invalidMessageDeliveriesWeight, double invalidMessageDeliveriesDecay) {
        public InvalidMessageDeliveries {
            requireDecay(invalidMessageDeliveriesDecay, "InvalidMessageDeliveriesDecay");
            if (invalidMessageDeliveriesWeight > 0) {
                throw new IllegalArgumentException("InvalidMessageDeliveriesWeight must be <= 0");
            }
        }
    }

    public TopicScoreParams {
        if (topicWeight < 0) {
            throw new IllegalArgumentException("TopicWeight must be >= 0");
        }
        Objects.requireNonNull(p1, "p1");
        Objects.requireNonNull(p2, "p2");
        Objects.requireNonNull(p3, "p3");
        Objects.requireNonNull(p3b, "p3b");
        Objects.requireNonNull(p4, "p4");
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
                new TimeInMesh(1, Duration.ofMillis(1), 3600),
                new FirstMessageDeliveries(1, 0.5, 2000),
                new MeshMessageDeliveries(-1, 0.5, 20, 100, Duration.ofSeconds(5), Duration.ofMillis(10)),
                new MeshFailurePenalty(-1, 0.5),
                new InvalidMessageDeliveries(-1, 0.3));
    }

    /** The same parameters with P3 and P3b switched off, for topics with a low or irregular rate. */
    public TopicScoreParams withoutMeshDeliveryPenalty() {
        return new TopicScoreParams(
                topicWeight, p1, p2, p3.withoutPenalty(), new MeshFailurePenalty(0, p3b.meshFailurePenaltyDecay()), p4);
    }
}
