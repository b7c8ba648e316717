package dev.chorus.privacy.secagg;

/**
 * A round cannot be unmasked and must be abandoned: fewer than the threshold of shares arrived for a secret that the
 * sum needs, or a member was asked to be treated both as a survivor and as a dropout. It is thrown before any secret
 * is reconstructed, so an aborted round reveals nothing beyond the shares already received.
 */
public class SecAggAbortedException extends SecAggException {

    public SecAggAbortedException(String message) {
        super(message);
    }
}
