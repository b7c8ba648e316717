package dev.chorus.gossip.pubsub;

import dev.chorus.gossip.identity.PeerId;
import dev.chorus.gossip.identity.PrivateKey;
import dev.chorus.gossip.multiaddr.Multiaddr;
import dev.chorus.gossip.record.PeerRecord;
import dev.chorus.gossip.record.RecordException;
import java.net.InetAddress;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executor;
import java.util.function.Predicate;
import java.util.random.RandomGenerator;

/**
 * The gossipsub router (gossipsub-v1.0.md, v1.1.md, v1.2.md) as a single-threaded state machine. It is
 * driven by {@link #addPeer}, {@link #removePeer}, {@link #onRpc}, {@link #heartbeat}, {@link #subscribe},
 * {@link #unsubscribe} and {@link #publish}, all of which must be called on one thread (or the
 * {@code executor} given here, on which asynchronous validations complete). Outbound RPCs are emitted
 * through the {@link RpcSender}, coalesced per peer at the end of each call. Floodsub peers get every
 * message of their topics and no control messages.
 */
public final class GossipsubRouter {
    private static final System.Logger LOG = System.getLogger(GossipsubRouter.class.getName());
    /** PRUNE backoffs from remote peers are clamped to a week, which also keeps the arithmetic in range. */
    private static final long MAX_REMOTE_BACKOFF_SECONDS = 7 * 24 * 3600;
    /** IHAVE ids per control entry when sending, so that one entry always fits an RPC. */
    private static final int IHAVE_CHUNK = 2000;

    /** What the router knows about one peer. */
    private static final class PeerState {
        PubsubProtocol protocol;
        final boolean outbound;
        final Set<String> topics = new LinkedHashSet<>();
        final LinkedHashMap<MessageId, Long> dontSend = new LinkedHashMap<>();
        int ihaveMessages;
        int iasked;
        int idontwant;
        int iwanted;
        boolean iwantPenalized;

        PeerState(PubsubProtocol protocol, boolean outbound) {
            this.protocol = protocol;
            this.outbound = outbound;
        }
    }

    /** Outbound parts for one peer, collected during a call and sent at its end. */
    private static final class Pending {
        final List<Rpc.SubOpts> subs = new ArrayList<>();
        final List<PubsubMessage> messages = new ArrayList<>();
        final Set<MessageId> messageIds = new LinkedHashSet<>();
        final Map<String, List<MessageId>> ihave = new LinkedHashMap<>();
        final List<MessageId> iwant = new ArrayList<>();
        final Set<String> graft = new LinkedHashSet<>();
        final List<Rpc.Prune> prune = new ArrayList<>();
        final List<MessageId> idontwant = new ArrayList<>();
    }

    /**
     * Counters for diagnostics and tests, grouped like the RPC they count in: the RPCs themselves and their
     * subscriptions, the messages they carry, and their control entries; {@code penalties} sums the P7 behaviour
     * penalties all of these earned.
     *
     * @param rpcs RPCs received, ignored, rejected
     * @param messages messages delivered, duplicated, rejected
     * @param control control entries that were refused, served or broken
     * @param penalties P7 behaviour penalties applied, in all
     */
    public record Stats(Rpcs rpcs, Messages messages, Control control, long penalties) {

        /**
         * RPCs as a whole.
         *
         * @param rpcsReceived RPCs received from pubsub peers
         * @param rpcsGraylisted RPCs ignored because their sender's score was below the graylist threshold
         * @param invalidRpcs RPCs the codec rejected (oversize or malformed)
         * @param topicLimitRejections RPCs whose subscriptions went beyond the topics one peer may have
         */
        public record Rpcs(long rpcsReceived, long rpcsGraylisted, long invalidRpcs, long topicLimitRejections) {}

        /**
         * Published messages received.
         *
         * @param messagesDelivered messages delivered to the application
         * @param duplicates messages already seen
         * @param signatureRejections messages rejected by the signature policy
         * @param validationRejections messages a validator rejected
         * @param validationIgnored messages a validator ignored
         * @param validationThrottled messages ignored because too many validations were in flight
         */
        public record Messages(
                long messagesDelivered,
                long duplicates,
                long signatureRejections,
                long validationRejections,
                long validationIgnored,
                long validationThrottled) {}

        /**
         * Control entries.
         *
         * @param graftsDuringBackoff GRAFTs received while their sender was backed off
         * @param iwantServed message ids sent in answer to IWANT
         * @param iwantRefused message ids requested by IWANT but not sent (over the limit, or retransmitted enough)
         * @param brokenPromises IWANT requests whose advertised message did not arrive in time
         */
        public record Control(long graftsDuringBackoff, long iwantServed, long iwantRefused, long brokenPromises) {}
    }

    /** The result of a local publish. */
    public record PublishResult(MessageId id, PubsubMessage message, int recipients) {}

    private final PrivateKey key;
    private final PeerId self;
    private final PubsubConfig config;
    private final GossipsubParams p;
    private final InstantSource clock;
    private final RandomGenerator random;
    private final Executor executor;
    private final RpcSender sender;
    private final MessageListener listener;

    private final SeenCache seen;
    private final MessageCache mcache;
    private final PeerScore score;
    private final GossipPromises promises = new GossipPromises();

    private final Map<PeerId, PeerState> peers = new LinkedHashMap<>();
    private final Map<String, Set<PeerId>> topicPeers = new HashMap<>();
    private final Map<String, Set<PeerId>> mesh = new LinkedHashMap<>();
    private final Map<String, Set<PeerId>> fanout = new LinkedHashMap<>();
    private final Map<String, Long> fanoutLastPublished = new HashMap<>();
    private final Map<String, Map<PeerId, Long>> backoff = new HashMap<>();
    private final Set<String> subscriptions = new LinkedHashSet<>();
    private final Map<String, MessageValidator> validators = new HashMap<>();
    private final Map<PeerId, Pending> outbox = new LinkedHashMap<>();
    private int pendingValidations;
    private long heartbeats;

