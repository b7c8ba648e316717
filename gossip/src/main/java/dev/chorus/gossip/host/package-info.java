/**
 * The libp2p host: the connection upgrader (raw TCP -> multistream-select -> Noise -> multistream-select
 * or inlined muxer -> yamux), the protocol registry and inbound stream dispatch, outbound streams, the
 * connection manager (limits, idle timeout, dial backoff, graceful close, events), and the built-in
 * identify and ping services. Callers see {@link dev.chorus.gossip.host.Host},
 * {@link dev.chorus.gossip.host.Connection} and {@link dev.chorus.gossip.core.Stream}; never Netty.
 */
package dev.chorus.gossip.host;
