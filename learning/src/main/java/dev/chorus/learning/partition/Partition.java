package dev.chorus.learning.partition;

import java.util.Arrays;
import java.util.Objects;

/**
 * The rows of each node: {@code shards[node]} lists row indices of the source in ascending order,
 * and every row of the source is in exactly one shard.
 *
 * @param method the partitioner's method string, as {@link Partitioner#parse} reads it
 * @param seed the seed it was drawn with
 * @param shards the row indices of each node
 */
public record Partition(String method, long seed, int[][] shards) {

    public Partition {
        Objects.requireNonNull(method, "method");
        shards = shards.clone();
        for (int node = 0; node < shards.length; node++) {
            shards[node] = shards[node].clone();
            Arrays.sort(shards[node]);
        }
    }

    /** The row indices of each node (a deep copy). */
    @Override
    public int[][] shards() {
        int[][] copy = shards.clone();
        for (int node = 0; node < copy.length; node++) {
            copy[node] = copy[node].clone();
        }
        return copy;
    }

    public int nodes() {
        return shards.length;
    }

    /** The rows of node {@code node} (a copy). */
    public int[] shard(int node) {
        return shards[node].clone();
    }

    /** Rows per node. */
    public int[] sizes() {
        return Arrays.stream(shards).mapToInt(s -> s.length).toArray();
    }

    /**
     * The node of each of {@code rows} rows; throws {@link IllegalStateException} if a row is in
     * no shard or in two.
     */
    public int[] assignment(int rows) {
        int[] node = new int[rows];
        Arrays.fill(node, -1);
        for (int n = 0; n < shards.length; n++) {
            for (int row : shards[n]) {
                if (row < 0 || row >= rows) {
                    throw new IllegalStateException("shard " + n + " holds row " + row + " of " + rows);
                }
                if (node[row] >= 0) {
                    throw new IllegalStateException("row " + row + " is in shards " + node[row] + " and " + n);
                }
                node[row] = n;
            }
        }
        for (int row = 0; row < rows; row++) {
            if (node[row] < 0) {
                throw new IllegalStateException("row " + row + " is in no shard");
            }
        }
        return node;
    }

    /** Rows of each class in each shard: {@code [node][class]}. */
    public int[][] labelCounts(int[] labels, int classes) {
        int[][] counts = new int[shards.length][classes];
        for (int n = 0; n < shards.length; n++) {
            for (int row : shards[n]) {
                counts[n][labels[row]]++;
            }
        }
        return counts;
    }
}
