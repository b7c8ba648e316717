/**
 * multistream-select 1.0 ({@code /multistream/1.0.0}, libp2p/specs connections/README.md): a pure
 * negotiation state machine for each role ({@link MultistreamSelect.Dialer}, {@link
 * MultistreamSelect.Listener}) and a Netty handler that runs one on a channel and hands any bytes that
 * follow the negotiation to the next handler.
 */
package dev.chorus.gossip.multistream;
