package dev.chorus.aggregation;

import java.util.Objects;

/** A message that a strategy wants sent to one peer. */
public record Outbound(String recipient, AveragingMessage message) {

    public Outbound {
        Objects.requireNonNull(recipient, "recipient");
        Objects.requireNonNull(message, "message");
    }
}
