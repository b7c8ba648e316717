package dev.chorus.node.api;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;

/**
 * Every evaluation of the run in bounded memory: the newest {@code recent} at full resolution, the older ones in at
 * most {@code thinned} buckets. When the older tier is full, each pair of neighbouring buckets becomes one, so the
 * spacing of old points doubles each time and a run of any length keeps about {@code recent + thinned / 2} to
 * {@code recent + thinned} points (a node that evaluates every 30 s for a year fits in a few thousand). A bucket
 * holds the average of its evaluations, weighted by how many each side holds, and the time, version and steps of
 * its newest one. Each evaluation gets a sequence number ({@code seq}, from 1) when recorded; a bucket keeps its
 * newest one's, so that a client that has everything up to a number asks only for what is newer. Thread-safe.
 */
public final class EvaluationHistory {

    /**
     * One point: an evaluation, or the average of {@code count} neighbouring ones.
     *
     * @param seq the sequence number of the newest evaluation it holds
     * @param count how many evaluations it averages (1 at full resolution)
     */
    public record Entry(long seq, int count, HistoryPoint point) {}

    /** The newest evaluations kept at full resolution. */
    public static final int RECENT = 500;

    /** The most buckets of older evaluations. */
    public static final int THINNED = 1000;

    private final int recentCapacity;
    private final int thinnedCapacity;
    private final ArrayDeque<Entry> recent = new ArrayDeque<>();
    private final List<Entry> thinned = new ArrayList<>();
    private long lastSeq;

    /** The node's: {@link #RECENT} and {@link #THINNED}. */
    public EvaluationHistory() {
        this(RECENT, THINNED);
    }

    /** @param thinned an even number, at least 2 */
    public EvaluationHistory(int recent, int thinned) {
        if (recent < 1 || thinned < 2 || thinned % 2 != 0) {
            throw new IllegalArgumentException(
                    "recent must be at least 1 and thinned even and at least 2, got " + recent + " and " + thinned);
        }
        this.recentCapacity = recent;
        this.thinnedCapacity = thinned;
    }

    /** Appends an evaluation; returns its sequence number. */
    public synchronized long record(HistoryPoint p) {
        lastSeq++;
        recent.addLast(new Entry(lastSeq, 1, p));
        if (recent.size() > recentCapacity) {
            if (thinned.size() == thinnedCapacity) {
                halve();
            }
            thinned.add(recent.removeFirst());
        }
        return lastSeq;
    }

    /** The sequence number of the newest evaluation; 0 before the first. */
    public synchronized long lastSeq() {
        return lastSeq;
    }

    /** Every point, oldest first. */
    public synchronized List<Entry> all() {
        List<Entry> out = new ArrayList<>(thinned.size() + recent.size());
        out.addAll(thinned);
        out.addAll(recent);
        return out;
    }

    /** The points holding evaluations numbered after {@code seq}, oldest first. */
    public synchronized List<Entry> afterSeq(long seq) {
        return all().stream().filter(e -> e.seq() > seq).toList();
    }

    /** The points whose newest evaluation is later than {@code millis} (ms since the epoch), oldest first. */
    public synchronized List<Entry> afterTime(long millis) {
        return all().stream().filter(e -> e.point().timeMillis() > millis).toList();
    }

    /** The points, without their numbers, oldest first. */
    public synchronized List<HistoryPoint> points() {
        return all().stream().map(Entry::point).toList();
    }

    /** Merges each pair of neighbouring buckets of the older tier into one. */
    private void halve() {
        List<Entry> merged = new ArrayList<>(thinned.size() / 2);
        for (int i = 0; i + 1 < thinned.size(); i += 2) {
            merged.add(merge(thinned.get(i), thinned.get(i + 1)));
        }
        thinned.clear();
        thinned.addAll(merged);
    }

    private static Entry merge(Entry older, Entry newer) {
        int n = older.count() + newer.count();
        double wo = (double) older.count() / n;
        double wn = (double) newer.count() / n;
        HistoryPoint a = older.point();
        HistoryPoint b = newer.point();
        HistoryPoint p = new HistoryPoint(
                b.timeMillis(),
                b.version(),
                b.steps(),
                mean(a.trainLoss(), wo, b.trainLoss(), wn),
                mean(a.accuracy(), wo, b.accuracy(), wn),
                mean(a.loss(), wo, b.loss(), wn),
                mean(a.auc(), wo, b.auc(), wn));
        return new Entry(newer.seq(), n, p);
    }

    /** The weighted mean; a side that is NaN (no AUC for a multi-class task, no loss yet) leaves the other's. */
    private static double mean(double a, double wa, double b, double wb) {
        if (Double.isNaN(a)) {
            return b;
        }
        if (Double.isNaN(b)) {
            return a;
        }
        return a * wa + b * wb;
    }
}
