package dev.chorus.aggregation;

import java.util.Objects;

/**
 * A failure reported by the transport, passed to a strategy as data: a peer could not be reached, did not
 * answer in time, or refused an exchange.
 *
 * @param peer the peer concerned
 * @param kind what went wrong
 * @param detail a human-readable reason, for logs
 */
public record DeliveryFailure(String peer, Kind kind, String detail) {

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
}
