package dev.chorus.gossip.discovery;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Predicate;
import java.util.random.RandomGenerator;

/**
 * When to dial each target: at once when added, again after a failure with a backoff that doubles from {@code
 * base} to {@code max} (with up to 20 % jitter so that a consortium does not redial in lockstep), and after a
 * lost connection. A connection that lasted at least {@code stableAfter} resets the backoff, and the redial after
 * it is lost waits {@code base}; one lost sooner counts as a further failure, so that a peer that accepts and
 * then drops every connection (a refusal after the handshake, a crash loop) is redialed ever more slowly rather
 * than every {@code base}. Pure logic on millisecond timestamps; not thread-safe.
 */
public final class ReconnectSchedule<T> {
    private static final int MAX_FAILURES = 30;

    private static final class State {
        boolean connected;
        boolean dialing;
        /** Lost a connection or failed a dial since the last {@link #succeeded}: the next dial is a redial. */
        boolean retry;
        /** Lost a connection since the last {@link #succeeded}. */
        boolean dropped;

        int failures;
        /** The failures before the last success, restored if that connection did not last. */
        int failuresBefore;

        long next;
        long connectedAt;
    }

    private final long base;
    private final long max;
    private final long stableAfter;
    private final RandomGenerator random;
    private final Map<T, State> targets = new LinkedHashMap<>();

    /** A schedule in which every connection counts as stable: a loss is redialed after {@code base}. */
    public ReconnectSchedule(Duration base, Duration max, RandomGenerator random) {
        this(base, max, Duration.ZERO, random);
    }

    public ReconnectSchedule(Duration base, Duration max, Duration stableAfter, RandomGenerator random) {
        if (base.isNegative() || base.isZero() || max.compareTo(base) < 0) {
            throw new IllegalArgumentException("need 0 < base <= max, got base " + base + ", max " + max);
        }
        if (stableAfter.isNegative()) {
            throw new IllegalArgumentException("stableAfter must not be negative, got " + stableAfter);
        }
        this.base = base.toMillis();
        this.max = max.toMillis();
        this.stableAfter = stableAfter.toMillis();
        this.random = random;
    }

    /** Adds {@code target}, due at {@code now} at the latest. */
    public void add(T target, long now) {
        targets.putIfAbsent(target, new State());
        targets.get(target).next = Math.min(targets.get(target).next, now);
    }

    /** Adds {@code target} as connected now (a peer that connected to us), unless it is known already. */
    public void addConnected(T target, long now) {
        if (!targets.containsKey(target)) {
            State s = new State();
            s.connected = true;
            s.connectedAt = now;
            targets.put(target, s);
        }
    }

    public boolean contains(T target) {
        return targets.containsKey(target);
    }

    public void remove(T target) {
        targets.remove(target);
    }

    /** Drops every target that {@code keep} rejects. */
    public void retain(Predicate<T> keep) {
        targets.keySet().removeIf(t -> !keep.test(t));
    }

    public int size() {
        return targets.size();
    }

    /** Every target to dial now; they count as dialing until {@link #succeeded} or {@link #failed}. */
    public List<T> due(long now) {
        return due(now, Integer.MAX_VALUE);
    }

    /**
     * At most {@code limit} targets to dial now, best first: fewest consecutive failures, then longest due. They count
     * as dialing until {@link #succeeded}, {@link #failed} or {@link #defer}.
     */
    public List<T> due(long now, int limit) {
        List<Map.Entry<T, State>> ready = new ArrayList<>();
        for (Map.Entry<T, State> e : targets.entrySet()) {
            State s = e.getValue();
            if (!s.connected && !s.dialing && s.next <= now) {
                ready.add(e);
            }
        }
        ready.sort(Comparator.comparingInt((Map.Entry<T, State> e) -> e.getValue().failures)
                .thenComparingLong(e -> e.getValue().next));
        List<T> out = new ArrayList<>();
        for (Map.Entry<T, State> e : ready) {
            if (out.size() >= limit) {
                break;
            }
            e.getValue().dialing = true;
            out.add(e.getKey());
        }
        return out;
    }

    /** Whether a dial of {@code target} now follows a lost connection or a failed dial. */
    public boolean isRedial(T target) {
        State s = targets.get(target);
        return s != null && s.retry;
    }

    /**
     * Records a connection to {@code target} at {@code now}.
     *
     * @return whether it follows a lost connection (a reconnect), as opposed to a first connection or a repeat
     */
    public boolean succeeded(T target, long now) {
        State s = targets.get(target);
        if (s == null || s.connected) {
            if (s != null) {
                s.dialing = false;
            }
            return false;
        }
        boolean reconnected = s.dropped;
        s.dialing = false;
        s.connected = true;
        s.retry = false;
        s.dropped = false;
        s.connectedAt = now;
        s.failuresBefore = s.failures;
        s.failures = 0;
        return reconnected;
    }

    public void failed(T target, long now) {
        State s = targets.get(target);
        if (s != null) {
            s.dialing = false;
            s.connected = false;
            s.retry = true;
            s.failures = Math.min(s.failures + 1, MAX_FAILURES);
            s.next = now + delay(s.failures);
        }
    }

    /** Puts off a dial that was due (say, while the host still backs off from the peer) until {@code until}. */
    public void defer(T target, long until) {
        State s = targets.get(target);
        if (s != null && !s.connected) {
            s.dialing = false;
            s.next = until;
        }
    }

    public void disconnected(T target, long now) {
        State s = targets.get(target);
        if (s == null || !s.connected) {
            return;
        }
        s.connected = false;
        s.retry = true;
        s.dropped = true;
        if (now - s.connectedAt < stableAfter) {
            s.failures = Math.min(s.failuresBefore + 1, MAX_FAILURES);
            s.next = now + delay(s.failures);
        } else {
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

    /** Consecutive failures of {@code target} (0 when unknown). */
    public int failures(T target) {
        State s = targets.get(target);
        return s == null ? 0 : s.failures;
    }

    /** When {@code target} is next due, or -1 if connected or dialing. */
    public long nextAttempt(T target) {
        State s = targets.get(target);
        return s == null || s.connected || s.dialing ? -1 : s.next;
    }
}