    private long rpcsReceived, rpcsGraylisted, invalidRpcs, messagesDelivered, duplicates, signatureRejections;
    private long validationRejections, validationIgnored, validationThrottled, topicLimitRejections;
    private long graftsDuringBackoff, iwantServed, iwantRefused, brokenPromises, penalties;

    public GossipsubRouter(
            PrivateKey key,
            PubsubConfig config,
            InstantSource clock,
            RandomGenerator random,
            Executor executor,
            RpcSender sender,
            MessageListener listener) {
        this.key = key;
        this.self = key.peerId();
        this.config = config;
        this.p = config.params();
        this.clock = clock;
        this.random = random;
        this.executor = executor;
        this.sender = sender;
        this.listener = listener;
        GossipsubParams.Timing timing = p.timing();
        GossipsubParams.Limits limits = p.limits();
        this.seen = new SeenCache(timing.seenTTL().toMillis(), limits.seenCapacity());
        this.mcache = new MessageCache(timing.mcacheLen(), timing.mcacheGossip(), limits.mcacheCapacity());
        this.score =
                new PeerScore(config.scoreParams(), timing.seenTTL().toMillis(), limits.seenCapacity(), clock.millis());
    }

    /**
     * Where peer exchange (PX in PRUNE) gets the signed peer records it hands on, and where the peers learnt from a
     * PRUNE go. Both are called on the router's thread and must be quick.
     */
    public interface PeerExchange {
        /** {@code peer}'s signed peer record, encoded, to send with it in a PRUNE's PX; empty: the ID alone. */
        Optional<byte[]> recordOf(PeerId peer);

        /** A peer and its addresses from a verified record in a PRUNE's PX. */
        void learned(PeerId peer, List<Multiaddr> addrs);

        PeerExchange NONE = new PeerExchange() {
            @Override
            public Optional<byte[]> recordOf(PeerId peer) {
                return Optional.empty();
            }

            @Override
            public void learned(PeerId peer, List<Multiaddr> addrs) {}
        };
    }

    private volatile PeerExchange peerExchange = PeerExchange.NONE;

    public void setPeerExchange(PeerExchange px) {
        this.peerExchange = px;
    }

    public PeerId peerId() {
        return self;
    }

    public PubsubConfig config() {
        return config;
    }

    private long now() {
        return clock.millis();
    }

    // ---------------------------------------------------------------- peers

    /**
     * A peer speaks pubsub with us over {@code protocol}. Calling again updates the protocol (e.g. when
     * our outbound stream settles on another version than the peer's inbound one).
     *
     * @param outbound whether we dialed the connection (for {@code D_out})
     * @param ip the peer's IP address, for P6; null if unknown
     */
    public void addPeer(PeerId peer, PubsubProtocol protocol, boolean outbound, InetAddress ip) {
        PeerState ps = peers.get(peer);
        if (ps != null) {
            ps.protocol = protocol;
            return;
        }
        peers.put(peer, new PeerState(protocol, outbound));
        score.addPeer(peer, ip);
        if (!subscriptions.isEmpty()) {
            Pending out = pending(peer);
            for (String t : subscriptions) {
                out.subs.add(new Rpc.SubOpts(true, t));
            }
        }
        flush();
    }

    /** The peer is gone: it leaves every topic, mesh and fanout; its score is retained. */
    public void removePeer(PeerId peer) {
        PeerState ps = peers.remove(peer);
        if (ps == null) {
            return;
        }
        for (String t : ps.topics) {
            Set<PeerId> s = topicPeers.get(t);
            if (s != null) {
                s.remove(peer);
                if (s.isEmpty()) {
                    topicPeers.remove(t);
                }
            }
        }
        for (Map.Entry<String, Set<PeerId>> e : mesh.entrySet()) {
            if (e.getValue().remove(peer)) {
                score.prune(peer, e.getKey());
            }
        }
        fanout.values().forEach(s -> s.remove(peer));
        outbox.remove(peer);
        score.removePeer(peer, now());
    }

    // ---------------------------------------------------------------- local API

    public void subscribe(String topic) {
        if (!subscriptions.add(topic)) {
            return;
        }
        for (PeerId peer : peers.keySet()) {
            pending(peer).subs.add(new Rpc.SubOpts(true, topic));
        }
        // Join (gossipsub-v1.0.md): start from the fanout peers, then fill up to D.
        Set<PeerId> m = new LinkedHashSet<>();
        long now = now();
        Set<PeerId> fan = fanout.remove(topic);
        fanoutLastPublished.remove(topic);
        if (fan != null) {
            for (PeerId peer : fan) {
                if (score(peer) >= 0
                        && !backedOff(topic, peer, now)
                        && m.size() < p.degree().D()) {
                    m.add(peer);
                }
            }
        }
        if (m.size() < p.degree().D()) {
            m.addAll(pick(
                    graftCandidates(topic, m, now, peer -> true), p.degree().D() - m.size()));
        }
        mesh.put(topic, m);
        for (PeerId peer : m) {
            score.graft(peer, topic, now);
            pending(peer).graft.add(topic);
        }
        flush();
    }

    public void unsubscribe(String topic) {
        if (!subscriptions.remove(topic)) {
            return;
        }
        for (PeerId peer : peers.keySet()) {
            pending(peer).subs.add(new Rpc.SubOpts(false, topic));
        }
        Set<PeerId> m = mesh.remove(topic);
        if (m != null) {
            for (PeerId peer : m) {
                score.prune(peer, topic);
                addBackoff(peer, topic, p.prune().unsubscribeBackoff().toMillis());
                pending(peer)
                        .prune
                        .add(makePrune(
                                peer, topic, p.prune().unsubscribeBackoff().toSeconds(), false));
            }
        }
        flush();
    }

    public Set<String> subscriptions() {
        return Collections.unmodifiableSet(subscriptions);
    }

    /** Sets (or, with null, removes) the application validator of {@code topic}. */
    public void setValidator(String topic, MessageValidator validator) {
        if (validator == null) {
            validators.remove(topic);
        } else {
            validators.put(topic, validator);
        }
    }

