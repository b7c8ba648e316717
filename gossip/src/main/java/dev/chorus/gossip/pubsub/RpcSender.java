package dev.chorus.gossip.pubsub;

import dev.chorus.gossip.identity.PeerId;

/** Where the router's outbound RPCs go: the peer's outbound stream, or a simulated link. */
@FunctionalInterface
public interface RpcSender {
    /** Queues {@code rpc} for {@code peer}; must not block, may drop when the peer's queue is full. */
    void send(PeerId peer, Rpc rpc);
}
