/**
 * Multiaddrs (multiformats/multiaddr): text and binary forms for ip4, ip6, tcp, udp, dns, dns4, dns6,
 * dnsaddr and p2p. Parsing never resolves names; errors name the offending part.
 */
package dev.chorus.gossip.multiaddr;
