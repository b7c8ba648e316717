package dev.chorus.gossip.host;

/** Connection events, called on the connection's I/O thread; implementations must not block. */
public interface ConnectionListener {
    default void connected(Connection connection) {}

    default void disconnected(Connection connection) {}
}
