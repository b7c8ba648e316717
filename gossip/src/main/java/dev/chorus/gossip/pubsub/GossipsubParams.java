package dev.chorus.gossip.pubsub;

import java.time.Duration;

/**
 * Router parameters under the names of gossipsub-v1.0.md ("Parameters"), v1.1 ("Overview of New
 * Parameters") and v1.2 ({@code max_idontwant_messages}); defaults are the spec's reasonable defaults
 * (go's, with {@code D_lo} = 5). Built with {@link #builder()}, validated once by {@link Builder#build()}
 * and immutable afterwards.
 *
 * @param D the desired outbound degree of the mesh (6)
 * @param D_lo lower bound of the mesh degree (5)
 * @param D_hi upper bound of the mesh degree (12)
 * @param D_lazy minimum number of peers to emit gossip to (6)
 * @param D_score peers kept by score when pruning an oversubscribed mesh (4)
 * @param D_out outbound connections to keep in the mesh; below {@code D_lo} and at most {@code D/2} (2)
 * @param heartbeatInterval time between heartbeats (1 s)
 * @param fanoutTTL time a fanout topic is kept after the last publish (60 s)
 * @param mcacheLen heartbeat windows in the message cache (5)
 * @param mcacheGossip windows advertised in IHAVE (3)
 * @param seenTTL how long message ids are remembered (2 min)
 * @param seenCapacity most ids remembered at once
 * @param gossipFactor share of non-mesh peers gossiped to, at least {@code D_lazy} (0.25)
 * @param pruneBackoff backoff after a PRUNE (1 min)
 * @param unsubscribeBackoff backoff sent in PRUNEs when leaving a topic (10 s)
 * @param backoffSlack extra wait after a backoff expires before re-grafting (2 heartbeats' worth)
 * @param graftFloodThreshold a GRAFT this soon after our PRUNE earns an extra penalty (10 s)
 * @param floodPublish publish own messages to every topic peer above the publish threshold (true)
 * @param doPX include peer exchange in PRUNEs (false)
 * @param prunePeers peers sent with PX (16)
 * @param gossipRetransmission times a message is served to one peer by IWANT (3)
 * @param maxIHaveLength message ids requested from one peer per heartbeat (5000)
 * @param maxIHaveMessages IHAVE messages accepted from one peer per heartbeat (10)
 * @param iwantFollowupTime time an IHAVE's advertiser has to deliver an IWANTed message (3 s)
 * @param opportunisticGraftTicks heartbeats between opportunistic grafting rounds (60)
 * @param opportunisticGraftPeers peers grafted opportunistically per topic (2)
 * @param idontwantMinDataSize payload size from which IDONTWANT is sent (512 bytes, as js)
 * @param maxIDontWantMessages the spec's {@code max_idontwant_messages}: ids accepted per peer per
 *     heartbeat (512, as js)
 * @param idontwantTTL how long an IDONTWANT is honoured (3 heartbeats' worth)
 * @param maxTopicsPerPeer topics one peer may be subscribed to in our view (1024)
 * @param maxPendingValidations asynchronous validations in flight; beyond it messages are ignored (1024)
 * @param mcacheCapacity most messages held in the message cache
 * @param maxIWantPerHeartbeat message ids one peer may request per heartbeat before it is penalized
 */
