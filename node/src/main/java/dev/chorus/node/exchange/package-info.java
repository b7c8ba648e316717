/**
 * Model exchange between nodes: the {@code /chorus/model/1.0.0} stream protocol (frames, quantized chunked
 * bodies, digests, error frames), signed model announcements, and the {@link dev.chorus.node.exchange.AveragingEngine}
 * that connects the trainer's step callback to an {@link dev.chorus.aggregation.AveragingStrategy}.
 *
 * <p>Byte layouts are specified in {@code docs/protocol.md}. Everything a remote peer controls is bounded by
 * {@link dev.chorus.node.exchange.ExchangeLimits}; nothing received reaches the model before it has been decoded,
 * checked against the local architecture, found finite and matched against its digest. This package does not
 * touch Netty: it sees the gossip module only through {@code Host} and {@code Stream}.
 */
package dev.chorus.node.exchange;
