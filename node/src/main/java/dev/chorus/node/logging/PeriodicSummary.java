package dev.chorus.node.logging;

import java.time.Duration;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.function.Consumer;
import java.util.function.LongSupplier;

/**
 * One log line per period for an event that repeats, in place of one line per event: the events are counted by
 * kind (a refusal's reason, say) with the distinct sources (peers) of each, and a {@link Summary} is handed to the
 * sink with the first event, then with the first event after each period, or at {@link #flush}. A node that refuses
 * a hundred exchanges a second thus logs a line a minute that says so, and an isolated event still comes out at
 * once. {@link #record} also says whether a source is new, for a caller that logs each source once at a finer
 * level. At most {@link #MAX_KINDS} kinds are told apart in a period (the last of them {@code other}, for the rest),
 * and {@link #MAX_SOURCES} sources remembered and counted, so that a flood of distinct reasons or peers takes bounded memory.
 * Thread-safe.
 */
public final class PeriodicSummary {

    /** Kinds told apart within one period. */
    public static final int MAX_KINDS = 16;

    /** Sources remembered as seen; past it the memory starts afresh. */
    public static final int MAX_SOURCES = 4096;

    /**
     * Events of one kind in a period.
     *
     * @param events how many
     * @param sources from how many distinct sources
     */
    public record Count(long events, int sources) {}

    /**
     * What a period held.
     *
     * @param kinds the count of each kind, in the order first seen
     * @param period the time since the previous summary (zero for the first)
     */
    public record Summary(Map<String, Count> kinds, Duration period) {

        /** The events of every kind. */
        public long events() {
            return kinds.values().stream().mapToLong(Count::events).sum();
        }

        /** {@code KIND xN (K peers), ...}: each kind with its count and, past one, its sources. */
        public String describe(String sourceName) {
            StringBuilder sb = new StringBuilder();
            kinds.forEach((kind, c) -> {
                if (!sb.isEmpty()) {
                    sb.append("; ");
                }
                sb.append(kind).append(" x").append(c.events());
                sb.append(" (").append(c.sources()).append(' ').append(sourceName);
                sb.append(c.sources() == 1 ? "" : "s").append(')');
            });
            return sb.toString();
        }
    }

    private static final String OTHER = "other";

    private final long periodNanos;
    private final LongSupplier nanoTime;
    private final Consumer<Summary> sink;
    private final Map<String, long[]> events = new LinkedHashMap<>();
    private final Map<String, Set<String>> sources = new LinkedHashMap<>();
    private final Set<String> seen = new HashSet<>();
    private long lastSummary;
    private boolean summarised;

    /**
     * @param period the least time between two summaries
     * @param nanoTime the clock ({@code System::nanoTime}, or a test's)
     * @param sink where each summary goes, on the thread of the event that completed the period
     */
    public PeriodicSummary(Duration period, LongSupplier nanoTime, Consumer<Summary> sink) {
        if (period.isNegative() || period.isZero()) {
            throw new IllegalArgumentException("period must be positive, got " + period);
        }
        this.periodNanos = period.toNanos();
        this.nanoTime = nanoTime;
        this.sink = sink;
    }

    /** A summary a minute on the system clock. */
    public static PeriodicSummary perMinute(Consumer<Summary> sink) {
        return new PeriodicSummary(Duration.ofMinutes(1), System::nanoTime, sink);
    }

    /**
     * Counts one event of {@code kind} from {@code source}, and hands a summary to the sink when one is due.
     *
     * @return whether {@code source} is new: never seen before by this summary
     */
    public boolean record(String kind, String source) {
        Summary due;
        boolean first;
        synchronized (this) {
            // One place of MAX_KINDS is kept for OTHER.
            String k = events.containsKey(kind) || events.size() < MAX_KINDS - 1 ? kind : OTHER;
            events.computeIfAbsent(k, x -> new long[1])[0]++;
            Set<String> from = sources.computeIfAbsent(k, x -> new HashSet<>());
            if (from.size() < MAX_SOURCES) {
                from.add(source);
            }
            if (seen.size() >= MAX_SOURCES && !seen.contains(source)) {
                seen.clear();
            }
            first = seen.add(source);
            due = takeIfDue(nanoTime.getAsLong());
        }
        if (due != null) {
            sink.accept(due);
        }
        return first;
    }

    /** Hands the events counted since the last summary to the sink if a period has passed; any thread. */
    public void flushIfDue() {
        Summary due;
        synchronized (this) {
            due = events.isEmpty() ? null : takeIfDue(nanoTime.getAsLong());
        }
        if (due != null) {
            sink.accept(due);
        }
    }

    /** Hands the events counted since the last summary to the sink now (at close), if there are any. */
    public void flush() {
        Summary s;
        synchronized (this) {
            s = events.isEmpty() ? null : take(nanoTime.getAsLong());
        }
        if (s != null) {
            sink.accept(s);
        }
    }

    private Summary takeIfDue(long now) {
        return !summarised || now - lastSummary >= periodNanos ? take(now) : null;
    }

    private Summary take(long now) {
        Map<String, Count> kinds = new LinkedHashMap<>();
        events.forEach((k, n) -> kinds.put(k, new Count(n[0], sources.get(k).size())));
        Duration period = summarised ? Duration.ofNanos(now - lastSummary) : Duration.ZERO;
        events.clear();
        sources.clear();
        lastSummary = now;
        summarised = true;
        return new Summary(kinds, period);
    }
}
