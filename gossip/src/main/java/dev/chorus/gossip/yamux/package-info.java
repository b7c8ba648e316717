/**
 * The yamux stream multiplexer ({@code /yamux/1.0.0}, libp2p/specs yamux/README.md, the hashicorp/yamux
 * spec): frame codec, per-stream flow control with 256 KiB initial windows that grow as the reader keeps
 * up (as go-yamux and js-yamux do), pings, GoAway, and limits on streams, windows and refusals.
 */
package dev.chorus.gossip.yamux;
