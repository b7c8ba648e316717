package dev.chorus.gossip.pubsub;

import java.time.Duration;
import java.util.Objects;

/**
 * Router parameters under the names of gossipsub-v1.0.md ("Parameters"), v1.1 ("Overview of New
 * Parameters") and v1.2 ({@code max_idontwant_messages}); defaults are the spec's reasonable defaults
 * (go's, with {@code D_lo} = 5). Built with {@link #builder()} and immutable afterwards.
 *
 * <p>The parameters come in groups along the sections of the spec that define them, and each group validates its
 * own parameters when it is built, since every constraint the spec states relates parameters of one section only.
 *
 * @param degree mesh and gossip degrees: {@code D}, {@code D_lo}, {@code D_hi}, {@code D_lazy}, {@code D_score},
 *     {@code D_out}
 * @param timing heartbeat, fanout, message cache and seen-cache timing
 * @param dissemination flood publishing and the gossip factor
 * @param prune PRUNE backoff and peer exchange
 * @param spamProtection limits on IHAVE and IWANT gossip
 * @param opportunisticGraft how often and how many peers are grafted opportunistically
 * @param idontwant when IDONTWANT is sent and how much of it is honoured
 * @param limits bounds on this router's own state, which the spec leaves to implementations
 */
public record GossipsubParams(
        Degree degree,
        Timing timing,
        Dissemination dissemination,
        Prune prune,
        SpamProtection spamProtection,
        OpportunisticGraft opportunisticGraft,
        IDontWant idontwant,
        Limits limits) {

    /**
     * Mesh and gossip degrees (gossipsub-v1.0.md, "Parameters": {@code D}, {@code D_low}, {@code D_high},
     * {@code D_lazy}; gossipsub-v1.1.md, "Overview of New Parameters": {@code D_score}, {@code D_out}, whose bounds
     * come from "Outbound Mesh Quotas").
     *
     * @param D the desired outbound degree of the mesh (6)
     * @param D_lo lower bound of the mesh degree (5)
     * @param D_hi upper bound of the mesh degree (12)
     * @param D_lazy minimum number of peers to emit gossip to (6)
     * @param D_score peers kept by score when pruning an oversubscribed mesh (4)
     * @param D_out outbound connections to keep in the mesh; below {@code D_lo} and at most {@code D/2} (2)
     */
    public record Degree(int D, int D_lo, int D_hi, int D_lazy, int D_score, int D_out) {
        public Degree {
            require(D >= 0 && D_lo >= 0 && D_lo <= D && D <= D_hi, "need 0 <= D_lo <= D <= D_hi");
            require(
                    D_out >= 0 && (D == 0 || (D_out < D_lo || D_lo == 0) && D_out <= D / 2),
                    "need D_out < D_lo and D_out <= D/2");
            require(D_score >= 0 && D_score <= D, "need 0 <= D_score <= D");
            require(D_lazy >= 0, "D_lazy must be >= 0");
        }
    }

    /**
     * Timing (gossipsub-v1.0.md, "Parameters": {@code heartbeat_interval}, {@code fanout_ttl}, {@code mcache_len},
     * {@code mcache_gossip}, {@code seen_ttl}); the message cache's lengths count heartbeats.
     *
     * @param heartbeatInterval time between heartbeats (1 s)
     * @param fanoutTTL time a fanout topic is kept after the last publish (60 s)
     * @param mcacheLen heartbeat windows in the message cache (5)
     * @param mcacheGossip windows advertised in IHAVE (3)
     * @param seenTTL how long message ids are remembered (2 min)
     */
    public record Timing(
            Duration heartbeatInterval, Duration fanoutTTL, int mcacheLen, int mcacheGossip, Duration seenTTL) {
        public Timing {
            require(positive(heartbeatInterval), "heartbeat interval must be positive");
            require(positive(fanoutTTL) && positive(seenTTL), "TTLs must be positive");
            require(
                    mcacheGossip >= 0 && mcacheGossip <= mcacheLen && mcacheLen >= 1,
                    "need mcache_gossip <= mcache_len");
        }
    }

    /**
     * How messages reach peers beyond the mesh (gossipsub-v1.1.md, "Flood Publishing" and "Adaptive Gossip
     * Dissemination").
     *
     * @param floodPublish publish own messages to every topic peer above the publish threshold (true)
     * @param gossipFactor share of non-mesh peers gossiped to, at least {@code D_lazy} (0.25)
     */
    public record Dissemination(boolean floodPublish, double gossipFactor) {
        public Dissemination {
            require(gossipFactor >= 0 && gossipFactor <= 1, "gossip factor must be in [0, 1]");
        }
    }

    /**
     * PRUNE backoff and peer exchange (gossipsub-v1.1.md, "PRUNE Backoff and Peer Exchange").
     *
     * @param pruneBackoff backoff after a PRUNE (1 min)
     * @param unsubscribeBackoff backoff sent in PRUNEs when leaving a topic (10 s)
     * @param backoffSlack extra wait after a backoff expires before re-grafting (2 heartbeats' worth)
     * @param graftFloodThreshold a GRAFT this soon after our PRUNE earns an extra penalty (10 s)
     * @param doPX include peer exchange in PRUNEs (false)
     * @param prunePeers peers sent with PX (16)
     */
    public record Prune(
            Duration pruneBackoff,
            Duration unsubscribeBackoff,
            Duration backoffSlack,
            Duration graftFloodThreshold,
            boolean doPX,
            int prunePeers) {
        public Prune {
            require(
                    !pruneBackoff.isNegative() && !unsubscribeBackoff.isNegative() && !backoffSlack.isNegative(),
                    "backoffs must be >= 0");
            Objects.requireNonNull(graftFloodThreshold, "graftFloodThreshold");
        }
    }

    /**
     * Limits on gossip (gossipsub-v1.1.md, "Spam Protection Measures"): IWANT retransmissions, IHAVE caps per
     * heartbeat, and the time an IHAVE's promise has to be kept.
     *
     * @param gossipRetransmission times a message is served to one peer by IWANT (3)
     * @param maxIHaveLength message ids requested from one peer per heartbeat (5000)
     * @param maxIHaveMessages IHAVE messages accepted from one peer per heartbeat (10)
     * @param iwantFollowupTime time an IHAVE's advertiser has to deliver an IWANTed message (3 s)
     * @param maxIWantPerHeartbeat message ids one peer may request per heartbeat before it is penalized (5000)
     */
    public record SpamProtection(
            int gossipRetransmission,
            int maxIHaveLength,
            int maxIHaveMessages,
            Duration iwantFollowupTime,
            int maxIWantPerHeartbeat) {
        public SpamProtection {
            require(
                    gossipRetransmission >= 0 && maxIHaveLength >= 0 && maxIHaveMessages >= 0,
                    "gossip limits must be >= 0");
            require(positive(iwantFollowupTime), "TTLs must be positive");
        }
    }

    /**
     * Opportunistic grafting (gossipsub-v1.1.md, "Opportunistic Grafting").
     *
     * @param opportunisticGraftTicks heartbeats between opportunistic grafting rounds (60)
     * @param opportunisticGraftPeers peers grafted opportunistically per topic (2)
     */
    public record OpportunisticGraft(int opportunisticGraftTicks, int opportunisticGraftPeers) {
        public OpportunisticGraft {
            require(
                    opportunisticGraftTicks > 0 && opportunisticGraftPeers >= 0,
                    "opportunistic graft ticks must be positive");
        }
    }

    /**
     * IDONTWANT (gossipsub-v1.2.md).
     *
     * @param idontwantMinDataSize payload size from which IDONTWANT is sent (512 bytes, as js)
     * @param maxIDontWantMessages the spec's {@code max_idontwant_messages}: ids accepted per peer per
     *     heartbeat (512, as js)
     * @param idontwantTTL how long an IDONTWANT is honoured (3 heartbeats' worth)
     */
    public record IDontWant(int idontwantMinDataSize, int maxIDontWantMessages, Duration idontwantTTL) {
        public IDontWant {
            require(idontwantMinDataSize >= 0 && maxIDontWantMessages >= 0, "IDONTWANT limits must be >= 0");
            Objects.requireNonNull(idontwantTTL, "idontwantTTL");
        }
    }

    /**
     * Bounds on the router's own state, which the spec leaves to implementations: without them a peer could make the
     * router hold unbounded ids, messages, subscriptions or validations.
     *
     * @param seenCapacity most ids remembered at once (200 000)
     * @param mcacheCapacity most messages held in the message cache (50 000)
     * @param maxTopicsPerPeer topics one peer may be subscribed to in our view (1024)
     * @param maxPendingValidations asynchronous validations in flight; beyond it messages are ignored (1024)
     */
    public record Limits(int seenCapacity, int mcacheCapacity, int maxTopicsPerPeer, int maxPendingValidations) {
        public Limits {
            require(seenCapacity > 0 && mcacheCapacity > 0, "cache capacities must be positive");
            require(maxTopicsPerPeer > 0 && maxPendingValidations > 0, "limits must be positive");
        }
    }

    public GossipsubParams {
        Objects.requireNonNull(degree, "degree");
        Objects.requireNonNull(timing, "timing");
        Objects.requireNonNull(dissemination, "dissemination");
        Objects.requireNonNull(prune, "prune");
        Objects.requireNonNull(spamProtection, "spamProtection");
        Objects.requireNonNull(opportunisticGraft, "opportunisticGraft");
        Objects.requireNonNull(idontwant, "idontwant");
        Objects.requireNonNull(limits, "limits");
    }

    public static GossipsubParams defaults() {
        return builder().build();
    }

    public static Builder builder() {
        return new Builder();
    }

    public Builder toBuilder() {
        Builder b = new Builder();
        b.D = degree.D();
        b.D_lo = degree.D_lo();
        b.D_hi = degree.D_hi();
        b.D_lazy = degree.D_lazy();
        b.D_score = degree.D_score();
        b.D_out = degree.D_out();
        b.heartbeatInterval = timing.heartbeatInterval();
        b.fanoutTTL = timing.fanoutTTL();
        b.mcacheLen = timing.mcacheLen();
        b.mcacheGossip = timing.mcacheGossip();
        b.seenTTL = timing.seenTTL();
        b.floodPublish = dissemination.floodPublish();
        b.gossipFactor = dissemination.gossipFactor();
        b.pruneBackoff = prune.pruneBackoff();
        b.unsubscribeBackoff = prune.unsubscribeBackoff();
        b.backoffSlack = prune.backoffSlack();
        b.graftFloodThreshold = prune.graftFloodThreshold();
        b.doPX = prune.doPX();
        b.prunePeers = prune.prunePeers();
        b.gossipRetransmission = spamProtection.gossipRetransmission();
        b.maxIHaveLength = spamProtection.maxIHaveLength();
        b.maxIHaveMessages = spamProtection.maxIHaveMessages();
        b.iwantFollowupTime = spamProtection.iwantFollowupTime();
        b.maxIWantPerHeartbeat = spamProtection.maxIWantPerHeartbeat();
        b.opportunisticGraftTicks = opportunisticGraft.opportunisticGraftTicks();
        b.opportunisticGraftPeers = opportunisticGraft.opportunisticGraftPeers();
        b.idontwantMinDataSize = idontwant.idontwantMinDataSize();
        b.maxIDontWantMessages = idontwant.maxIDontWantMessages();
        b.idontwantTTL = idontwant.idontwantTTL();
        b.seenCapacity = limits.seenCapacity();
        b.mcacheCapacity = limits.mcacheCapacity();
        b.maxTopicsPerPeer = limits.maxTopicsPerPeer();
        b.maxPendingValidations = limits.maxPendingValidations();
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
            return new GossipsubParams(
                    new Degree(D, D_lo, D_hi, D_lazy, D_score, D_out),
                    new Timing(heartbeatInterval, fanoutTTL, mcacheLen, mcacheGossip, seenTTL),
                    new Dissemination(floodPublish, gossipFactor),
                    new Prune(pruneBackoff, unsubscribeBackoff, backoffSlack, graftFloodThreshold, doPX, prunePeers),
                    new SpamProtection(
                            gossipRetransmission,
                            maxIHaveLength,
                            maxIHaveMessages,
                            iwantFollowupTime,
                            maxIWantPerHeartbeat),
                    new OpportunisticGraft(opportunisticGraftTicks, opportunisticGraftPeers),
                    new IDontWant(idontwantMinDataSize, maxIDontWantMessages, idontwantTTL),
                    new Limits(seenCapacity, mcacheCapacity, maxTopicsPerPeer, maxPendingValidations));
        }
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
