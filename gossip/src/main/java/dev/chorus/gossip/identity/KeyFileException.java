package dev.chorus.gossip.identity;

/** A key file that cannot be used: unreadable, too widely readable, or corrupt. */
public class KeyFileException extends RuntimeException {
    public KeyFileException(String message) {
        super(message);
    }

    public KeyFileException(String message, Throwable cause) {
        super(message, cause);
    }
}
