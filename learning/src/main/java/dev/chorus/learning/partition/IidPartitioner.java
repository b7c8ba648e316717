package dev.chorus.learning.partition;

import java.util.SplittableRandom;

/**
 * The IID baseline: rows are shuffled and dealt in contiguous runs, so shard sizes differ by at
 * most one and each shard's label distribution is the global one up to sampling noise.
 */
public final class IidPartitioner implements Partitioner {

    @Override
    public Partition partition(PartitionSource source, int nodes, long seed) {
        int rows = source.rows();
        ShardBuilder.checkNodes(rows, nodes);
        int[] order = ShardBuilder.identity(rows);
        ShardBuilder.shuffle(order, new SplittableRandom(seed));
        ShardBuilder shards = new ShardBuilder(nodes, rows / nodes + 1);
        for (int node = 0; node < nodes; node++) {
            int start = (int) ((long) rows * node / nodes);
            int end = (int) ((long) rows * (node + 1) / nodes);
            for (int i = start; i < end; i++) {
                shards.add(node, order[i]);
            }
        }
        return shards.build(method(), seed);
    }

    @Override
    public String method() {
        return "iid";
    }
}
