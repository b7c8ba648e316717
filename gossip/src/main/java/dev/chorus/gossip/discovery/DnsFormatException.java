package dev.chorus.gossip.discovery;

/** A malformed or oversize DNS packet. */
public final class DnsFormatException extends RuntimeException {
    public DnsFormatException(String message) {
        super(message);
    }
}
