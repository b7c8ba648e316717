package dev.chorus.learning.tensor;

/** The requested tensor backend cannot be used here; the message says why in one line. */
public final class BackendUnavailableException extends RuntimeException {

    public BackendUnavailableException(String message) {
        super(message);
    }
}
