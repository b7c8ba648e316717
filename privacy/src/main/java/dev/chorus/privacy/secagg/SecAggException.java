package dev.chorus.privacy.secagg;

/**
 * A secure-aggregation input cannot be used: a key of the wrong length, a share with an invalid or repeated index,
 * a vector of the wrong dimension. The message is one line and names the value and the problem.
 */
public class SecAggException extends RuntimeException {

    public SecAggException(String message) {
        super(message);
    }

    public SecAggException(String message, Throwable cause) {
        super(message, cause);
    }
}
