package dev.chorus.gossip.pnet;

/** A pre-shared key file that cannot be used: unreadable, too widely readable, or not in the v1 format. */
public class PreSharedKeyException extends RuntimeException {
    public PreSharedKeyException(String message) {
        super(message);
    }

    public PreSharedKeyException(String message, Throwable cause) {
        super(message, cause);
    }
}