    /**
     * Authors a message as the signature policy prescribes and sends it: with flood publishing to every
     * peer of the topic above the publish threshold, else to the mesh (or fanout) peers.
     *
     * @throws IllegalArgumentException when the message would not fit one RPC
     * @throws IllegalStateException when an identical message id was seen within the seen TTL
     */
    public PublishResult publish(String topic, byte[] data) {
        return publish(config.signaturePolicy().author(key, topic, data, random));
    }

    /**
     * Sends a message authored by this node ({@link SignaturePolicy#author} with this node's key), as {@link
     * #publish(String, byte[])} does once it has authored it.
     *
     * @throws IllegalArgumentException when the message would not fit one RPC
     * @throws IllegalStateException when an identical message id was seen within the seen TTL
     */
    public PublishResult publish(PubsubMessage msg) {
        String topic = msg.topic();
        int size = RpcCodec.sizeOfPublish(msg);
        if (size > config.limits().maxRpcBytes()) {
            throw new IllegalArgumentException("message of " + size + " bytes exceeds the RPC limit of "
                    + config.limits().maxRpcBytes());
        }
        MessageId id = config.messageIdFunction().apply(msg);
        long now = now();
        if (!seen.add(id, now)) {
            throw new IllegalStateException("duplicate message id " + id);
        }
        mcache.put(id, msg);
        Set<PeerId> targets = new LinkedHashSet<>();
        double publishThreshold = config.thresholds().publishThreshold();
        for (PeerId peer : topicPeers.getOrDefault(topic, Set.of())) {
            PeerState ps = peers.get(peer);
            boolean flood = p.dissemination().floodPublish() || ps.protocol == PubsubProtocol.FLOODSUB;
            if (flood && score(peer) >= publishThreshold) {
                targets.add(peer);
            }
        }
        if (!p.dissemination().floodPublish()) {
            Set<PeerId> m = mesh.get(topic);
            if (m != null) {
                targets.addAll(m);
            } else {
                Set<PeerId> fan = fanout.computeIfAbsent(topic, k -> new LinkedHashSet<>());
                if (fan.isEmpty()) {
                    fan.addAll(pick(fanoutCandidates(topic, fan), p.degree().D()));
                }
                fanoutLastPublished.put(topic, now);
                targets.addAll(fan);
            }
        }
        for (PeerId peer : targets) {
            queueMessage(peer, id, msg);
        }
        flush();
        return new PublishResult(id, msg, targets.size());
    }

    // ---------------------------------------------------------------- inbound

    /** A codec violation by {@code peer} (oversize or malformed RPC): P7 penalty. */
    public void onInvalidRpc(PeerId peer, String reason) {
        invalidRpcs++;
        LOG.log(System.Logger.Level.DEBUG, "invalid RPC from {0}: {1}", peer, reason);
        penalize(peer, 1);
    }

    public void onRpc(PeerId from, Rpc rpc) {
        PeerState ps = peers.get(from);
        if (ps == null) {
            LOG.log(System.Logger.Level.DEBUG, "RPC from {0}, which is not a pubsub peer", from);
            return;
        }
        rpcsReceived++;
        if (score(from) < config.thresholds().graylistThreshold()) {
            rpcsGraylisted++;
            return;
        }
        boolean overLimit = false;
        for (Rpc.SubOpts s : rpc.subscriptions()) {
            overLimit |= !handleSubscription(from, ps, s);
        }
        if (overLimit) {
            topicLimitRejections++;
            penalize(from, 1);
        }
        for (PubsubMessage m : rpc.messages()) {
            handleMessage(from, m);
        }
        Rpc.Control c = rpc.control();
        if (c != null && ps.protocol.isGossipsub()) {
            handleIHave(from, ps, c.ihave());
            handleIWant(from, ps, c.iwant());
            handleGraft(from, ps, c.graft());
            handlePrune(from, c.prune());
            handleIDontWant(from, ps, c.idontwant());
        }
        flush();
    }

    /** False when the subscription was refused because the peer has too many topics. */
    private boolean handleSubscription(PeerId from, PeerState ps, Rpc.SubOpts s) {
        String t = s.topic();
        if (s.subscribe()) {
            if (ps.topics.contains(t)) {
                return true;
            }
            if (ps.topics.size() >= p.limits().maxTopicsPerPeer()) {
                return false;
            }
            ps.topics.add(t);
            topicPeers.computeIfAbsent(t, k -> new LinkedHashSet<>()).add(from);
            return true;
        }
        if (ps.topics.remove(t)) {
            Set<PeerId> set = topicPeers.get(t);
            set.remove(from);
            if (set.isEmpty()) {
                topicPeers.remove(t);
            }
            Set<PeerId> m = mesh.get(t);
            if (m != null && m.remove(from)) {
                score.prune(from, t);
            }
            Set<PeerId> fan = fanout.get(t);
            if (fan != null) {
                fan.remove(from);
            }
        }
        return true;
    }

    private void handleMessage(PeerId from, PubsubMessage msg) {
        String topic = msg.topic();
        if (!subscriptions.contains(topic)) {
            return; // not ours to route (go and js do the same)
        }
        long now = now();
        MessageId id = config.messageIdFunction().apply(msg);
        if (id == null) {
            signatureRejections++;
            score.rejectMessage(from, null, topic);
            return;
        }
        if (seen.contains(id, now)) {
            duplicates++;
            score.duplicateMessage(from, id, topic, now);
            return;
        }
        // The signature is checked before the id is marked seen, so a forged copy cannot shadow the real one.
        String problem = config.signaturePolicy().check(msg);
        if (problem != null) {
            signatureRejections++;
            LOG.log(System.Logger.Level.DEBUG, "rejecting message from {0}: {1}", from, problem);
            score.rejectMessage(from, null, topic);
            return;
        }
        PeerId author = msg.author();
        if (self.equals(author)) {
            return; // our own message, back after its id expired
        }
        seen.add(id, now);
        promises.delivered(id);
        score.validateMessage(from, id, now);
        sendIDontWant(from, id, msg);
        MessageValidator v = validators.get(topic);
        if (v == null) {
            finishValidation(from, id, msg, ValidationResult.ACCEPT);
            return;
        }
        if (pendingValidations >= p.limits().maxPendingValidations()) {
            validationThrottled++;
            score.ignoreMessage(id);
            return;
        }
        CompletableFuture<ValidationResult> f;
        try {
            CompletionStage<ValidationResult> stage = v.validate(from, msg);
            f = stage.toCompletableFuture();
        } catch (RuntimeException e) {
            LOG.log(System.Logger.Level.WARNING, "validator of " + topic + " failed", e);
            f = CompletableFuture.completedFuture(ValidationResult.IGNORE);
        }
        if (f.isDone()) {
            finishValidation(from, id, msg, resultOf(f));
            return;
        }
        pendingValidations++;
        f.whenCompleteAsync(
                (r, e) -> {
                    pendingValidations--;
                    finishValidation(from, id, msg, e != null || r == null ? ValidationResult.IGNORE : r);
                    flush();
                },
                executor);
    }

