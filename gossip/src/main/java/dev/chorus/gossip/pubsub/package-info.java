/**
 * Publish/subscribe over libp2p: the pubsub RPC protobuf and its bounded codec, message signing
 * ({@code StrictSign}, {@code StrictNoSign}), message ids, the seen-cache, the message cache, the
 * validation pipeline, peer scoring v1.1 and the gossipsub router (v1.0, v1.1, v1.2 {@code IDONTWANT};
 * floodsub peers are served too).
 *
 * <p>{@link dev.chorus.gossip.pubsub.GossipsubRouter} is a single-threaded state machine over peers,
 * topics and messages: it is driven by {@code onRpc}, {@code heartbeat}, {@code publish} and
 * {@code subscribe}, reads time from an injected {@link java.time.InstantSource} and randomness from an
 * injected generator, and emits outbound RPCs through {@link dev.chorus.gossip.pubsub.RpcSender}, so it
 * runs unchanged on a simulated network with a controlled clock. {@link dev.chorus.gossip.pubsub.Pubsub}
 * is the network glue: one long-lived outbound stream per peer, inbound streams read as
 * length-prefixed RPCs. Nothing here knows Netty pipelines or sockets.
 */
package dev.chorus.gossip.pubsub;
