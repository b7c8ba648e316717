package dev.chorus.gossip.record;

/** A signed envelope or peer record that is malformed, too large, or does not verify; the message says which. */
public final class RecordException extends RuntimeException {
    public RecordException(String message) {
        super(message);
    }

    public RecordException(String message, Throwable cause) {
        super(message, cause);
    }
}
