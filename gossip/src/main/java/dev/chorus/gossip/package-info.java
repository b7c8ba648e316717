/**
 * libp2p on Netty, per the libp2p specs (the interoperability tests run against js-libp2p): identity and peer IDs,
 * multiaddr, the TCP transport, multistream-select, Noise XX, yamux, identify, ping, gossipsub and peer discovery.
 * Knows nothing of models or training; nothing outside this module sees Netty.
 */
package dev.chorus.gossip;