    private static ValidationResult resultOf(CompletableFuture<ValidationResult> f) {
        try {
            ValidationResult r = f.getNow(ValidationResult.IGNORE);
            return r == null ? ValidationResult.IGNORE : r;
        } catch (RuntimeException e) {
            return ValidationResult.IGNORE;
        }
    }

    private void finishValidation(PeerId from, MessageId id, PubsubMessage msg, ValidationResult result) {
        long now = now();
        switch (result) {
            case ACCEPT -> {
                score.deliverMessage(from, id, msg.topic(), now);
                mcache.put(id, msg);
                if (subscriptions.contains(msg.topic())) {
                    messagesDelivered++;
                    try {
                        listener.onMessage(msg, id, from);
                    } catch (RuntimeException e) {
                        LOG.log(System.Logger.Level.WARNING, "message listener failed", e);
                    }
                }
                forward(from, id, msg);
            }
            case REJECT -> {
                validationRejections++;
                score.rejectMessage(from, id, msg.topic());
            }
            case IGNORE -> {
                validationIgnored++;
                score.ignoreMessage(id);
            }
        }
    }

    /** Forwards a validated message to mesh and floodsub peers, never back to its source or author. */
    private void forward(PeerId source, MessageId id, PubsubMessage msg) {
        String topic = msg.topic();
        Set<PeerId> targets = new LinkedHashSet<>();
        double publishThreshold = config.thresholds().publishThreshold();
        for (PeerId peer : topicPeers.getOrDefault(topic, Set.of())) {
            if (peers.get(peer).protocol == PubsubProtocol.FLOODSUB && score(peer) >= publishThreshold) {
                targets.add(peer);
            }
        }
        Set<PeerId> m = mesh.get(topic);
        if (m != null) {
            targets.addAll(m);
        }
        targets.remove(source);
        PeerId author = msg.author();
        if (author != null) {
            targets.remove(author);
        }
        for (PeerId peer : targets) {
            PeerState ps = peers.get(peer);
            if (ps != null && !ps.dontSend.containsKey(id)) {
                queueMessage(peer, id, msg);
            }
        }
    }

    /** v1.2: tell mesh peers at once that we have a large message, so they need not send it. */
    private void sendIDontWant(PeerId source, MessageId id, PubsubMessage msg) {
        if (msg.dataOrEmpty().length < p.idontwant().idontwantMinDataSize()) {
            return;
        }
        Set<PeerId> m = mesh.get(msg.topic());
        if (m == null) {
            return;
        }
        for (PeerId peer : m) {
            if (!peer.equals(source) && peers.get(peer).protocol.supportsIDontWant()) {
                pending(peer).idontwant.add(id);
            }
        }
    }

    private void handleIHave(PeerId from, PeerState ps, List<Rpc.IHave> ihaves) {
        if (ihaves.isEmpty() || score(from) < config.thresholds().gossipThreshold()) {
            return;
        }
        GossipsubParams.SpamProtection spam = p.spamProtection();
        if (++ps.ihaveMessages > spam.maxIHaveMessages() || ps.iasked >= spam.maxIHaveLength()) {
            return;
        }
        long now = now();
        Set<MessageId> want = new LinkedHashSet<>();
        for (Rpc.IHave ih : ihaves) {
            if (!mesh.containsKey(ih.topic())) {
                continue;
            }
            for (MessageId id : ih.messageIds()) {
                if (!seen.contains(id, now)) {
                    want.add(id);
                }
            }
        }
        if (want.isEmpty()) {
            return;
        }
        List<MessageId> ask = new ArrayList<>(want);
        shuffle(ask);
        int n = Math.min(ask.size(), spam.maxIHaveLength() - ps.iasked);
        ask = new ArrayList<>(ask.subList(0, n));
        ps.iasked += n;
        promises.add(from, ask, now + spam.iwantFollowupTime().toMillis(), random);
        pending(from).iwant.addAll(ask);
    }

    private void handleIWant(PeerId from, PeerState ps, List<Rpc.IWant> iwants) {
        if (iwants.isEmpty() || score(from) < config.thresholds().gossipThreshold()) {
            return;
        }
        for (Rpc.IWant iw : iwants) {
            for (MessageId id : iw.messageIds()) {
                if (++ps.iwanted > p.spamProtection().maxIWantPerHeartbeat()) {
                    iwantRefused++;
                    if (!ps.iwantPenalized) {
                        ps.iwantPenalized = true;
                        LOG.log(System.Logger.Level.DEBUG, "IWANT flood from {0}", from);
                        penalize(from, 1);
                    }
                    continue;
                }
                PubsubMessage msg =
                        mcache.getForPeer(id, from, p.spamProtection().gossipRetransmission());
                if (msg == null || ps.dontSend.containsKey(id)) {
                    iwantRefused++;
                    continue;
                }
                iwantServed++;
                queueMessage(from, id, msg);
            }
        }
    }

