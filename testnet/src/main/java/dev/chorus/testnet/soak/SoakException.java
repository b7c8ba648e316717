package dev.chorus.testnet.soak;

/** A soak cannot go on: a node is gone, or cannot be sampled; the message names it. */
public final class SoakException extends RuntimeException {
    public SoakException(String message) {
        super(message);
    }
}
