package dev.chorus.gossip.pubsub;

import dev.chorus.gossip.identity.PeerId;
import java.net.InetAddress;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;

/**
 * Peer scoring v1.1 (gossipsub-v1.1.md, "The Score Function"):
 *
 * <pre>
 * Score(p) = TopicCap(Σ tᵢ·(w₁P₁ + w₂P₂ + w₃P₃ + w₃bP₃b + w₄P₄)) + w₅P₅ + w₆P₆ + w₇P₇
 * </pre>
 *
 * Counters are updated by the router on events (graft, prune, first and near-first deliveries,
 * invalid messages, penalties) and decay at every {@link #refresh(long)} once a decay interval has
 * passed. A disconnected peer's counters are kept for {@code RetainScore}, so that reconnecting does not
 * reset a negative score. Message delivery records, which tie duplicates seen during validation to the
 * message's fate, expire after the seen TTL and are bounded in number. Not thread-safe: owned by the
 * router.
 */
public final class PeerScore {
    /** The fate of a message, for peers that delivered copies of it. */
    private enum Status {
        PENDING,
        VALID,
        INVALID,
        IGNORED
    }

    private static final class DeliveryRecord {
        Status status = Status.PENDING;
        long firstSeen;
        long validated;
        final Set<PeerId> peers = new HashSet<>();
        final long expires;

        DeliveryRecord(long now, long expires) {
            this.firstSeen = now;
            this.expires = expires;
        }
    }

    static final class TopicStats {
        boolean inMesh;
        long graftTime;
        long meshTime;
        boolean meshMessageDeliveriesActive;
        double firstMessageDeliveries;
        double meshMessageDeliveries;
        double meshFailurePenalty;
        double invalidMessageDeliveries;
    }

    static final class PeerStats {
        boolean connected = true;
        long expire;
        final Map<String, TopicStats> topics = new HashMap<>();
        InetAddress ip;
        double behaviourPenalty;
    }

    private final PeerScoreParams params;
    private final long deliveryRecordTtl;
    private final int maxDeliveryRecords;
    private final Map<PeerId, PeerStats> peers = new HashMap<>();
    private final Map<InetAddress, Set<PeerId>> peersByIp = new HashMap<>();
    private final LinkedHashMap<MessageId, DeliveryRecord> deliveries = new LinkedHashMap<>();
    private long lastDecay;
    private int retained;
    static final int MAX_RETAINED = 8192;

    public PeerScore(PeerScoreParams params, long deliveryRecordTtlMillis, int maxDeliveryRecords, long now) {
        this.params = params;
        this.deliveryRecordTtl = deliveryRecordTtlMillis;
        this.maxDeliveryRecords = maxDeliveryRecords;
        this.lastDecay = now;
    }

    public PeerScoreParams params() {
        return params;
    }

    // ---------------------------------------------------------------- score

    public double score(PeerId peer, long now) {
        PeerStats ps = peers.get(peer);
        if (ps == null) {
            return 0;
        }
        double topicScore = 0;
        for (Map.Entry<String, TopicStats> e : ps.topics.entrySet()) {
            TopicScoreParams tp = params.topics().get(e.getKey());
            if (tp == null) {
                continue;
            }
            TopicStats ts = e.getValue();
            double s = 0;
            if (ts.inMesh) {
                TopicScoreParams.TimeInMesh p1 = tp.p1();
                double quanta =
                        (double) meshTime(ts, now) / p1.timeInMeshQuantum().toMillis();
                s += Math.min(quanta, p1.timeInMeshCap()) * p1.timeInMeshWeight();
            }
            s += ts.firstMessageDeliveries * tp.p2().firstMessageDeliveriesWeight();
            TopicScoreParams.MeshMessageDeliveries p3 = tp.p3();
            if (ts.meshMessageDeliveriesActive && ts.meshMessageDeliveries < p3.meshMessageDeliveriesThreshold()) {
                double deficit = p3.meshMessageDeliveriesThreshold() - ts.meshMessageDeliveries;
                s += deficit * deficit * p3.meshMessageDeliveriesWeight();
            }
            s += ts.meshFailurePenalty * tp.p3b().meshFailurePenaltyWeight();
            s += ts.invalidMessageDeliveries
                    * ts.invalidMessageDeliveries
                    * tp.p4().invalidMessageDeliveriesWeight();
            topicScore += s * tp.topicWeight();
        }
        if (params.topicScoreCap() > 0 && topicScore > params.topicScoreCap()) {
            topicScore = params.topicScoreCap();
        }
        double score = topicScore;
        PeerScoreParams.AppSpecific p5 = params.p5();
        score += p5.appSpecificScore().applyAsDouble(peer) * p5.appSpecificWeight();
        score += ipColocationFactor(ps) * params.p6().ipColocationFactorWeight();
        PeerScoreParams.BehaviourPenalty p7 = params.p7();
        if (ps.behaviourPenalty > p7.behaviourPenaltyThreshold()) {
            double excess = ps.behaviourPenalty - p7.behaviourPenaltyThreshold();
            score += excess * excess * p7.behaviourPenaltyWeight();
        }
        return score;
    }

