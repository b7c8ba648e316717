package dev.chorus.learning.partition;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;
import java.util.stream.IntStream;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Seeded random sources, node counts and concentrations through every partitioner: shards cover
 * every row exactly once, none is empty, the same seed gives the same shards, and label skew grows
 * as the Dirichlet concentration falls.
 */
class PartitionerPropertyTest {

    static final long MASTER_SEED = 0xC0FFEEL;

    static Stream<Arguments> cases() {
        SplittableRandom random = new SplittableRandom(MASTER_SEED);
        double[] alphas = {0.01, 0.1, 0.5, 1, 10, 100};
        List<Arguments> cases = new ArrayList<>();
        for (int i = 0; i < 30; i++) {
            long seed = random.nextLong();
            int classes = 2 + random.nextInt(9);
            int nodes = 1 + random.nextInt(20);
            int rows = nodes + random.nextInt(600);
            double alpha = alphas[random.nextInt(alphas.length)];
            cases.add(Arguments.of(seed, rows, classes, nodes, alpha));
        }
        // Edge: exactly as many rows as nodes, with a tiny concentration.
        cases.add(Arguments.of(7L, 12, 3, 12, 0.01));
        return cases.stream();
    }

    static PartitionSource source(long seed, int rows, int classes) {
        SplittableRandom random = new SplittableRandom(seed);
        int[] labels =
                IntStream.range(0, rows).map(i -> random.nextInt(classes)).toArray();
        List<String> names = IntStream.range(0, classes).mapToObj(k -> "c" + k).toList();
        List<String> site = IntStream.range(0, rows)
                .mapToObj(i -> Integer.toString(1990 + random.nextInt(classes + 20)))
                .toList();
        return new PartitionSource() {
            @Override
            public int rows() {
                return rows;
            }

            @Override
            public int[] labels() {
                return labels;
            }

            @Override
            public List<String> classNames() {
                return names;
            }

            @Override
            public List<String> column(String name) {
                return site;
            }
        };
    }

    static List<Partitioner> partitioners(double alpha) {
        return List.of(
                new IidPartitioner(),
                new DirichletPartitioner(alpha),
                new SizeSkewPartitioner(alpha),
                new ColumnPartitioner("site"));
    }

    @ParameterizedTest(name = "seed {0}, {1} rows, {2} classes, {3} nodes, alpha {4}")
    @MethodSource("cases")
    void shardsCoverEveryRowOnceAndNoneIsEmpty(long seed, int rows, int classes, int nodes, double alpha) {
        PartitionSource source = source(seed, rows, classes);
        for (Partitioner partitioner : partitioners(alpha)) {
            if (partitioner instanceof ColumnPartitioner
                    && source.column("site").stream().distinct().count() < nodes) {
                continue;
            }
            Partition partition = partitioner.partition(source, nodes, seed);
            assertThat(partition.nodes()).as(partitioner.method()).isEqualTo(nodes);
            int[] node = partition.assignment(rows); // throws unless each row is in exactly one shard
            assertThat(node).hasSize(rows);
            assertThat(Arrays.stream(partition.sizes()).min().getAsInt())
                    .as(partitioner.method())
                    .isPositive();
            assertThat(Arrays.stream(partition.sizes()).sum()).isEqualTo(rows);
            int[][] counts = partition.labelCounts(source.labels(), classes);
            assertThat(Arrays.stream(counts).flatMapToInt(Arrays::stream).sum()).isEqualTo(rows);
            for (int n = 0; n < nodes; n++) {
                assertThat(partition.shard(n)).isSorted();
            }
            assertThat(Partitioner.parse(partitioner.method()).method()).isEqualTo(partitioner.method());
            Partition again = partitioner.partition(source, nodes, seed);
            for (int n = 0; n < nodes; n++) {
                assertThat(again.shard(n)).as("same seed, same shards").containsExactly(partition.shard(n));
            }
        }
    }

    @ParameterizedTest(name = "seed {0}, {1} rows, {2} classes, {3} nodes")
    @MethodSource("cases")
    void iidShardSizesDifferByAtMostOne(long seed, int rows, int classes, int nodes, double alpha) {
        int[] sizes = new IidPartitioner()
                .partition(source(seed, rows, classes), nodes, seed)
                .sizes();
        assertThat(Arrays.stream(sizes).max().getAsInt()
                        - Arrays.stream(sizes).min().getAsInt())
                .isLessThanOrEqualTo(1);
    }

