package dev.chorus.gossip.host;

import java.io.IOException;

/** A {@link ConnectionGate} refused a connection; {@link #reason()} is a short label for logs and metrics. */
public final class ConnectionRefusedException extends IOException {
    private final String reason;

    public ConnectionRefusedException(String reason, String message) {
        super(message);
        this.reason = reason;
    }

    /** A short kebab-case label such as {@code unknown-ca} or {@code timeout}. */
    public String reason() {
        return reason;
    }
}
