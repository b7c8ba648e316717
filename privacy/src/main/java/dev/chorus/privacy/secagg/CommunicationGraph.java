package dev.chorus.privacy.secagg;

import java.util.Arrays;

/**
 * The SecAgg+ communication graph of a group (Bell et al., CCS 2020): each member masks with, and sends
 * shares to, only its k neighbours, so that a member's work grows with k = O(log n) instead of n.
 *
 * <p>The graph is a Harary graph H(k, n) over a random ordering of the members, as in the paper: members sit on a
 * ring in the order of a uniformly random permutation, and each is joined to the k/2 nearest on either side (for an
 * odd k, with n even, also to the one opposite). Every member derives the same permutation from the group's shared
 * 32-byte seed and the round number (a Fisher-Yates shuffle driven by {@link MaskPrg} under the label
 * {@code "graph"} and the round), so no coordinator hands the graph out and each round gets a fresh graph.
 *
 * <p>{@link #defaultDegree}: k = the smallest even number at least 3 log2(n), or n - 1 (the whole group) when that is
 * not below n - 1, which happens up to n = 13. This is of the O(log n) form that the paper proves sufficient for a
 * connected graph and for security with high probability; the constant 3 is this project's provisional choice, to be
 * set from the paper's bounds for the dropout and corruption rates a deployment expects.
 */
public final class CommunicationGraph {

    private final int size;
    private final int degree;
    private final int[] memberAt;
    private final int[] positionOf;

    private CommunicationGraph(int size, int degree, int[] memberAt) {
        this.size = size;
        this.degree = degree;
        this.memberAt = memberAt;
        this.positionOf = new int[size];
        for (int p = 0; p < size; p++) {
            positionOf[memberAt[p]] = p;
        }
    }

    /** The default degree for a group of {@code n} members (see the class comment). */
    public static int defaultDegree(int n) {
        checkSize(n);
        double log2 = Math.log(n) / Math.log(2);
        int k = (int) Math.ceil(3 * log2);
        if (k % 2 != 0) {
            k++;
        }
        return Math.min(k, n - 1);
    }

    /** The graph of {@code n} members with the default degree. */
    public static CommunicationGraph of(int n, byte[] groupSeed, long round) {
        return of(n, defaultDegree(n), groupSeed, round);
    }

    /**
     * The graph of {@code n} members (numbered 0..n-1 in the group's agreed order) where each has {@code degree}
     * neighbours, for {@code round}. A k-regular graph on n vertices needs k * n even, so an odd degree needs an even
     * group.
     */
    public static CommunicationGraph of(int n, int degree, byte[] groupSeed, long round) {
        checkSize(n);
        if (degree < 1 || degree > n - 1) {
            throw new SecAggException("degree " + degree + " is outside 1.." + (n - 1) + " for " + n + " members");
        }
        if (degree % 2 != 0 && n % 2 != 0) {
            throw new SecAggException("no graph of " + n + " members has every degree " + degree + " (odd times odd)");
        }
        return new CommunicationGraph(n, degree, shuffle(n, groupSeed, round));
    }

    public int size() {
        return size;
    }

    public int degree() {
        return degree;
    }

    /** The neighbours of {@code member}, in ascending order. */
    public int[] neighbours(int member) {
        if (member < 0 || member >= size) {
            throw new SecAggException("member " + member + " is outside 0.." + (size - 1));
        }
        int p = positionOf[member];
        int[] out = new int[degree];
        int n = 0;
        for (int d = 1; d <= degree / 2; d++) {
            out[n++] = memberAt[Math.floorMod(p + d, size)];
            out[n++] = memberAt[Math.floorMod(p - d, size)];
        }
        if (degree % 2 != 0) {
            out[n] = memberAt[(p + size / 2) % size];
        }
        Arrays.sort(out);
        return out;
    }

    /** Whether {@code u} and {@code v} are neighbours. */
    public boolean areNeighbours(int u, int v) {
        return u != v && Arrays.binarySearch(neighbours(u), v) >= 0;
    }

    private static int[] shuffle(int n, byte[] groupSeed, long round) {
        int[] order = new int[n];
        for (int i = 0; i < n; i++) {
            order[i] = i;
        }
        byte[] label = MaskPrg.label("graph", Long.toString(round));
        int[] words = MaskPrg.expand(groupSeed, label, 4 * n);
        int next = 0;
        for (int i = n - 1; i > 0; i--) {
            // Uniform in 0..i: reject the top partial block of 2^32 so that no position is favoured.
            long bound = i + 1L;
            long limit = (1L << 32) - ((1L << 32) % bound);
            long word;
            do {
                if (next == words.length) {
                    words = MaskPrg.expand(groupSeed, label, 2 * words.length);
                }
                word = Integer.toUnsignedLong(words[next++]);
            } while (word >= limit);
            int j = (int) (word % bound);
            int t = order[i];
            order[i] = order[j];
            order[j] = t;
        }
        return order;
    }

    private static void checkSize(int n) {
        if (n < 2) {
            throw new SecAggException("a group needs at least 2 members, not " + n);
        }
    }
}
