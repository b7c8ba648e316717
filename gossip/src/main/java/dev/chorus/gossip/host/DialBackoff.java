package dev.chorus.gossip.host;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.LongSupplier;

/**
 * Exponential dial backoff per target: after the n-th consecutive failure, no dial for {@code base *
 * 2^(n-1)}, capped at {@code max}. A success clears the target. Bounded in size (oldest dropped).
 */
final class DialBackoff {
    private static final int MAX_ENTRIES = 4096;

    private record Entry(int failures, long until) {}

    private final Duration base;
    private final Duration max;
    private final LongSupplier clock;
    private final Map<String, Entry> entries = new LinkedHashMap<>();

    DialBackoff(Duration base, Duration max, LongSupplier nanoClock) {
        this.base = base;
        this.max = max;
        this.clock = nanoClock;
    }

    /** Remaining backoff for {@code target}, or zero when a dial may go ahead. */
    synchronized Duration remaining(String target) {
        Entry e = entries.get(target);
        if (e == null) {
            return Duration.ZERO;
        }
        long left = e.until - clock.getAsLong();
        return left > 0 ? Duration.ofNanos(left) : Duration.ZERO;
    }

    synchronized void failed(String target) {
        Entry e = entries.remove(target);
        int failures = e == null ? 1 : e.failures + 1;
        long delay = base.toNanos() << Math.min(failures - 1, 30);
        delay = Math.min(delay < 0 ? Long.MAX_VALUE : delay, max.toNanos());
        entries.put(target, new Entry(failures, clock.getAsLong() + delay));
        if (entries.size() > MAX_ENTRIES) {
            entries.remove(entries.keySet().iterator().next());
        }
    }

    synchronized void succeeded(String target) {
        entries.remove(target);
    }
}
