package dev.chorus.learning.data;

/**
 * Input data that cannot be used as given: a missing file, an unknown column, a malformed line, a
 * label column with one class. The message is one line and names the file, line and column where
 * they are known, so that a command-line tool can print it as it is.
 */
public final class DataException extends RuntimeException {

    public DataException(String message) {
        super(message);
    }

    public DataException(String message, Throwable cause) {
        super(message, cause);
    }
}
