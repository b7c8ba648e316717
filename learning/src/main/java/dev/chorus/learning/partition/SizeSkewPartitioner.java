package dev.chorus.learning.partition;

import java.util.SplittableRandom;

/**
 * Quantity skew: shard sizes follow proportions drawn from Dir(alpha) over the nodes, and rows are
 * assigned IID within that, so every shard has the global label distribution up to sampling noise
 * but some nodes hold far more rows than others (NIID-Bench's "quantity skew", Li et al. 2021,
 * arXiv:2102.02079). Empty nodes are filled as in {@link DirichletPartitioner}.
 */
public final class SizeSkewPartitioner implements Partitioner {

    private final double alpha;

    /** @param alpha the Dirichlet concentration of shard sizes, positive; smaller is more skewed */
    public SizeSkewPartitioner(double alpha) {
        DirichletSampler.checkConcentration(alpha);
        this.alpha = alpha;
    }

    public double alpha() {
        return alpha;
    }

    @Override
    public Partition partition(PartitionSource source, int nodes, long seed) {
        int rows = source.rows();
        ShardBuilder.checkNodes(rows, nodes);
        SplittableRandom random = new SplittableRandom(seed);
        double[] proportions = DirichletSampler.sample(alpha, nodes, random);
        int[] order = ShardBuilder.identity(rows);
        ShardBuilder.shuffle(order, random);
        ShardBuilder shards = new ShardBuilder(nodes, rows / nodes + 1);
        shards.deal(order, proportions);
        shards.fillEmpty(random);
        return shards.build(method(), seed);
    }

    @Override
    public String method() {
        return "size:" + Partitioner.formatConcentration(alpha);
    }
}
