package dev.chorus.node.secagg;

import java.util.ArrayDeque;
import java.util.Locale;
import java.util.Optional;

/**
 * Whether this node takes its turn as the relay of its groups ({@code averaging.secure_relay}). A relay carries its
 * group's traffic over its own link, every masked input in and the sum out to every member, so a node behind a link
 * thinner than its peers' makes each round it relays wait on that link, for every member of the group.
 *
 * <p>Set to {@code auto} (the default), the node finds this out from its own rounds: when the last {@value
 * #EVIDENCE} rounds it relayed each took more than {@value #SLOWER} times the median of the last rounds others relayed
 * for it (and at least {@value #MIN_EXTRA_MILLIS} ms more), or the last one alone more than {@value #GROSSLY_SLOWER}
 * times (and at least {@value #GROSS_EXTRA_MILLIS} ms more), it declines the role for a while and then takes it
 * again to measure afresh; each decline that follows a retry without a passing round between lasts twice the one
 * before, from {@link #FIRST_DECLINE_MILLIS} up to {@link #LONGEST_DECLINE_MILLIS}. A round's duration runs from its
 * START to its outcome at this member, so both kinds of round count the same phases, and a round this node relayed
 * counts the members' uploads over its link. Only its own times decide, so nothing a peer claims moves it; a link
 * that is the same as the others' leaves the two medians alike, and a decline needs a margin on both counts, so that
 * rounds too short to matter move nothing. A slow round relayed holds a whole group back, while a decline in error
 * costs only one candidate for the role until the retry, so one grossly slow round is enough.
 *
 * <p>Not thread-safe: the service calls it on its own thread.
 */
public final class RelayRole {

    /** What {@code averaging.secure_relay} says. */
    public enum Setting {
        /** Relays unless its own rounds show its link slower than its peers'. */
        AUTO,
        /** Always takes its turn. */
        ALWAYS,
        /** Never takes its turn (it still relays a group none of whose members does). */
        NEVER;

        /** {@code auto}, {@code true} or {@code false}, as {@code node.yaml} writes it. */
        public static Setting parse(String text) {
            return switch (text.strip().toLowerCase(Locale.ROOT)) {
                case "auto" -> AUTO;
                case "true" -> ALWAYS;
                case "false" -> NEVER;
                default ->
                    throw new IllegalArgumentException(
                            "averaging.secure_relay is auto, true or false, not '" + text + "'");
            };
        }

        /** The word {@link #parse} takes for this setting. */
        public String word() {
            return switch (this) {
                case AUTO -> "auto";
                case ALWAYS -> "true";
                case NEVER -> "false";
            };
        }
    }

    /** Rounds this node relayed, in a row, that must each be slow before it declines. */
    static final int EVIDENCE = 2;
    /** Rounds relayed by others that the comparison needs before it decides anything. */
    static final int MIN_OTHERS = 4;
    /** How many of the latest rounds relayed by others the median is taken over. */
    static final int OTHERS_KEPT = 16;
    /** How many times the median of the others' rounds a round this node relays must take to count as slow. */
    static final double SLOWER = 2.0;
    /** And by how much, at least: below it the relay's link costs its group too little to matter. */
    static final long MIN_EXTRA_MILLIS = 50;
    /** How many times the median one round relayed here must take to decline on its own. */
    static final double GROSSLY_SLOWER = 4.0;
    /** And by how much, at least. */
    static final long GROSS_EXTRA_MILLIS = 250;
    /** How long the first decline lasts. */
    static final long FIRST_DECLINE_MILLIS = 60_000;
    /** The longest decline: a link that improves is found again within it. */
    static final long LONGEST_DECLINE_MILLIS = 480_000;

    /** Why the role changed, for the log. */
    public record Change(boolean relays, String reason) {}

    private final Setting setting;
    private final ArrayDeque<Long> others = new ArrayDeque<>();
    private final ArrayDeque<Long> mine = new ArrayDeque<>();
    private boolean relays;
    private long declinedUntil;
    private long nextDecline = FIRST_DECLINE_MILLIS;
    private boolean retrying;

    public RelayRole(Setting setting) {
        this.setting = setting;
        this.relays = setting != Setting.NEVER;
    }

    /** Whether this node takes its turn now. */
    public boolean relays() {
        return relays;
    }

    /**
     * A group round this node took part in as a member ended (completed or abandoned after its START).
     *
     * @param millis how long it ran at this member, from its START to its outcome
     * @param relayedHere whether this node relayed it
     * @param now the clock, in milliseconds
     * @return the change of role it leads to, if any
     */
    public Optional<Change> roundEnded(long millis, boolean relayedHere, long now) {
        if (setting != Setting.AUTO) {
            return Optional.empty();
        }
        if (!relayedHere) {
            others.addLast(millis);
            if (others.size() > OTHERS_KEPT) {
                others.removeFirst();
            }
            return Optional.empty();
        }
        if (!relays) {
            // A group none of whose members relays falls to one of them anyway; it says nothing new.
            return Optional.empty();
        }
        mine.addLast(millis);
        if (mine.size() > EVIDENCE) {
            mine.removeFirst();
        }
        if (others.size() < MIN_OTHERS) {
            return Optional.empty();
        }
        long median = median();
        boolean gross = millis > GROSSLY_SLOWER * median && millis - median >= GROSS_EXTRA_MILLIS;
        long fastest = mine.stream().mapToLong(Long::longValue).min().orElseThrow();
        boolean slow = mine.size() >= EVIDENCE && fastest > SLOWER * median && fastest - median >= MIN_EXTRA_MILLIS;
        if (!gross && !slow) {
            if (retrying && mine.size() >= EVIDENCE) {
                // The retry passed: the link is as fast as the others' again.
                retrying = false;
                nextDecline = FIRST_DECLINE_MILLIS;
            }
            return Optional.empty();
        }
        long declineFor = retrying ? nextDecline : FIRST_DECLINE_MILLIS;
        nextDecline = Math.min(LONGEST_DECLINE_MILLIS, declineFor * 2);
        retrying = false;
        relays = false;
        declinedUntil = now + declineFor;
        String rounds = gross
                ? "the last round this node relayed took " + millis + " ms"
                : "the last " + mine.size() + " rounds this node relayed took "
                        + mine.stream().map(String::valueOf).collect(java.util.stream.Collectors.joining(" and "))
                        + " ms";
        String reason = String.format(
                Locale.ROOT,
                "%s against a median of %d ms for the last %d that others relayed: its link is slower than its"
                        + " peers'; declining the relay's role for %d s (averaging.secure_relay: auto)",
                rounds,
                median,
                others.size(),
                declineFor / 1000);
        mine.clear();
        return Optional.of(new Change(false, reason));
    }

    /** Takes the role again once a decline has run its time; call it now and then. */
    public Optional<Change> tick(long now) {
        if (setting != Setting.AUTO || relays || now < declinedUntil) {
            return Optional.empty();
        }
        relays = true;
        retrying = true;
        return Optional.of(new Change(true, "taking the relay's role again to measure this node's link"));
    }

    private long median() {
        long[] sorted = others.stream().mapToLong(Long::longValue).sorted().toArray();
        int n = sorted.length;
        return n % 2 == 1 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
    }
}
