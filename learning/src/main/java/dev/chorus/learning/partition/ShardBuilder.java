package dev.chorus.learning.partition;

import dev.chorus.learning.data.DataException;
import java.util.Arrays;
import java.util.random.RandomGenerator;

/** Collects row indices per node while a partitioner deals them out. */
final class ShardBuilder {

    private final int[][] rows;
    private final int[] sizes;

    ShardBuilder(int nodes, int capacity) {
        rows = new int[nodes][Math.max(capacity, 1)];
        sizes = new int[nodes];
    }

    void add(int node, int row) {
        if (sizes[node] == rows[node].length) {
            rows[node] = Arrays.copyOf(rows[node], rows[node].length * 2);
        }
        rows[node][sizes[node]++] = row;
    }

    /**
     * Deals {@code members} to nodes in contiguous runs whose lengths follow {@code proportions}:
     * node {@code i} gets {@code members[round(n*P(i-1)) .. round(n*P(i)))}, with {@code P} the
     * cumulative proportions, so that the runs add up to {@code n} exactly.
     */
    void deal(int[] members, double[] proportions) {
        int n = members.length;
        double cumulative = 0;
        int start = 0;
        for (int node = 0; node < proportions.length; node++) {
            cumulative += proportions[node];
            int end = node == proportions.length - 1 ? n : (int) Math.min(n, Math.round(n * cumulative));
            for (int i = start; i < end; i++) {
                add(node, members[i]);
            }
            start = Math.max(start, end);
        }
    }

    /**
     * The rule that keeps every node non-empty: while some node has no rows, the lowest-numbered
     * such node takes one row, chosen at random, from the node with the most rows (the lowest
     * numbered on a tie). A donor always has at least 2 rows while the total is at least the number
     * of nodes, so no node is emptied by donating.
     */
    void fillEmpty(RandomGenerator random) {
        for (int node = 0; node < sizes.length; node++) {
            if (sizes[node] > 0) {
                continue;
            }
            int donor = 0;
            for (int n = 1; n < sizes.length; n++) {
                if (sizes[n] > sizes[donor]) {
                    donor = n;
                }
            }
            int pick = random.nextInt(sizes[donor]);
            int row = rows[donor][pick];
            rows[donor][pick] = rows[donor][--sizes[donor]];
            add(node, row);
        }
    }

    Partition build(String method, long seed) {
        int[][] shards = new int[sizes.length][];
        for (int node = 0; node < sizes.length; node++) {
            shards[node] = Arrays.copyOf(rows[node], sizes[node]);
        }
        return new Partition(method, seed, shards);
    }

    static void checkNodes(int rows, int nodes) {
        if (nodes < 1) {
            throw new DataException("number of nodes must be at least 1, got " + nodes);
        }
        if (rows < nodes) {
            throw new DataException("cannot give each of " + nodes + " nodes a row: the data has " + rows + " rows");
        }
    }

    /** Fisher-Yates shuffle in place. */
    static void shuffle(int[] a, RandomGenerator random) {
        for (int i = a.length - 1; i > 0; i--) {
            int j = random.nextInt(i + 1);
            int t = a[i];
            a[i] = a[j];
            a[j] = t;
        }
    }

    static int[] identity(int n) {
        int[] a = new int[n];
        for (int i = 0; i < n; i++) {
            a[i] = i;
        }
        return a;
    }
}
