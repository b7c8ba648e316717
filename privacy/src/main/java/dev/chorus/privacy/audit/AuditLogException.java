package dev.chorus.privacy.audit;

/** The audit log directory cannot be used: unreadable, locked by another process, or not in the expected format. */
public final class AuditLogException extends RuntimeException {

    public AuditLogException(String message) {
        super(message);
    }

    public AuditLogException(String message, Throwable cause) {
        super(message, cause);
    }
}
