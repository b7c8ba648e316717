package dev.chorus.node.averaging;

import java.util.concurrent.atomic.AtomicLongArray;

/**
 * Counts of the version lag of received updates ({@code local version - update version}, 0 when the update is
 * newer), in power-of-two buckets: {@code 0}, {@code 1}, {@code 2-3}, {@code 4-7}, ..., the last bucket open-ended.
 * Recorded on the training thread, read from any thread.
 */
public final class StalenessHistogram {

    public static final int BUCKETS = 16;

    private final AtomicLongArray counts = new AtomicLongArray(BUCKETS);

    public void record(long lag) {
        counts.incrementAndGet(bucketOf(lag));
    }

    /** The bucket of a lag: 0 for lag 0, else {@code 1 + floor(log2(lag))}, capped at the last. */
    public static int bucketOf(long lag) {
        if (lag <= 0) {
            return 0;
        }
        return Math.min(BUCKETS - 1, 64 - Long.numberOfLeadingZeros(lag));
    }

    /** The smallest lag of bucket {@code b}. */
    public static long lowerBound(int b) {
        return b == 0 ? 0 : 1L << (b - 1);
    }

    public long count(int bucket) {
        return counts.get(bucket);
    }

    public long total() {
        long t = 0;
        for (int i = 0; i < BUCKETS; i++) {
            t += counts.get(i);
        }
        return t;
    }

    /** A copy of the counts. */
    public long[] toArray() {
        long[] out = new long[BUCKETS];
        for (int i = 0; i < BUCKETS; i++) {
            out[i] = counts.get(i);
        }
        return out;
    }
}
