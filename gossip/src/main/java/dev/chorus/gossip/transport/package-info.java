/**
 * The TCP transport: one Netty event loop group (epoll where the native transport loads, NIO
 * elsewhere), TCP_NODELAY on every socket, dial and listen with timeouts. Knows nothing of libp2p
 * layers; the host installs them.
 */
package dev.chorus.gossip.transport;