    private double ipColocationFactor(PeerStats ps) {
        PeerScoreParams.IpColocation p6 = params.p6();
        if (ps.ip == null || p6.ipColocationFactorWeight() == 0 || p6.whitelisted(ps.ip)) {
            return 0;
        }
        Set<PeerId> same = peersByIp.get(ps.ip);
        int n = same == null ? 0 : same.size();
        if (n <= p6.ipColocationFactorThreshold()) {
            return 0;
        }
        double surplus = n - p6.ipColocationFactorThreshold();
        return surplus * surplus;
    }

    private static long meshTime(TopicStats ts, long now) {
        return Math.max(0, now - ts.graftTime);
    }

    // ---------------------------------------------------------------- peers

    public void addPeer(PeerId peer, InetAddress ip) {
        PeerStats ps = peers.computeIfAbsent(peer, k -> new PeerStats());
        if (!ps.connected) {
            retained--;
        }
        ps.connected = true;
        if (ip != null && !ip.equals(ps.ip)) {
            forgetIp(peer, ps);
            ps.ip = ip;
            peersByIp.computeIfAbsent(ip, k -> new HashSet<>()).add(peer);
        }
    }

    /** The peer disconnected: its counters are retained for {@code RetainScore}. */
    public void removePeer(PeerId peer, long now) {
        PeerStats ps = peers.get(peer);
        if (ps == null) {
            return;
        }
        // A positive score is not worth remembering; a negative one must survive a reconnect.
        if (score(peer, now) > 0) {
            forgetIp(peer, ps);
            peers.remove(peer);
            return;
        }
        for (Map.Entry<String, TopicStats> e : ps.topics.entrySet()) {
            TopicStats ts = e.getValue();
            TopicScoreParams tp = params.topics().get(e.getKey());
            if (ts.inMesh && tp != null) {
                applyMeshFailure(ts, tp);
            }
            ts.inMesh = false;
            ts.meshMessageDeliveriesActive = false;
            ts.firstMessageDeliveries = 0; // no reward for a peer that left
        }
        ps.connected = false;
        ps.expire = now + params.retainScore().toMillis();
        forgetIp(peer, ps);
        if (++retained > MAX_RETAINED) {
            evictOldestRetained();
        }
    }

    /** Retained scores are bounded: beyond the cap, the one that would expire first goes. */
    private void evictOldestRetained() {
        PeerId oldest = null;
        long min = Long.MAX_VALUE;
        for (Map.Entry<PeerId, PeerStats> e : peers.entrySet()) {
            if (!e.getValue().connected && e.getValue().expire < min) {
                min = e.getValue().expire;
                oldest = e.getKey();
            }
        }
        if (oldest != null) {
            peers.remove(oldest);
            retained--;
        }
    }

    private void forgetIp(PeerId peer, PeerStats ps) {
        if (ps.ip == null) {
            return;
        }
        Set<PeerId> set = peersByIp.get(ps.ip);
        if (set != null) {
            set.remove(peer);
            if (set.isEmpty()) {
                peersByIp.remove(ps.ip);
            }
        }
    }