    private void handleGraft(PeerId from, PeerState ps, List<Rpc.Graft> grafts) {
        long now = now();
        for (Rpc.Graft g : grafts) {
            String topic = g.topic();
            Set<PeerId> m = mesh.get(topic);
            if (m == null || m.contains(from)) {
                continue; // spam hardening: GRAFTs for topics we are not in are ignored (v1.1)
            }
            Long expire = backoff.getOrDefault(topic, Map.of()).get(from);
            if (expire != null && now < expire) {
                graftsDuringBackoff++;
                penalize(from, 1);
                long floodCutoff = expire
                        + p.prune().graftFloodThreshold().toMillis()
                        - p.prune().pruneBackoff().toMillis();
                if (now < floodCutoff) {
                    penalize(from, 1);
                }
                addBackoff(from, topic, p.prune().pruneBackoff().toMillis());
                pending(from)
                        .prune
                        .add(makePrune(from, topic, p.prune().pruneBackoff().toSeconds(), false));
                continue;
            }
            if (score(from) < 0 || (m.size() >= p.degree().D_hi() && !ps.outbound)) {
                boolean px = score(from) >= 0;
                addBackoff(from, topic, p.prune().pruneBackoff().toMillis());
                pending(from)
                        .prune
                        .add(makePrune(from, topic, p.prune().pruneBackoff().toSeconds(), px));
                continue;
            }
            m.add(from);
            score.graft(from, topic, now);
        }
    }

    private void handlePrune(PeerId from, List<Rpc.Prune> prunes) {
        for (Rpc.Prune pr : prunes) {
            String topic = pr.topic();
            Set<PeerId> m = mesh.get(topic);
            if (m == null) {
                continue;
            }
            if (m.remove(from)) {
                score.prune(from, topic);
            }
            long ms = pr.backoffSeconds() >= 0
                    ? Math.min(pr.backoffSeconds(), MAX_REMOTE_BACKOFF_SECONDS) * 1000
                    : p.prune().pruneBackoff().toMillis();
            addBackoff(from, topic, ms);
            if (!pr.peers().isEmpty() && score(from) >= config.thresholds().acceptPXThreshold()) {
                acceptPeerExchange(pr.peers());
            }
        }
    }

    /**
     * Learns the peers of a PRUNE's PX whose signed peer record verifies and names them: a record is the peer's own
     * word for its addresses, so the pruning peer cannot point this node at addresses of its choosing. A peer ID
     * without a record carries no address and is left out.
     */
    private void acceptPeerExchange(List<Rpc.PeerInfo> infos) {
        for (Rpc.PeerInfo pi : infos) {
            if (pi.signedPeerRecord() == null) {
                continue;
            }
            PeerRecord r;
            try {
                r = PeerRecord.open(pi.signedPeerRecord());
                if (pi.peerId() != null && !PeerId.fromBytes(pi.peerId()).equals(r.peerId())) {
                    continue;
                }
            } catch (RecordException | dev.chorus.gossip.identity.InvalidPeerIdException e) {
                continue;
            }
            if (!r.peerId().equals(self) && !r.addresses().isEmpty()) {
                peerExchange.learned(r.peerId(), r.addresses());
            }
        }
    }

    private void handleIDontWant(PeerId from, PeerState ps, List<Rpc.IDontWant> list) {
        if (list.isEmpty() || !ps.protocol.supportsIDontWant()) {
            return;
        }
        long until = now() + p.idontwant().idontwantTTL().toMillis();
        for (Rpc.IDontWant d : list) {
            for (MessageId id : d.messageIds()) {
                if (ps.idontwant >= p.idontwant().maxIDontWantMessages()) {
                    return;
                }
                ps.idontwant++;
                ps.dontSend.put(id, until);
            }
        }
    }

    // ---------------------------------------------------------------- heartbeat

    /** Mesh and fanout maintenance, gossip emission, score decay and cache shifting (gossipsub-v1.0.md). */
    public void heartbeat() {
        long now = now();
        heartbeats++;
        score.refresh(now);
        penalizeBrokenPromises(now);
        resetHeartbeatCounters(now);
        clearExpiredBackoffs(now);

        MeshChanges changes = new MeshChanges();
        for (Map.Entry<String, Set<PeerId>> e : mesh.entrySet()) {
            maintainMesh(e.getKey(), e.getValue(), now, changes);
            emitGossip(e.getKey(), e.getValue(), changes.scoreOf);
        }
        maintainFanout(now, changes.scoreOf);

        queueMeshChanges(changes);
        flush();
        mcache.shift();
        seen.prune(now);
    }

    /**
     * The GRAFTs and PRUNEs one heartbeat decides on, and each peer's score computed once for it: pruning changes a
     * peer's score, and every decision of one heartbeat must see the same value.
     */
    private final class MeshChanges {
        final Map<PeerId, List<String>> toGraft = new LinkedHashMap<>();
        final Map<PeerId, List<String>> toPrune = new LinkedHashMap<>();
        /** Peers pruned for a negative score: their PRUNE carries no peer exchange. */
        final Set<PeerId> noPx = new java.util.HashSet<>();

        private final Map<PeerId, Double> scores = new HashMap<>();
        final java.util.function.ToDoubleFunction<PeerId> scoreOf =
                peer -> scores.computeIfAbsent(peer, GossipsubRouter.this::score);
    }

    /** P7 for every IWANT promise that expired since the last heartbeat. */
    private void penalizeBrokenPromises(long now) {
        for (Map.Entry<PeerId, Integer> e : promises.broken(now).entrySet()) {
            brokenPromises += e.getValue();
            penalize(e.getKey(), e.getValue());
        }
    }

    /** Starts each peer's per-heartbeat budgets afresh and forgets its expired IDONTWANTs. */
    private void resetHeartbeatCounters(long now) {
        for (PeerState ps : peers.values()) {
            ps.ihaveMessages = 0;
            ps.iasked = 0;
            ps.idontwant = 0;
            ps.iwanted = 0;
            ps.iwantPenalized = false;
            Iterator<Long> it = ps.dontSend.values().iterator();
            while (it.hasNext() && it.next() <= now) {
                it.remove();
            }
        }
    }

