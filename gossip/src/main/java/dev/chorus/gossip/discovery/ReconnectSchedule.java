package dev.chorus.gossip.discovery;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.random.RandomGenerator;

/**
 * When to dial each bootstrap target: at once at start, again after a failure with a backoff that
 * doubles from {@code base} to {@code max} (with up to 20 % jitter so that a consortium does not redial
 * in lockstep), and {@code base} after a connection is lost. Pure logic on millisecond timestamps.
 */
public final class ReconnectSchedule<T> {
    private static final class State {
        boolean connected;
        boolean dialing;
        int failures;
        long next;
    }

    private final long base;
    private final long max;
    private final RandomGenerator random;
    private final Map<T, State> targets = new LinkedHashMap<>();

    public ReconnectSchedule(Duration base, Duration max, RandomGenerator random) {
        if (base.isNegative() || base.isZero() || max.compareTo(base) < 0) {
            throw new IllegalArgumentException("need 0 < base <= max");
        }
        this.base = base.toMillis();
        this.max = max.toMillis();
        this.random = random;
    }

    public void add(T target, long now) {
        targets.putIfAbsent(target, new State());
        targets.get(target).next = Math.min(targets.get(target).next, now);
    }

    /** Targets to dial now; they count as dialing until {@link #succeeded} or {@link #failed}. */
    public List<T> due(long now) {
        List<T> out = new ArrayList<>();
        for (Map.Entry<T, State> e : targets.entrySet()) {
            State s = e.getValue();
            if (!s.connected && !s.dialing && s.next <= now) {
                s.dialing = true;
                out.add(e.getKey());
            }
        }
        return out;
    }

    public void succeeded(T target) {
        State s = targets.get(target);
        if (s != null) {
            s.dialing = false;
            s.connected = true;
            s.failures = 0;
        }
    }

    public void failed(T target, long now) {
        State s = targets.get(target);
        if (s != null) {
            s.dialing = false;
            s.connected = false;
            s.failures = Math.min(s.failures + 1, 30);
            s.next = now + delay(s.failures);
        }
    }

    public void disconnected(T target, long now) {
        State s = targets.get(target);
        if (s != null && s.connected) {
            s.connected = false;
            s.next = now + base;
        }
    }

    /** The backoff after {@code failures} consecutive failures, before jitter. */
    long backoff(int failures) {
        long d = base;
        for (int i = 1; i < failures && d < max; i++) {
            d *= 2;
        }
        return Math.min(d, max);
    }

    private long delay(int failures) {
        long d = backoff(failures);
        return d + (long) (d * 0.2 * random.nextDouble());
    }

    public boolean isConnected(T target) {
        State s = targets.get(target);
        return s != null && s.connected;
    }

    /** When {@code target} is next due, or -1 if connected or dialing. */
    public long nextAttempt(T target) {
        State s = targets.get(target);
        return s == null || s.connected || s.dialing ? -1 : s.next;
    }
}