    public void graft(PeerId peer, String topic, long now) {
        TopicStats ts = topicStats(peer, topic);
        if (ts == null) {
            return;
        }
        ts.inMesh = true;
        ts.graftTime = now;
        ts.meshTime = 0;
        ts.meshMessageDeliveriesActive = false;
    }

    public void prune(PeerId peer, String topic) {
        TopicStats ts = topicStats(peer, topic);
        if (ts == null) {
            return;
        }
        applyMeshFailure(ts, params.topics().get(topic));
        ts.inMesh = false;
        ts.meshMessageDeliveriesActive = false;
    }

    /** P3b: a peer leaving the mesh with a delivery deficit keeps it as a sticky penalty. */
    private static void applyMeshFailure(TopicStats ts, TopicScoreParams tp) {
        if (ts.meshMessageDeliveriesActive && ts.meshMessageDeliveries < tp.p3().meshMessageDeliveriesThreshold()) {
            double deficit = tp.p3().meshMessageDeliveriesThreshold() - ts.meshMessageDeliveries;
            ts.meshFailurePenalty += deficit * deficit;
        }
    }

    /** P7: adds {@code count} to the peer's behaviour penalty counter. */
    public void addPenalty(PeerId peer, int count) {
        PeerStats ps = peers.get(peer);
        if (ps != null) {
            ps.behaviourPenalty += count;
        }
    }

    public double behaviourPenalty(PeerId peer) {
        PeerStats ps = peers.get(peer);
        return ps == null ? 0 : ps.behaviourPenalty;
    }

    private TopicStats topicStats(PeerId peer, String topic) {
        if (!params.topics().containsKey(topic)) {
            return null;
        }
        PeerStats ps = peers.get(peer);
        if (ps == null) {
            return null;
        }
        return ps.topics.computeIfAbsent(topic, k -> new TopicStats());
    }

    // ---------------------------------------------------------------- message events

    /** A message was seen for the first time and passed the signature check; validation starts. */
    public void validateMessage(PeerId from, MessageId id, long now) {
        pruneDeliveries(now);
        if (deliveries.size() >= maxDeliveryRecords) {
            Iterator<MessageId> it = deliveries.keySet().iterator();
            it.next();
            it.remove();
        }
        DeliveryRecord r = new DeliveryRecord(now, now + deliveryRecordTtl);
        deliveries.put(id, r);
    }

    /** The message passed validation: P2 for its first deliverer, P3 for near-first mesh deliverers. */
    public void deliverMessage(PeerId from, MessageId id, String topic, long now) {
        markFirstDelivery(from, topic);
        DeliveryRecord r = deliveries.get(id);
        if (r == null || r.status != Status.PENDING) {
            return;
        }
        r.status = Status.VALID;
        r.validated = now;
        for (PeerId p : r.peers) {
            if (!p.equals(from)) {
                markDuplicateDelivery(p, topic, now, r);
            }
        }
    }

    /** The message failed validation (or the signature check): P4 for everyone who delivered it. */
    public void rejectMessage(PeerId from, MessageId id, String topic) {
        markInvalidDelivery(from, topic);
        DeliveryRecord r = id == null ? null : deliveries.get(id);
        if (r == null || r.status != Status.PENDING) {
            return;
        }
        r.status = Status.INVALID;
        for (PeerId p : r.peers) {
            markInvalidDelivery(p, topic);
        }
        r.peers.clear();
    }

    /** The validator ignored the message: no score change for anyone. */
    public void ignoreMessage(MessageId id) {
        DeliveryRecord r = deliveries.get(id);
        if (r != null && r.status == Status.PENDING) {
            r.status = Status.IGNORED;
            r.peers.clear();
        }
    }

    /** A copy of an already seen message arrived from {@code from}. */
    public void duplicateMessage(PeerId from, MessageId id, String topic, long now) {
        DeliveryRecord r = deliveries.get(id);
        if (r == null || r.peers.contains(from)) {
            return;
        }
        switch (r.status) {
            case PENDING -> {
                if (r.peers.size() < 1024) {
                    r.peers.add(from);
                }
            }
            case VALID -> {
                r.peers.add(from);
                markDuplicateDelivery(from, topic, now, r);
            }
            case INVALID -> markInvalidDelivery(from, topic);
            case IGNORED -> {}
        }
    }

