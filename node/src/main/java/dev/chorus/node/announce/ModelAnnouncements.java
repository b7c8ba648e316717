package dev.chorus.node.announce;

import java.util.function.Consumer;

/**
 * The consortium's announcement channel: each node publishes {@link ModelAnnouncement}s signed with its identity
 * key and hears the verified announcements of the others. A gossipsub topic per consortium backs it in the daemon;
 * {@link InMemoryAnnouncements} backs it in tests. Messages that fail verification are dropped and counted, never
 * delivered.
 */
public interface ModelAnnouncements extends AutoCloseable {

    /** Signs and publishes {@code announcement} (its peer must be this node). */
    void publish(ModelAnnouncement announcement);

    /** Delivers every verified announcement from other nodes to {@code listener}; close the result to stop. */
    AutoCloseable subscribe(Consumer<ModelAnnouncement> listener);

    /** Messages dropped because they failed verification. */
    long rejected();

    @Override
    void close();
}
