/**
 * The yamux stream multiplexer ({@code /yamux/1.0.0}, libp2p/specs yamux/README.md, the hashicorp/yamux
 * spec): frame codec, per-stream flow control that starts at the spec's 256 KiB window, raised at once to
 * the configured initial window (1 MiB by default) while the session's budget allows, and grows as the reader
 * keeps up (as go-yamux and js-yamux do), pings and keep-alives, GoAway, and limits on streams, windows and
 * refusals.
 */
package dev.chorus.gossip.yamux;
