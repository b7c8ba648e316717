package dev.chorus.gossip.core;

/**
 * Serves one protocol on inbound streams. Called on the connection's I/O thread once the protocol is
 * negotiated; the handler drives the stream through its futures and must not block.
 */
@FunctionalInterface
public interface StreamHandler {
    void handle(Stream stream);
}
