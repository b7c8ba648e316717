/**
 * The TCP transport: one Netty event loop group (epoll where the native transport loads, NIO
 * elsewhere), TCP_NODELAY on every socket, dial with a connect timeout, and listen. Knows nothing of libp2p
 * layers; the host installs them. {@link dev.chorus.gossip.transport.BufferMemory} reports what the network
 * buffers hold, for diagnostics.
 */
package dev.chorus.gossip.transport;
