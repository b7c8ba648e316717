/**
 * Protocols every Chorus host serves: identify ({@code /ipfs/id/1.0.0}, {@code /ipfs/id/push/1.0.0}),
 * ping ({@code /ipfs/ping/1.0.0}), and the diagnostics protocols {@code /chorus/echo/1.0.0} and
 * {@code /chorus/sink/1.0.0}. Each class holds the wire format, the serving handler and the client
 * side, written against {@link dev.chorus.gossip.core.Stream} only.
 */
package dev.chorus.gossip.protocol;
