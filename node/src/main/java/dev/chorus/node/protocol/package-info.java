/**
 * The model exchange wire protocol {@code /chorus/model/1.0.0} ({@code docs/protocol.md}): frame types and the codec,
 * chunked and quantized model bodies with their digests, seeded fragment names ({@link
 * dev.chorus.node.protocol.FragmentCatalog}), error codes and {@link dev.chorus.node.protocol.ExchangeException}, the
 * limits on everything a remote peer controls ({@link dev.chorus.node.protocol.ExchangeLimits}), the peers' standing,
 * and {@link dev.chorus.node.protocol.ModelExchange}, which serves the protocol on a libp2p host.
 *
 * <p>Nothing received reaches a model before it has been decoded, checked against the local architecture, found finite
 * and matched against its digest. {@code ModelExchange} implements the averaging engine's port ({@link
 * dev.chorus.node.averaging.ExchangeTransport}) and serves its {@link dev.chorus.node.averaging.SnapshotBuffer}: those
 * two types are all it may use of {@code dev.chorus.node.averaging}, so the arrow between the packages points one way.
 * It must not touch the engine, announcements or the daemon, and it sees the gossip module only through {@code Host}
 * and {@code Stream}, never Netty.
 */
package dev.chorus.node.protocol;
