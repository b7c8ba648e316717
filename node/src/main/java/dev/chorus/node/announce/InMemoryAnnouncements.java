package dev.chorus.node.announce;

import dev.chorus.gossip.identity.PrivateKey;
import dev.chorus.node.protocol.ExchangeException;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;

/**
 * An in-process topic: every member's published bytes reach every other member, which verifies them as it would
 * a gossipsub message. {@link Topic#deliverRaw} injects arbitrary bytes, for tests of forged messages.
 */
public final class InMemoryAnnouncements implements ModelAnnouncements {

    /** One topic shared by its members. */
    public static final class Topic {
        private final List<InMemoryAnnouncements> members = new CopyOnWriteArrayList<>();

        /** A member publishing with {@code key}. */
        public InMemoryAnnouncements join(PrivateKey key) {
            InMemoryAnnouncements m = new InMemoryAnnouncements(this, key);
            members.add(m);
            return m;
        }

        /** Delivers {@code message} to every member but {@code from} (null: to all). */
        public void deliverRaw(byte[] message, InMemoryAnnouncements from) {
            for (InMemoryAnnouncements m : members) {
                if (m != from) {
                    m.receive(message);
                }
            }
        }
    }

    private final Topic topic;
    private final PrivateKey key;
    private final List<Consumer<ModelAnnouncement>> listeners = new CopyOnWriteArrayList<>();
    private final AtomicLong rejected = new AtomicLong();

    private InMemoryAnnouncements(Topic topic, PrivateKey key) {
        this.topic = topic;
        this.key = key;
    }

    @Override
    public void publish(ModelAnnouncement announcement) {
        topic.deliverRaw(SignedAnnouncements.sign(announcement, key), this);
    }

    @Override
    public AutoCloseable subscribe(Consumer<ModelAnnouncement> listener) {
        listeners.add(listener);
        return () -> listeners.remove(listener);
    }

    private void receive(byte[] message) {
        ModelAnnouncement a;
        try {
            a = SignedAnnouncements.verify(message);
        } catch (ExchangeException e) {
            rejected.incrementAndGet();
            return;
        }
        listeners.forEach(l -> l.accept(a));
    }

    @Override
    public long rejected() {
        return rejected.get();
    }

    @Override
    public void close() {
        topic.members.remove(this);
        listeners.clear();
    }
}
