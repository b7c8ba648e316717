package dev.chorus.node.setup;

/**
 * A problem with what the user asked for (a missing file, a bad option value, unusable data): the
 * CLI prints its message on one line and exits with code 2, without a stack trace.
 */
public final class UserError extends RuntimeException {

    public UserError(String message) {
        super(message);
    }

    public UserError(String message, Throwable cause) {
        super(message, cause);
    }
}