    /**
     * Mesh maintenance of one topic (gossipsub-v1.0.md and v1.1.md, "Heartbeat Maintenance"): peers with a negative
     * score leave, an undersubscribed mesh is filled up to {@code D}, an oversubscribed one pruned to {@code D},
     * outbound peers topped up to {@code D_out}, and opportunistic grafting run every
     * {@code opportunisticGraftTicks} heartbeats.
     */
    private void maintainMesh(String topic, Set<PeerId> m, long now, MeshChanges changes) {
        java.util.function.ToDoubleFunction<PeerId> sc = changes.scoreOf;
        // Negative scores leave the mesh.
        for (PeerId peer : new ArrayList<>(m)) {
            if (sc.applyAsDouble(peer) < 0) {
                removeFromMesh(peer, topic, changes.toPrune);
                changes.noPx.add(peer);
            }
        }
        if (m.size() < p.degree().D_lo()) {
            for (PeerId peer :
                    pick(graftCandidates(topic, m, now, x -> true), p.degree().D() - m.size())) {
                addToMesh(peer, topic, changes.toGraft);
            }
        }
        if (m.size() > p.degree().D_hi()) {
            pruneOversubscribed(topic, m, sc, changes.toPrune);
        }
        if (m.size() >= p.degree().D_lo()) {
            graftOutbound(topic, m, now, changes.toGraft);
        }
        if (heartbeats % p.opportunisticGraft().opportunisticGraftTicks() == 0 && m.size() > 1) {
            graftOpportunistically(topic, m, now, sc, changes.toGraft);
        }
    }

    /** Grafts outbound peers while the mesh holds fewer than {@code D_out} of them (gossipsub-v1.1.md). */
    private void graftOutbound(String topic, Set<PeerId> m, long now, Map<PeerId, List<String>> toGraft) {
        int outbound = (int) m.stream().filter(x -> peers.get(x).outbound).count();
        if (outbound < p.degree().D_out()) {
            Predicate<PeerId> isOutbound = x -> peers.get(x).outbound;
            for (PeerId peer :
                    pick(graftCandidates(topic, m, now, isOutbound), p.degree().D_out() - outbound)) {
                addToMesh(peer, topic, toGraft);
            }
        }
    }

    /**
     * Opportunistic grafting (gossipsub-v1.1.md): when the mesh's median score is below the threshold, grafts peers
     * that score above that median, so that a mesh taken over by poor peers recovers.
     */
    private void graftOpportunistically(
            String topic,
            Set<PeerId> m,
            long now,
            java.util.function.ToDoubleFunction<PeerId> sc,
            Map<PeerId, List<String>> toGraft) {
        List<Double> s = new ArrayList<>();
        m.forEach(x -> s.add(sc.applyAsDouble(x)));
        Collections.sort(s);
        double median = s.get(s.size() / 2);
        if (median < config.thresholds().opportunisticGraftThreshold()) {
            Predicate<PeerId> better = x -> sc.applyAsDouble(x) > median;
            int n = p.opportunisticGraft().opportunisticGraftPeers();
            for (PeerId peer : pick(graftCandidates(topic, m, now, better), n)) {
                addToMesh(peer, topic, toGraft);
            }
        }
    }

    /** Fanout: expire, drop departed or low-scoring peers, refill to D, gossip. */
    private void maintainFanout(long now, java.util.function.ToDoubleFunction<PeerId> sc) {
        Iterator<Map.Entry<String, Set<PeerId>>> fit = fanout.entrySet().iterator();
        while (fit.hasNext()) {
            Map.Entry<String, Set<PeerId>> e = fit.next();
            String topic = e.getKey();
            long last = fanoutLastPublished.getOrDefault(topic, 0L);
            if (last + p.timing().fanoutTTL().toMillis() < now) {
                fit.remove();
                fanoutLastPublished.remove(topic);
                continue;
            }
            Set<PeerId> fan = e.getValue();
            Set<PeerId> inTopic = topicPeers.getOrDefault(topic, Set.of());
            fan.removeIf(x -> !inTopic.contains(x)
                    || sc.applyAsDouble(x) < config.thresholds().publishThreshold());
            if (fan.size() < p.degree().D()) {
                fan.addAll(pick(fanoutCandidates(topic, fan), p.degree().D() - fan.size()));
            }
            emitGossip(topic, fan, sc);
        }
    }

    /** Queues the heartbeat's GRAFTs and PRUNEs for their peers; they go out with the heartbeat's flush. */
    private void queueMeshChanges(MeshChanges changes) {
        changes.toGraft.forEach((peer, topics) -> {
            Pending out = pending(peer);
            out.graft.addAll(topics);
        });
        changes.toPrune.forEach((peer, topics) -> {
            Pending out = pending(peer);
            for (String t : topics) {
                out.prune.add(makePrune(peer, t, p.prune().pruneBackoff().toSeconds(), !changes.noPx.contains(peer)));
            }
        });
    }

    private void addToMesh(PeerId peer, String topic, Map<PeerId, List<String>> toGraft) {
        mesh.get(topic).add(peer);
        score.graft(peer, topic, now());
        toGraft.computeIfAbsent(peer, k -> new ArrayList<>()).add(topic);
    }

    private void removeFromMesh(PeerId peer, String topic, Map<PeerId, List<String>> toPrune) {
        mesh.get(topic).remove(peer);
        score.prune(peer, topic);
        addBackoff(peer, topic, p.prune().pruneBackoff().toMillis());
        toPrune.computeIfAbsent(peer, k -> new ArrayList<>()).add(topic);
    }

