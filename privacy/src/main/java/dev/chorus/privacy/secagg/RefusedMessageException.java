package dev.chorus.privacy.secagg;

/** A message that a round machine refused (another round, a non-member, a duplicate, out of phase, malformed); the
 * machine's state is unchanged. */
public class RefusedMessageException extends SecAggException {

    public RefusedMessageException(String message) {
        super(message);
    }

    public RefusedMessageException(String message, Throwable cause) {
        super(message, cause);
    }
}
