package dev.chorus.aggregation;

/**
 * An update or vector that must not be merged: a non-finite value, a wrong length, a negative count, an
 * index out of range. The message names the sender (where known) and the problem.
 */
public final class InvalidUpdateException extends IllegalArgumentException {

    private static final long serialVersionUID = 1L;

    public InvalidUpdateException(String message) {
        super(message);
    }
}