    /**
     * Keeps {@code D} peers: the best {@code D_score} by score, the rest at random, with at least
     * {@code D_out} outbound peers among them when there are enough (gossipsub-v1.1.md, "Heartbeat
     * Maintenance").
     */
    private void pruneOversubscribed(
            String topic,
            Set<PeerId> m,
            java.util.function.ToDoubleFunction<PeerId> sc,
            Map<PeerId, List<String>> toPrune) {
        List<PeerId> plist = new ArrayList<>(m);
        shuffle(plist);
        plist.sort(Comparator.comparingDouble(sc).reversed());
        GossipsubParams.Degree degree = p.degree();
        List<PeerId> rest = new ArrayList<>(plist.subList(degree.D_score(), plist.size()));
        shuffle(rest);
        List<PeerId> keep = new ArrayList<>(plist.subList(0, degree.D_score()));
        keep.addAll(rest.subList(0, degree.D() - degree.D_score()));
        List<PeerId> dropped = new ArrayList<>(rest.subList(degree.D() - degree.D_score(), rest.size()));
        int outbound = (int) keep.stream().filter(x -> peers.get(x).outbound).count();
        if (outbound < degree.D_out()) {
            // Replace the last non-outbound keepers (random or lowest scoring) with outbound peers.
            Iterator<PeerId> candidates = new ArrayList<>(dropped)
                    .stream().filter(x -> peers.get(x).outbound).iterator();
            for (int i = keep.size() - 1; i >= 0 && outbound < degree.D_out() && candidates.hasNext(); i--) {
                PeerId k = keep.get(i);
                if (!peers.get(k).outbound) {
                    PeerId o = candidates.next();
                    keep.set(i, o);
                    dropped.remove(o);
                    dropped.add(k);
                    outbound++;
                }
            }
        }
        for (PeerId peer : dropped) {
            removeFromMesh(peer, topic, toPrune);
        }
    }

    private void emitGossip(String topic, Set<PeerId> exclude, java.util.function.ToDoubleFunction<PeerId> sc) {
        List<MessageId> ids = mcache.gossipIds(topic);
        if (ids.isEmpty()) {
            return;
        }
        if (ids.size() > p.spamProtection().maxIHaveLength()) {
            shuffle(ids);
            ids = new ArrayList<>(ids.subList(0, p.spamProtection().maxIHaveLength()));
        }
        List<PeerId> candidates = new ArrayList<>();
        for (PeerId peer : topicPeers.getOrDefault(topic, Set.of())) {
            if (!exclude.contains(peer)
                    && peers.get(peer).protocol.isGossipsub()
                    && sc.applyAsDouble(peer) >= config.thresholds().gossipThreshold()) {
                candidates.add(peer);
            }
        }
        int target = Math.max(p.degree().D_lazy(), (int) (p.dissemination().gossipFactor() * candidates.size()));
        for (PeerId peer : pick(candidates, target)) {
            pending(peer).ihave.computeIfAbsent(topic, k -> new ArrayList<>()).addAll(ids);
        }
    }

    // ---------------------------------------------------------------- helpers

    /** Gossipsub peers of {@code topic} outside {@code exclude}, not backed off, with a score >= 0. */
    private List<PeerId> graftCandidates(String topic, Set<PeerId> exclude, long now, Predicate<PeerId> extra) {
        List<PeerId> out = new ArrayList<>();
        for (PeerId peer : topicPeers.getOrDefault(topic, Set.of())) {
            if (!exclude.contains(peer)
                    && peers.get(peer).protocol.isGossipsub()
                    && !backedOff(topic, peer, now)
                    && score(peer) >= 0
                    && extra.test(peer)) {
                out.add(peer);
            }
        }
        return out;
    }

    private List<PeerId> fanoutCandidates(String topic, Set<PeerId> exclude) {
        List<PeerId> out = new ArrayList<>();
        for (PeerId peer : topicPeers.getOrDefault(topic, Set.of())) {
            if (!exclude.contains(peer)
                    && peers.get(peer).protocol.isGossipsub()
                    && score(peer) >= config.thresholds().publishThreshold()) {
                out.add(peer);
            }
        }
        return out;
    }

    /** Up to {@code n} elements chosen at random. */
    private <T> List<T> pick(List<T> from, int n) {
        if (n <= 0) {
            return List.of();
        }
        List<T> copy = new ArrayList<>(from);
        shuffle(copy);
        return copy.size() <= n ? copy : copy.subList(0, n);
    }

    private <T> void shuffle(List<T> list) {
        for (int i = list.size() - 1; i > 0; i--) {
            Collections.swap(list, i, random.nextInt(i + 1));
        }
    }

    /** For our own grafting, a backoff lasts until its expiry plus the slack (gossipsub-v1.1.md). */
    private boolean backedOff(String topic, PeerId peer, long now) {
        Long expire = backoff.getOrDefault(topic, Map.of()).get(peer);
        return expire != null && now < expire + p.prune().backoffSlack().toMillis();
    }

    private void addBackoff(PeerId peer, String topic, long millis) {
        long until = now() + millis;
        backoff.computeIfAbsent(topic, k -> new HashMap<>()).merge(peer, until, Math::max);
    }

    private void clearExpiredBackoffs(long now) {
        long slack = p.prune().backoffSlack().toMillis();
        Iterator<Map<PeerId, Long>> it = backoff.values().iterator();
        while (it.hasNext()) {
            Map<PeerId, Long> m = it.next();
            m.values().removeIf(until -> until + slack <= now);
            if (m.isEmpty()) {
                it.remove();
            }
        }
    }

    private Rpc.Prune makePrune(PeerId peer, String topic, long backoffSeconds, boolean px) {
        PeerState ps = peers.get(peer);
        if (ps == null || !ps.protocol.supportsBackoff()) {
            return new Rpc.Prune(topic, List.of(), -1);
        }
        List<Rpc.PeerInfo> exchange = new ArrayList<>();
        if (px && p.prune().doPX()) {
            List<PeerId> candidates = new ArrayList<>();
            for (PeerId x : topicPeers.getOrDefault(topic, Set.of())) {
                if (!x.equals(peer) && score(x) >= 0) {
                    candidates.add(x);
                }
            }
            for (PeerId x : pick(candidates, p.prune().prunePeers())) {
                exchange.add(
                        new Rpc.PeerInfo(x.toBytes(), peerExchange.recordOf(x).orElse(null)));
            }
        }
        return new Rpc.Prune(topic, exchange, backoffSeconds);
    }

    private void penalize(PeerId peer, int count) {
        penalties += count;
        score.addPenalty(peer, count);
    }

    private Pending pending(PeerId peer) {
        return outbox.computeIfAbsent(peer, k -> new Pending());
    }

