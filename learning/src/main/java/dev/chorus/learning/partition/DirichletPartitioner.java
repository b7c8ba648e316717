package dev.chorus.learning.partition;

import java.util.SplittableRandom;

/**
 * Label skew: for each class, the proportions of its rows that go to each node are drawn from a
 * symmetric Dirichlet distribution Dir(alpha) over the nodes, and the class's shuffled rows are
 * dealt out in those proportions. This is the per-class form used by NIID-Bench (Li et al. 2021,
 * arXiv:2102.02079) of the Dirichlet label skew of Hsu, Qi and Brown 2019 (arXiv:1909.06335).
 *
 * <p>{@code alpha} is the concentration: large alpha (100) gives nearly IID shards, small alpha
 * (0.1) gives shards dominated by one or two classes, with very unequal sizes.
 *
 * <p>No node is left empty: after dealing, each empty node takes one random row from the largest
 * node (see {@link ShardBuilder#fillEmpty}). This moves at most {@code nodes - 1} rows and needs at
 * least as many rows as nodes. Unlike NIID-Bench, the draw is not repeated until every node has a
 * minimum size, which would bias the proportions for small alpha.
 */
public final class DirichletPartitioner implements Partitioner {

    private final double alpha;

    /** @param alpha the Dirichlet concentration, positive */
    public DirichletPartitioner(double alpha) {
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
        int classes = source.classes();
        int[] labels = source.labels();
        int[][] byClass = new int[classes][];
        int[] counts = new int[classes];
        for (int label : labels) {
            counts[label]++;
        }
        for (int k = 0; k < classes; k++) {
            byClass[k] = new int[counts[k]];
        }
        int[] filled = new int[classes];
        for (int row = 0; row < rows; row++) {
            byClass[labels[row]][filled[labels[row]]++] = row;
        }
        ShardBuilder shards = new ShardBuilder(nodes, rows / nodes + 1);
        for (int k = 0; k < classes; k++) {
            ShardBuilder.shuffle(byClass[k], random);
            shards.deal(byClass[k], DirichletSampler.sample(alpha, nodes, random));
        }
        shards.fillEmpty(random);
        return shards.build(method(), seed);
    }

    @Override
    public String method() {
        return "dirichlet:" + Partitioner.formatConcentration(alpha);
    }
}
