package dev.chorus.node.api;

import java.time.Instant;

/**
 * A connected peer, as {@code /api/peers} shows it.
 *
 * @param peerId base58 peer id
 * @param address the remote multiaddr
 * @param direction {@code inbound} or {@code outbound}
 * @param connectedAt when the connection was opened
 */
public record PeerInfo(String peerId, String address, String direction, Instant connectedAt) {}
