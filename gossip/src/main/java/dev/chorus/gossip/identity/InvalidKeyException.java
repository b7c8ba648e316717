package dev.chorus.gossip.identity;

/** A key protobuf or key material that cannot be used: malformed, wrong size, or an unsupported type. */
public class InvalidKeyException extends IllegalArgumentException {
    public InvalidKeyException(String message) {
        super(message);
    }

    public InvalidKeyException(String message, Throwable cause) {
        super(message, cause);
    }
}
