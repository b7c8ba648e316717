package dev.chorus.gossip.pubsub;

import dev.chorus.gossip.identity.PeerId;

/** Receives validated messages of subscribed topics, on the router's thread; must not block. */
@FunctionalInterface
public interface MessageListener {
    void onMessage(PubsubMessage message, MessageId id, PeerId receivedFrom);
}