    private void queueMessage(PeerId peer, MessageId id, PubsubMessage msg) {
        Pending out = pending(peer);
        if (out.messageIds.add(id)) {
            out.messages.add(msg);
        }
    }

    /** Sends what was collected, one or more RPCs per peer, each within the RPC size limit. */
    private void flush() {
        if (outbox.isEmpty()) {
            return;
        }
        List<Map.Entry<PeerId, Pending>> batch = new ArrayList<>(outbox.entrySet());
        outbox.clear();
        for (Map.Entry<PeerId, Pending> e : batch) {
            PeerState ps = peers.get(e.getKey());
            if (ps == null) {
                continue;
            }
            for (Rpc rpc : build(e.getValue(), ps.protocol.isGossipsub())) {
                sender.send(e.getKey(), rpc);
            }
        }
    }

    private List<Rpc> build(Pending out, boolean gossipsub) {
        List<Rpc> pieces = new ArrayList<>();
        if (!out.subs.isEmpty()) {
            pieces.add(Rpc.ofSubscriptions(out.subs));
        }
        if (gossipsub) {
            List<Rpc.IHave> ihave = new ArrayList<>();
            out.ihave.forEach((topic, ids) -> {
                for (int i = 0; i < ids.size(); i += IHAVE_CHUNK) {
                    ihave.add(new Rpc.IHave(topic, ids.subList(i, Math.min(ids.size(), i + IHAVE_CHUNK))));
                }
            });
            for (Rpc.IHave ih : ihave) {
                pieces.add(Rpc.ofControl(new Rpc.Control(List.of(ih), List.of(), List.of(), List.of(), List.of())));
            }
            List<Rpc.Graft> graft = out.graft.stream().map(Rpc.Graft::new).toList();
            List<Rpc.IWant> iwant = out.iwant.isEmpty() ? List.of() : List.of(new Rpc.IWant(out.iwant));
            List<Rpc.IDontWant> idw = out.idontwant.isEmpty() ? List.of() : List.of(new Rpc.IDontWant(out.idontwant));
            Rpc.Control rest = new Rpc.Control(List.of(), iwant, graft, out.prune, idw);
            if (!rest.isEmpty()) {
                pieces.add(Rpc.ofControl(rest));
            }
        }
        for (PubsubMessage m : out.messages) {
            pieces.add(Rpc.ofMessages(List.of(m)));
        }
        return pack(pieces, config.limits().maxRpcBytes());
    }

    /** Merges pieces greedily into RPCs of at most {@code limit} bytes. */
    static List<Rpc> pack(List<Rpc> pieces, int limit) {
        List<Rpc> out = new ArrayList<>();
        List<Rpc> current = new ArrayList<>();
        int size = 0;
        for (Rpc piece : pieces) {
            int n = RpcCodec.encode(piece).length;
            if (!current.isEmpty() && size + n > limit) {
                out.add(merge(current));
                current.clear();
                size = 0;
            }
            current.add(piece);
            size += n;
        }
        if (!current.isEmpty()) {
            out.add(merge(current));
        }
        return out;
    }

    private static Rpc merge(List<Rpc> parts) {
        if (parts.size() == 1) {
            return parts.get(0);
        }
        List<Rpc.SubOpts> subs = new ArrayList<>();
        List<PubsubMessage> msgs = new ArrayList<>();
        List<Rpc.IHave> ihave = new ArrayList<>();
        List<Rpc.IWant> iwant = new ArrayList<>();
        List<Rpc.Graft> graft = new ArrayList<>();
        List<Rpc.Prune> prune = new ArrayList<>();
        List<Rpc.IDontWant> idw = new ArrayList<>();
        for (Rpc r : parts) {
            subs.addAll(r.subscriptions());
            msgs.addAll(r.messages());
            if (r.control() != null) {
                ihave.addAll(r.control().ihave());
                iwant.addAll(r.control().iwant());
                graft.addAll(r.control().graft());
                prune.addAll(r.control().prune());
                idw.addAll(r.control().idontwant());
            }
        }
        return new Rpc(subs, msgs, new Rpc.Control(ihave, iwant, graft, prune, idw));
    }

    // ---------------------------------------------------------------- introspection

    /** The peer's current score (0 for an unknown peer). */
    public double score(PeerId peer) {
        return score.score(peer, now());
    }

    public double behaviourPenalty(PeerId peer) {
        return score.behaviourPenalty(peer);
    }

    public Set<PeerId> meshPeers(String topic) {
        return Set.copyOf(mesh.getOrDefault(topic, Set.of()));
    }

    public Set<PeerId> fanoutPeers(String topic) {
        return Set.copyOf(fanout.getOrDefault(topic, Set.of()));
    }

    public Set<PeerId> topicPeers(String topic) {
        return Set.copyOf(topicPeers.getOrDefault(topic, Set.of()));
    }

    /** Topics {@code peer} is subscribed to, in our view. */
    public Set<String> peerTopics(PeerId peer) {
        PeerState ps = peers.get(peer);
        return ps == null ? Set.of() : Set.copyOf(ps.topics);
    }

    public Set<PeerId> peers() {
        return Set.copyOf(peers.keySet());
    }

    public boolean isBackedOff(String topic, PeerId peer) {
        return backedOff(topic, peer, now());
    }

    public int seenCacheSize() {
        return seen.size();
    }

    public int messageCacheSize() {
        return mcache.size();
    }

    public int pendingValidations() {
        return pendingValidations;
    }

    public int trackedPromises() {
        return promises.size();
    }

    public int trackedScores() {
        return score.trackedPeers();
    }

    public Stats stats() {
        return new Stats(
                new Stats.Rpcs(rpcsReceived, rpcsGraylisted, invalidRpcs, topicLimitRejections),
                new Stats.Messages(
                        messagesDelivered,
                        duplicates,
                        signatureRejections,
                        validationRejections,
                        validationIgnored,
                        validationThrottled),
                new Stats.Control(graftsDuringBackoff, iwantServed, iwantRefused, brokenPromises),
                penalties);
    }
}