public record GossipsubParams(
        int D,
        int D_lo,
        int D_hi,
        int D_lazy,
        int D_score,
        int D_out,
        Duration heartbeatInterval,
        Duration fanoutTTL,
        int mcacheLen,
        int mcacheGossip,
        Duration seenTTL,
        int seenCapacity,
        double gossipFactor,
        Duration pruneBackoff,
        Duration unsubscribeBackoff,
        Duration backoffSlack,
        Duration graftFloodThreshold,
        boolean floodPublish,
        boolean doPX,
        int prunePeers,
        int gossipRetransmission,
        int maxIHaveLength,
        int maxIHaveMessages,
        Duration iwantFollowupTime,
        int opportunisticGraftTicks,
        int opportunisticGraftPeers,
        int idontwantMinDataSize,
        int maxIDontWantMessages,
        Duration idontwantTTL,
        int maxTopicsPerPeer,
        int maxPendingValidations,
        int mcacheCapacity,
        int maxIWantPerHeartbeat) {

    public static GossipsubParams defaults() {
        return builder().build();
    }

    public static Builder builder() {
        return new Builder();
    }

    public Builder toBuilder() {
        Builder b = new Builder();
        b.D = D;
        b.D_lo = D_lo;
        b.D_hi = D_hi;
        b.D_lazy = D_lazy;
        b.D_score = D_score;
        b.D_out = D_out;
        b.heartbeatInterval = heartbeatInterval;
        b.fanoutTTL = fanoutTTL;
        b.mcacheLen = mcacheLen;
        b.mcacheGossip = mcacheGossip;
        b.seenTTL = seenTTL;
        b.seenCapacity = seenCapacity;
        b.gossipFactor = gossipFactor;
        b.pruneBackoff = pruneBackoff;
        b.unsubscribeBackoff = unsubscribeBackoff;
        b.backoffSlack = backoffSlack;
        b.graftFloodThreshold = graftFloodThreshold;
        b.floodPublish = floodPublish;
        b.doPX = doPX;
        b.prunePeers = prunePeers;
        b.gossipRetransmission = gossipRetransmission;
        b.maxIHaveLength = maxIHaveLength;
        b.maxIHaveMessages = maxIHaveMessages;
        b.iwantFollowupTime = iwantFollowupTime;
        b.opportunisticGraftTicks = opportunisticGraftTicks;
        b.opportunisticGraftPeers = opportunisticGraftPeers;
        b.idontwantMinDataSize = idontwantMinDataSize;
        b.maxIDontWantMessages = maxIDontWantMessages;
        b.idontwantTTL = idontwantTTL;
        b.maxTopicsPerPeer = maxTopicsPerPeer;
        b.maxPendingValidations = maxPendingValidations;
        b.mcacheCapacity = mcacheCapacity;
        b.maxIWantPerHeartbeat = maxIWantPerHeartbeat;
        return b;
    }

    /** Fluent, mutable; {@link #build()} validates. */
    public static final class Builder {
        private int D = 6;
        private int D_lo = 5;
        private int D_hi = 12;
        private int D_lazy = 6;
        private int D_score = 4;
        private int D_out = 2;
        private Duration heartbeatInterval = Duration.ofSeconds(1);
        private Duration fanoutTTL = Duration.ofSeconds(60);
        private int mcacheLen = 5;
        private int mcacheGossip = 3;
        private Duration seenTTL = Duration.ofMinutes(2);
        private int seenCapacity = 200_000;
        private double gossipFactor = 0.25;
        private Duration pruneBackoff = Duration.ofMinutes(1);
        private Duration unsubscribeBackoff = Duration.ofSeconds(10);
        private Duration backoffSlack = Duration.ofSeconds(2);
        private Duration graftFloodThreshold = Duration.ofSeconds(10);
        private boolean floodPublish = true;
        private boolean doPX = false;
        private int prunePeers = 16;
        private int gossipRetransmission = 3;
        private int maxIHaveLength = 5000;
        private int maxIHaveMessages = 10;
        private Duration iwantFollowupTime = Duration.ofSeconds(3);
        private int opportunisticGraftTicks = 60;
        private int opportunisticGraftPeers = 2;
        private int idontwantMinDataSize = 512;
        private int maxIDontWantMessages = 512;
        private Duration idontwantTTL = Duration.ofSeconds(3);
        private int maxTopicsPerPeer = 1024;
        private int maxPendingValidations = 1024;
        private int mcacheCapacity = 50_000;
        private int maxIWantPerHeartbeat = 5000;

        private Builder() {}

        /** Sets {@code D}, {@code D_lo} and {@code D_hi} together. */
        public Builder degree(int d, int dLo, int dHi) {
            this.D = d;
            this.D_lo = dLo;
            this.D_hi = dHi;
            return this;
        }

        public Builder D_lazy(int v) {
            this.D_lazy = v;
            return this;
        }

        public Builder D_score(int v) {
            this.D_score = v;
            return this;
        }

        public Builder D_out(int v) {
            this.D_out = v;
            return this;
        }

        public Builder heartbeatInterval(Duration v) {
            this.heartbeatInterval = v;
            return this;
        }

        public Builder fanoutTTL(Duration v) {
            this.fanoutTTL = v;
            return this;
        }

        public Builder mcache(int len, int gossip) {
            this.mcacheLen = len;
            this.mcacheGossip = gossip;
            return this;
        }

        public Builder seenTTL(Duration v) {
            this.seenTTL = v;
            return this;
        }

        public Builder seenCapacity(int v) {
            this.seenCapacity = v;
            return this;
        }

        public Builder gossipFactor(double v) {
            this.gossipFactor = v;
            return this;
        }

        public Builder pruneBackoff(Duration v) {
            this.pruneBackoff = v;
            return this;
        }

        public Builder unsubscribeBackoff(Duration v) {
            this.unsubscribeBackoff = v;
            return this;
        }

        public Builder backoffSlack(Duration v) {
            this.backoffSlack = v;
            return this;
        }

        public Builder graftFloodThreshold(Duration v) {
            this.graftFloodThreshold = v;
            return this;
        }

        public Builder floodPublish(boolean v) {
            this.floodPublish = v;
            return this;
        }

        public Builder doPX(boolean v) {
            this.doPX = v;
            return this;
        }

        public Builder prunePeers(int v) {
            this.prunePeers = v;
            return this;
        }

        public Builder gossipRetransmission(int v) {
            this.gossipRetransmission = v;
            return this;
        }

        public Builder maxIHaveLength(int v) {
            this.maxIHaveLength = v;
            return this;
        }

        public Builder maxIHaveMessages(int v) {
            this.maxIHaveMessages = v;
            return this;
        }

        public Builder iwantFollowupTime(Duration v) {
            this.iwantFollowupTime = v;
            return this;
        }

        public Builder opportunisticGraft(int ticks, int peers) {
            this.opportunisticGraftTicks = ticks;
            this.opportunisticGraftPeers = peers;
            return this;
        }

        public Builder idontwant(int minDataSize, int maxMessages, Duration ttl) {
            this.idontwantMinDataSize = minDataSize;
            this.maxIDontWantMessages = maxMessages;
            this.idontwantTTL = ttl;
            return this;
        }

        public Builder maxTopicsPerPeer(int v) {
            this.maxTopicsPerPeer = v;
            return this;
        }

        public Builder maxPendingValidations(int v) {
            this.maxPendingValidations = v;
            return this;
        }

        public Builder mcacheCapacity(int v) {
            this.mcacheCapacity = v;
            return this;
        }

        public Builder maxIWantPerHeartbeat(int v) {
            this.maxIWantPerHeartbeat = v;
            return this;
        }

        public GossipsubParams build() {
            require(D >= 0 && D_lo >= 0 && D_lo <= D && D <= D_hi, "need 0 <= D_lo <= D <= D_hi");
            require(
                    D_out >= 0 && (D == 0 || (D_out < D_lo || D_lo == 0) && D_out <= D / 2),
                    "need D_out < D_lo and D_out <= D/2");
            require(D_score >= 0 && D_score <= D, "need 0 <= D_score <= D");
            require(D_lazy >= 0, "D_lazy must be >= 0");
            require(positive(heartbeatInterval), "heartbeat interval must be positive");
            require(positive(fanoutTTL) && positive(seenTTL) && positive(iwantFollowupTime), "TTLs must be positive");
            require(
                    mcacheGossip >= 0 && mcacheGossip <= mcacheLen && mcacheLen >= 1,
                    "need mcache_gossip <= mcache_len");
            require(gossipFactor >= 0 && gossipFactor <= 1, "gossip factor must be in [0, 1]");
            require(
                    !pruneBackoff.isNegative() && !unsubscribeBackoff.isNegative() && !backoffSlack.isNegative(),
                    "backoffs must be >= 0");
            require(seenCapacity > 0 && mcacheCapacity > 0, "cache capacities must be positive");
            require(maxTopicsPerPeer > 0 && maxPendingValidations > 0, "limits must be positive");
            require(
                    gossipRetransmission >= 0 && maxIHaveLength >= 0 && maxIHaveMessages >= 0,
                    "gossip limits must be >= 0");
            require(
                    opportunisticGraftTicks > 0 && opportunisticGraftPeers >= 0,
                    "opportunistic graft ticks must be positive");
            require(idontwantMinDataSize >= 0 && maxIDontWantMessages >= 0, "IDONTWANT limits must be >= 0");
            return new GossipsubParams(
                    D,
                    D_lo,
                    D_hi,
                    D_lazy,
                    D_score,
                    D_out,
                    heartbeatInterval,
                    fanoutTTL,
                    mcacheLen,
                    mcacheGossip,
                    seenTTL,
                    seenCapacity,
                    gossipFactor,
                    pruneBackoff,
                    unsubscribeBackoff,
                    backoffSlack,
                    graftFloodThreshold,
                    floodPublish,
                    doPX,
                    prunePeers,
                    gossipRetransmission,
                    maxIHaveLength,
                    maxIHaveMessages,
                    iwantFollowupTime,
                    opportunisticGraftTicks,
                    opportunisticGraftPeers,
                    idontwantMinDataSize,
                    maxIDontWantMessages,
                    idontwantTTL,
                    maxTopicsPerPeer,
                    maxPendingValidations,
                    mcacheCapacity,
                    maxIWantPerHeartbeat);
        }

        private static boolean positive(Duration d) {
            return d != null && !d.isNegative() && !d.isZero();
        }

        private static void require(boolean ok, String what) {
            if (!ok) {
                throw new IllegalArgumentException("invalid gossipsub parameters: " + what);
            }
        }
    }
}
