package dev.chorus.privacy.membership;

/**
 * A membership file or value cannot be used: a corrupt PEM file, a wrong passphrase, a key file that others may
 * read, a certificate that lacks a field. The message is one line for the operator and names the file and the
 * problem.
 */
public class MembershipException extends RuntimeException {

    public MembershipException(String message) {
        super(message);
    }

    public MembershipException(String message, Throwable cause) {
        super(message, cause);
    }
}