    private void markFirstDelivery(PeerId peer, String topic) {
        TopicStats ts = topicStats(peer, topic);
        if (ts == null) {
            return;
        }
        TopicScoreParams tp = params.topics().get(topic);
        ts.firstMessageDeliveries =
                Math.min(ts.firstMessageDeliveries + 1, tp.p2().firstMessageDeliveriesCap());
        if (ts.inMesh) {
            ts.meshMessageDeliveries =
                    Math.min(ts.meshMessageDeliveries + 1, tp.p3().meshMessageDeliveriesCap());
        }
    }

    private void markDuplicateDelivery(PeerId peer, String topic, long now, DeliveryRecord r) {
        TopicStats ts = topicStats(peer, topic);
        if (ts == null || !ts.inMesh) {
            return;
        }
        TopicScoreParams tp = params.topics().get(topic);
        // Near-first: during validation, or within the window after it.
        if (r.validated != 0
                && now > r.validated + tp.p3().meshMessageDeliveryWindow().toMillis()) {
            return;
        }
        ts.meshMessageDeliveries =
                Math.min(ts.meshMessageDeliveries + 1, tp.p3().meshMessageDeliveriesCap());
    }

    private void markInvalidDelivery(PeerId peer, String topic) {
        TopicStats ts = topicStats(peer, topic);
        if (ts != null) {
            ts.invalidMessageDeliveries += 1;
        }
    }

    // ---------------------------------------------------------------- decay

    /** Decays counters once per decay interval elapsed, and forgets expired retained peers. */
    public void refresh(long now) {
        long interval = params.decay().decayInterval().toMillis();
        while (now - lastDecay >= interval) {
            lastDecay += interval;
            decay(now);
        }
        pruneDeliveries(now);
    }

    private void decay(long now) {
        double zero = params.decay().decayToZero();
        Iterator<Map.Entry<PeerId, PeerStats>> it = peers.entrySet().iterator();
        while (it.hasNext()) {
            Map.Entry<PeerId, PeerStats> e = it.next();
            PeerStats ps = e.getValue();
            if (!ps.connected && now > ps.expire) {
                it.remove();
                retained--;
                continue;
            }
            for (Map.Entry<String, TopicStats> te : ps.topics.entrySet()) {
                TopicScoreParams tp = params.topics().get(te.getKey());
                TopicStats ts = te.getValue();
                ts.firstMessageDeliveries =
                        decayed(ts.firstMessageDeliveries, tp.p2().firstMessageDeliveriesDecay(), zero);
                ts.meshMessageDeliveries =
                        decayed(ts.meshMessageDeliveries, tp.p3().meshMessageDeliveriesDecay(), zero);
                ts.meshFailurePenalty = decayed(ts.meshFailurePenalty, tp.p3b().meshFailurePenaltyDecay(), zero);
                ts.invalidMessageDeliveries =
                        decayed(ts.invalidMessageDeliveries, tp.p4().invalidMessageDeliveriesDecay(), zero);
                if (ts.inMesh) {
                    ts.meshTime = meshTime(ts, now);
                    if (ts.meshTime > tp.p3().meshMessageDeliveriesActivation().toMillis()) {
                        ts.meshMessageDeliveriesActive = true;
                    }
                }
            }
            ps.behaviourPenalty = decayed(ps.behaviourPenalty, params.p7().behaviourPenaltyDecay(), zero);
        }
    }

    private static double decayed(double v, double factor, double zero) {
        v *= factor;
        return v < zero ? 0 : v;
    }

    private void pruneDeliveries(long now) {
        Iterator<DeliveryRecord> it = deliveries.values().iterator();
        while (it.hasNext()) {
            if (it.next().expires > now) {
                return;
            }
            it.remove();
        }
    }

    /** Peers with score state, connected or retained. */
    public int trackedPeers() {
        return peers.size();
    }
}
