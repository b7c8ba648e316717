package dev.chorus.node.announce;

import dev.chorus.gossip.identity.PeerId;
import dev.chorus.gossip.identity.PrivateKey;
import dev.chorus.gossip.pubsub.MessageId;
import dev.chorus.gossip.pubsub.MessageValidator;
import dev.chorus.gossip.pubsub.Pubsub;
import dev.chorus.gossip.pubsub.PubsubMessage;
import dev.chorus.gossip.pubsub.ValidationResult;
import dev.chorus.node.protocol.ErrorCode;
import dev.chorus.node.protocol.ExchangeException;
import dev.chorus.privacy.audit.EgressRecorder;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@link ModelAnnouncements} on the consortium's gossipsub topic {@code chorus/<consortium>/announcements/1}.
 *
 * <p>The topic's validator runs on every message before gossipsub delivers or forwards it: a message that is not
 * a verifiable announcement, or whose announced peer is not the pubsub author of the message (a third party
 * replaying someone else's signed announcement), is {@link ValidationResult#REJECT rejected}, so it goes no
 * further and its sender takes gossipsub's invalid-message penalty where topic scoring is on. So is an
 * announcement whose author is not a verified member, where the consortium has a roster. Listeners see only
 * announcements that passed.
 *
 * <p>Every announcement this node publishes is recorded in the egress audit log once, as the signed bytes handed to
 * gossipsub, with peer {@code *} (gossipsub sends the same message to each mesh peer of the topic) and protocol
 * {@code gossipsub:<topic>}.
 */
public final class GossipsubAnnouncements implements ModelAnnouncements {

    private static final Logger LOG = LoggerFactory.getLogger(GossipsubAnnouncements.class);

    private final Pubsub pubsub;
    private final String topic;
    private final PrivateKey key;
    private final List<Consumer<ModelAnnouncement>> listeners = new CopyOnWriteArrayList<>();
    private final AtomicLong rejected = new AtomicLong();
    private final AtomicLong published = new AtomicLong();
    private final AutoCloseable subscription;
    private final EgressRecorder egress;
    private final Function<String, Optional<String>> publisherRefusal;
    /**
     * The message the validator accepted last and what it decoded to, so that its delivery, which follows on the
     * same router thread, does not verify the signature a second time. Router thread only.
     */
    private byte[] validatedData;

    private ModelAnnouncement validated;

    /** Joins the announcement topic of {@code consortium} on {@code pubsub}, publishing with {@code key}. */
    public GossipsubAnnouncements(Pubsub pubsub, String consortium, PrivateKey key) {
        this(pubsub, consortium, key, EgressRecorder.NONE);
    }

    /** As above, recording what it publishes in {@code egress}. */
    public GossipsubAnnouncements(Pubsub pubsub, String consortium, PrivateKey key, EgressRecorder egress) {
        this(pubsub, consortium, key, egress, peer -> Optional.empty());
    }

    /**
     * As above; an announcement whose author {@code publisherRefusal} gives a reason for (e.g. not a verified member
     * of the consortium) is rejected.
     */
    public GossipsubAnnouncements(
            Pubsub pubsub,
            String consortium,
            PrivateKey key,
            EgressRecorder egress,
            Function<String, Optional<String>> publisherRefusal) {
        if (!pubsub.peerId().equals(key.peerId())) {
            throw new IllegalArgumentException("pubsub runs as " + pubsub.peerId() + ", key is " + key.peerId());
        }
        this.pubsub = pubsub;
        this.topic = topic(consortium);
        this.key = key;
        this.egress = java.util.Objects.requireNonNull(egress, "egress");
        this.publisherRefusal = java.util.Objects.requireNonNull(publisherRefusal, "publisherRefusal");
        pubsub.setValidator(topic, MessageValidator.of(this::validate));
        this.subscription = pubsub.subscribe(topic, this::deliver);
    }

    /** The topic name of a consortium's announcements. */
    public static String topic(String consortium) {
        return "chorus/" + consortium + "/announcements/1";
    }

    public String topic() {
        return topic;
    }

    private ValidationResult validate(PeerId receivedFrom, PubsubMessage message) {
        try {
            ModelAnnouncement a = decode(message);
            Optional<String> refusal = publisherRefusal.apply(a.peer());
            if (refusal.isPresent()) {
                throw new ExchangeException(ErrorCode.UNEXPECTED, "publisher refused: " + refusal.get());
            }
            validatedData = message.data();
            validated = a;
            return ValidationResult.ACCEPT;
        } catch (ExchangeException e) {
            rejected.incrementAndGet();
            LOG.debug("announcement from {} (via {}) rejected: {}", message.author(), receivedFrom, e.getMessage());
            return ValidationResult.REJECT;
        }
    }

    private void deliver(PubsubMessage message, MessageId id, PeerId receivedFrom) {
        ModelAnnouncement a = message.data() == validatedData ? validated : null;
        if (a == null) {
            try {
                a = decode(message); // validated, but not the message validated last: verify it again
            } catch (ExchangeException e) {
                return;
            }
        }
        for (Consumer<ModelAnnouncement> l : listeners) {
            try {
                l.accept(a);
            } catch (RuntimeException e) {
                LOG.warn("announcement listener failed on {}: {}", a.peer(), e.toString());
            }
        }
    }

    private static ModelAnnouncement decode(PubsubMessage message) {
        ModelAnnouncement a = SignedAnnouncements.verify(message.dataOrEmpty());
        PeerId author = message.author();
        if (author == null || !author.toBase58().equals(a.peer())) {
            throw new ExchangeException(ErrorCode.MALFORMED, "announcement of " + a.peer() + " published by " + author);
        }
        return a;
    }

    @Override
    public void publish(ModelAnnouncement announcement) {
        publishAsync(announcement);
    }

    /** Publishes and completes with the number of peers the message went to. */
    public CompletableFuture<Integer> publishAsync(ModelAnnouncement announcement) {
        byte[] bytes = SignedAnnouncements.sign(announcement, key);
        egress.record("*", "gossipsub:" + topic, "announcement", bytes, announcement.version());
        return pubsub.publish(topic, bytes).thenApply(r -> {
            published.incrementAndGet();
            return r.recipients();
        });
    }

    @Override
    public AutoCloseable subscribe(Consumer<ModelAnnouncement> listener) {
        listeners.add(listener);
        return () -> listeners.remove(listener);
    }

    @Override
    public long rejected() {
        return rejected.get();
    }

    /** Announcements this node has published. */
    public long published() {
        return published.get();
    }

    @Override
    public void close() {
        listeners.clear();
        try {
            subscription.close();
        } catch (Exception e) {
            LOG.debug("leaving {}: {}", topic, e.toString());
        }
    }
}
