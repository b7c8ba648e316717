package dev.chorus.node.averaging;

import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.LongSupplier;

/**
 * The most exchanges a second this node starts with each peer: a token bucket per peer that refills at {@code
 * perSecond} and holds at most one second's worth (at least one token), so that a short burst is allowed and the
 * long-run rate is not exceeded. A rate of 0 bounds nothing. Used on the training thread.
 *
 * <p>A bucket that has filled up again is no different from a fresh one, so it is dropped: every interval in which an
 * emptied bucket (deepest in debt) fills, the buckets that are full are removed. The map so holds only the peers
 * exchanged with in about the last two such intervals, however many peers come and go.
 */
public final class ExchangeRateLimit {

    /** The limit that bounds nothing. */
    public static final ExchangeRateLimit NONE = new ExchangeRateLimit(0, System::nanoTime);

    private final double perSecond;
    private final double capacity;
    private final LongSupplier nanoTime;
    private final Map<String, Bucket> buckets = new ConcurrentHashMap<>();
    /** The time a bucket at its deepest debt takes to fill: how often full buckets are dropped. */
    private final long sweepEveryNanos;

    private long sweptAt;

    private static final class Bucket {
        double tokens;
        long refilledAt;

        Bucket(double tokens, long now) {
            this.tokens = tokens;
            this.refilledAt = now;
        }
    }

    /**
     * @param perSecond exchanges a second with one peer; 0: no bound
     * @param nanoTime the clock, in nanoseconds ({@code System::nanoTime}, or a test's)
     */
    public ExchangeRateLimit(double perSecond, LongSupplier nanoTime) {
        if (!(perSecond >= 0) || Double.isInfinite(perSecond)) {
            throw new IllegalArgumentException(
                    "exchanges per second must be finite and not negative, got " + perSecond);
        }
        this.perSecond = perSecond;
        this.capacity = Math.max(1.0, perSecond);
        this.nanoTime = nanoTime;
        this.sweepEveryNanos = perSecond > 0 ? (long) Math.ceil(2 * capacity / perSecond * 1e9) : Long.MAX_VALUE;
        this.sweptAt = perSecond > 0 ? nanoTime.getAsLong() : 0;
    }

    /** Whether it bounds anything. */
    public boolean bounded() {
        return perSecond > 0;
    }

    /** Those of {@code peers} with a token now, in their order. */
    public List<String> available(List<String> peers) {
        if (!bounded()) {
            return peers;
        }
        long now = nanoTime.getAsLong();
        dropFull(now);
        return peers.stream().filter(p -> refill(p, now).tokens >= 1.0).toList();
    }

    /**
     * Takes one token of {@code peer}'s: an exchange with it starts. A peer without one goes into debt (at most one
     * second's worth), which it pays back before it is {@linkplain #available available} again.
     */
    public void take(String peer) {
        if (!bounded()) {
            return;
        }
        long now = nanoTime.getAsLong();
        dropFull(now);
        Bucket b = refill(peer, now);
        b.tokens = Math.max(-capacity, b.tokens - 1.0);
    }

    /** Forgets peers not in {@code peers}, so that the map holds only connected ones. */
    public void retain(List<String> peers) {
        if (buckets.size() > peers.size()) {
            buckets.keySet().retainAll(new java.util.HashSet<>(peers));
        }
    }

    /** The number of peers with a bucket. */
    int trackedPeers() {
        return buckets.size();
    }

    /** Drops the buckets that are full again, once per {@link #sweepEveryNanos}. */
    private void dropFull(long now) {
        if (now - sweptAt < sweepEveryNanos) {
            return;
        }
        sweptAt = now;
        buckets.values().removeIf(b -> b.tokens + (now - b.refilledAt) / 1e9 * perSecond >= capacity);
    }

    private Bucket refill(String peer, long now) {
        Bucket b = buckets.computeIfAbsent(peer, p -> new Bucket(capacity, now));
        double elapsed = (now - b.refilledAt) / 1e9;
        if (elapsed > 0) {
            b.tokens = Math.min(capacity, b.tokens + elapsed * perSecond);
            b.refilledAt = now;
        }
        return b;
    }
}
