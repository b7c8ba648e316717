/**
 * libp2p private networks with a pre-shared key ({@code /key/swarm/psk/1.0.0/}, libp2p/specs
 * pnet/Private-Networks-PSK-V1.md): the key and its file format, and the Netty handler that wraps a connection in
 * XSalsa20 below multistream-select and Noise. It admits nobody by itself: a peer without the key simply cannot make
 * sense of the bytes. Knows nothing of hosts or protocols above the socket.
 */
package dev.chorus.gossip.pnet;
