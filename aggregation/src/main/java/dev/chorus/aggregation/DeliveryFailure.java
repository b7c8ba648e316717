package dev.chorus.aggregation;

import java.util.Objects;

/**
 * A failure reported by the transport, passed to a strategy as data: a peer could not be reached, did not
 * answer in time, or refused an exchange.
 *
 * @param peer the peer concerned
 * @param kind what went wrong
 * @param detail a human-readable reason, for logs
 * @param message the message that was not delivered, or {@code null} when the transport cannot tell
 */
public record DeliveryFailure(String peer, Kind kind, String detail, AveragingMessage message) {

    /** What went wrong. */
    public enum Kind {
        UNREACHABLE,
        TIMED_OUT,
        REFUSED
    }

    public DeliveryFailure {
        Objects.requireNonNull(peer, "peer");
        Objects.requireNonNull(kind, "kind");
        Objects.requireNonNull(detail, "detail");
    }

    /** A failure that names no message. */
    public DeliveryFailure(String peer, Kind kind, String detail) {
        this(peer, kind, detail, null);
    }
}
