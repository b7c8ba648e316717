package dev.chorus.gossip.identity;

/** Text or bytes that do not form a valid peer ID. */
public class InvalidPeerIdException extends IllegalArgumentException {
    public InvalidPeerIdException(String message) {
        super(message);
    }

    public InvalidPeerIdException(String message, Throwable cause) {
        super(message, cause);
    }
}
