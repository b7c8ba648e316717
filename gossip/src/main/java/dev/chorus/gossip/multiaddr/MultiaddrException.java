package dev.chorus.gossip.multiaddr;

/** A multiaddr that cannot be parsed or used; the message names the offending part. */
public class MultiaddrException extends IllegalArgumentException {
    public MultiaddrException(String message) {
        super(message);
    }

    public MultiaddrException(String message, Throwable cause) {
        super(message, cause);
    }
}
