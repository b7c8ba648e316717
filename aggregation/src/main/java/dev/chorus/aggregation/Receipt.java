package dev.chorus.aggregation;

import java.util.List;
import java.util.Objects;

/**
 * What a strategy did with a message it received, and the replies to send back on the same exchange.
 * Ignoring a message is an ordinary outcome, reported here; malformed input throws
 * {@link InvalidUpdateException} instead.
 *
 * @param outcome what happened
 * @param detail why, for logs and metrics; empty when there is nothing to add
 * @param replies messages to send back, usually to the sender
 */
public record Receipt(Outcome outcome, String detail, List<Outbound> replies) {

    /** What happened to a received message. */
    public enum Outcome {
        /** Merged into the local model now. */
        MERGED,
        /** Kept, to be merged later (at the end of a round or when a buffer fills). */
        BUFFERED,
        /** Answered without merging anything (a plain pull). */
        ANSWERED,
        /** Dropped: older than the strategy accepts. */
        IGNORED_STALE,
        /** Dropped: the same sender already contributed. */
        IGNORED_DUPLICATE,
        /** Dropped: valid, but not something this strategy expects now (wrong role, kind, sender or round). */
        IGNORED_UNEXPECTED
    }

    private static final Receipt MERGED = new Receipt(Outcome.MERGED, "", List.of());
    private static final Receipt BUFFERED = new Receipt(Outcome.BUFFERED, "", List.of());

    public Receipt {
        Objects.requireNonNull(outcome, "outcome");
        Objects.requireNonNull(detail, "detail");
        replies = List.copyOf(replies);
    }

    /** Merged, nothing to reply (a shared instance: receiving allocates nothing). */
    public static Receipt merged() {
        return MERGED;
    }

    /** Buffered, nothing to reply (a shared instance). */
    public static Receipt buffered() {
        return BUFFERED;
    }

    /** Dropped for the given reason. */
    public static Receipt ignored(Outcome outcome, String detail) {
        if (outcome == Outcome.MERGED || outcome == Outcome.BUFFERED || outcome == Outcome.ANSWERED) {
            throw new IllegalArgumentException(outcome + " is not a reason to ignore a message");
        }
        return new Receipt(outcome, detail, List.of());
    }

    /** Whether the message was kept (merged now or buffered). */
    public boolean accepted() {
        return outcome == Outcome.MERGED || outcome == Outcome.BUFFERED;
    }
}
