package dev.chorus.testnet;

import dev.chorus.learning.data.Dataset;
import dev.chorus.learning.data.Standardizer;
import dev.chorus.learning.data.TrainTestSplit;
import dev.chorus.learning.partition.Partition;
import dev.chorus.learning.partition.PartitionSource;
import dev.chorus.learning.partition.Partitioner;
import java.util.SplittableRandom;

/**
 * The data of a testnet: the pooled training rows, one shard of them per node, and the common held-out test set.
 *
 * <p>CSV features are standardized with statistics of the pooled training split. That is a simulation shortcut
 * (real nodes would standardize with their own statistics or agreed ones); it keeps every node's inputs on one
 * scale, so that the differences measured are those of the averaging.
 *
 * @param train the pooled training rows
 * @param test the test rows scored while the nodes train: the held-out set, or a seeded sample of it
 * @param heldOut every held-out row; the nodes' final models are scored on these
 * @param shards the training rows of each node (indices into {@code train})
 * @param partition the partition method
 */
public record TestnetData(Dataset train, Dataset test, Dataset heldOut, int[][] shards, String partition) {

    /**
     * Splits {@code all} into a stratified training and test split ({@code testFraction}), or uses {@code
     * givenTest} when there is one; partitions the training rows among {@code nodes}.
     */
    public static TestnetData of(
            Dataset all, Dataset givenTest, boolean standardize, double testFraction, TestnetSettings settings) {
        Dataset train;
        Dataset test;
        if (givenTest != null) {
            train = all;
            test = givenTest;
        } else {
            TrainTestSplit split =
                    TrainTestSplit.stratified(all.labels(), all.classes(), testFraction, settings.seed());
            train = all.subset(split.train());
            test = all.subset(split.test());
        }
        if (standardize) {
            Standardizer s = Standardizer.fit(train);
            train = s.apply(train);
            test = s.apply(test);
        }
        Dataset heldOut = test;
        if (settings.evaluation().rows() > 0
                && test.rows() > settings.evaluation().rows()) {
            test = test.subset(sample(test.rows(), settings.evaluation().rows(), settings.seed()));
        }
        Partition p = Partitioner.parse(settings.training().partition())
                .partition(PartitionSource.of(train), settings.nodes(), settings.seed());
        return new TestnetData(train, test, heldOut, p.shards(), p.method());
    }

    /** {@code k} distinct indices below {@code n}, sorted, drawn from {@code seed}. */
    private static int[] sample(int n, int k, long seed) {
        int[] order = new int[n];
        for (int i = 0; i < n; i++) {
            order[i] = i;
        }
        SplittableRandom r = new SplittableRandom(seed ^ 0x5DEECE66DL);
        for (int i = 0; i < k; i++) {
            int j = i + r.nextInt(n - i);
            int t = order[i];
            order[i] = order[j];
            order[j] = t;
        }
        int[] out = java.util.Arrays.copyOf(order, k);
        java.util.Arrays.sort(out);
        return out;
    }

    public Dataset shard(int node) {
        return train.subset(shards[node]);
    }
}
