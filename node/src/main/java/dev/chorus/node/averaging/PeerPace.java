package dev.chorus.node.averaging;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.random.RandomGenerator;

/**
 * How long exchanges with each peer take (an exponentially weighted mean), and the peers a strategy may draw from
 * this round: a peer whose exchanges take more than {@link #SLOW_FACTOR} times the median of the others is left
 * out of nine rounds in ten. A node that draws a peer behind a slow link waits about as much longer for that
 * exchange, and mixes less often meanwhile; skipping such peers most of the time keeps the fast nodes mixing at
 * the rate of their own links. The slow peers are not cut off: they are still drawn one round in ten, and they
 * start their own exchanges with the fast nodes, whose times they measure alike (all slow), so nobody is left out
 * of theirs. Until {@link #MIN_KNOWN} of the offered peers have a measured time, every peer is offered.
 */
final class PeerPace {

    static final double SLOW_FACTOR = 4;
    static final double KEEP_SLOW = 0.1;
    /** The fewest measured peers a median says anything about: three, so a consortium of four is paced too. */
    static final int MIN_KNOWN = 3;

    private static final double ALPHA = 0.3;
    /** Peers remembered at most; beyond it, those not offered any more are forgotten. */
    private static final int MAX_PEERS = 4096;

    private final Map<String, Double> seconds = new ConcurrentHashMap<>();

    /** Records one completed (or failed) exchange with {@code peer} that took {@code nanos}. */
    void record(String peer, long nanos) {
        double s = Math.max(0, nanos) / 1e9;
        seconds.merge(peer, s, (old, now) -> old + ALPHA * (now - old));
    }

    /** The measured time of {@code peer} in seconds, or NaN. */
    double seconds(String peer) {
        Double s = seconds.get(peer);
        return s == null ? Double.NaN : s;
    }

    /** Whether {@code peer} is left out of most rounds as slow, among {@code peers} (which include it). */
    boolean slow(String peer, List<String> peers) {
        return slow(peer, limit(peers));
    }

    /** Whether {@code peer}'s measured time is above {@code limit}, a {@link #limit} of the peers it is among. */
    boolean slow(String peer, double limit) {
        Double s = seconds.get(peer);
        return s != null && s > limit;
    }

    /**
     * The time above which a peer of {@code peers} counts as slow: {@link #SLOW_FACTOR} times the median of their
     * measured times; infinite until {@link #MIN_KNOWN} of them have one.
     */
    double limit(List<String> peers) {
        double[] known = new double[peers.size()];
        int n = 0;
        for (String p : peers) {
            Double s = seconds.get(p);
            if (s != null) {
                known[n++] = s;
            }
        }
        if (n < MIN_KNOWN) {
            return Double.POSITIVE_INFINITY;
        }
        Arrays.sort(known, 0, n);
        double median = n % 2 == 1 ? known[n / 2] : (known[n / 2 - 1] + known[n / 2]) / 2;
        return SLOW_FACTOR * median;
    }

    /** The peers to offer the strategy this round, drawn from {@code peers} (never empty unless it is). */
    List<String> choose(List<String> peers, RandomGenerator random) {
        if (seconds.size() > MAX_PEERS) {
            seconds.keySet().retainAll(new HashSet<>(peers));
        }
        double limit = limit(peers);
        if (limit == Double.POSITIVE_INFINITY) {
            return peers;
        }
        List<String> out = new ArrayList<>(peers.size());
        for (String p : peers) {
            Double s = seconds.get(p);
            if (s == null || s <= limit || random.nextDouble() < KEEP_SLOW) {
                out.add(p);
            }
        }
        return out.isEmpty() ? peers : out;
    }
}