    @ParameterizedTest(name = "seed {0}, {1} rows, {2} classes, {3} nodes")
    @MethodSource("cases")
    void columnShardsHoldContiguousRunsOfValues(long seed, int rows, int classes, int nodes, double alpha) {
        PartitionSource source = source(seed, rows, classes);
        List<String> site = source.column("site");
        if (site.stream().distinct().count() < nodes) {
            return;
        }
        Partition partition = new ColumnPartitioner("site").partition(source, nodes, seed);
        int previousMax = Integer.MIN_VALUE;
        for (int n = 0; n < nodes; n++) {
            int[] values = Arrays.stream(partition.shard(n))
                    .map(row -> Integer.parseInt(site.get(row)))
                    .toArray();
            int min = Arrays.stream(values).min().getAsInt();
            assertThat(min).as("node %d starts after node %d ends", n, n - 1).isGreaterThan(previousMax);
            previousMax = Arrays.stream(values).max().getAsInt();
        }
    }

    /** Mean over shards of the total-variation distance between shard and global label distributions. */
    static double labelSkew(Partition partition, int[] labels, int classes) {
        int[][] counts = partition.labelCounts(labels, classes);
        double[] global = new double[classes];
        for (int label : labels) {
            global[label] += 1.0 / labels.length;
        }
        double sum = 0;
        for (int[] shard : counts) {
            int size = Arrays.stream(shard).sum();
            double distance = 0;
            for (int k = 0; k < classes; k++) {
                distance += Math.abs((double) shard[k] / size - global[k]);
            }
            sum += distance / 2;
        }
        return sum / counts.length;
    }

    static Stream<Arguments> skewCases() {
        SplittableRandom random = new SplittableRandom(MASTER_SEED + 1);
        return IntStream.range(0, 8)
                .mapToObj(i -> Arguments.of(random.nextLong(), 2 + random.nextInt(9), 3 + random.nextInt(20)));
    }

    @ParameterizedTest(name = "seed {0}, {1} classes, {2} nodes")
    @MethodSource("skewCases")
    void dirichletLabelSkewGrowsAsAlphaFalls(long seed, int classes, int nodes) {
        PartitionSource source = source(seed, 3000, classes);
        double[] alphas = {1000, 10, 1, 0.1, 0.01};
        double[] skew = new double[alphas.length];
        int repeats = 5;
        for (int a = 0; a < alphas.length; a++) {
            for (int r = 0; r < repeats; r++) {
                Partition p = new DirichletPartitioner(alphas[a]).partition(source, nodes, seed + r);
                skew[a] += labelSkew(p, source.labels(), classes) / repeats;
            }
        }
        for (int a = 1; a < alphas.length; a++) {
            assertThat(skew[a])
                    .as("skew at alpha %s (all: %s)", alphas[a], Arrays.toString(skew))
                    .isGreaterThan(skew[a - 1]);
        }
        // Near-IID at alpha 1000, strongly skewed at 0.01.
        assertThat(skew[0]).isLessThan(0.1);
        assertThat(skew[alphas.length - 1]).isGreaterThan(0.4);
    }

    @ParameterizedTest(name = "seed {0}, {1} classes, {2} nodes")
    @MethodSource("skewCases")
    void sizeSkewKeepsLabelsNearGlobalButSpreadsSizes(long seed, int classes, int nodes) {
        PartitionSource source = source(seed, 3000, classes);
        Partition even = new SizeSkewPartitioner(1000).partition(source, nodes, seed);
        Partition skewed = new SizeSkewPartitioner(0.1).partition(source, nodes, seed);
        assertThat(spread(skewed.sizes())).isGreaterThan(spread(even.sizes()));
        assertThat(spread(even.sizes())).isLessThan(0.2);
    }

    /** Coefficient of variation of shard sizes. */
    static double spread(int[] sizes) {
        double mean = Arrays.stream(sizes).average().orElseThrow();
        double variance = Arrays.stream(sizes)
                .mapToDouble(s -> (s - mean) * (s - mean))
                .average()
                .orElseThrow();
        return Math.sqrt(variance) / mean;
    }
}
