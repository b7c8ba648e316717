package dev.chorus.learning.data;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Arrays;
import java.util.SplittableRandom;
import java.util.stream.IntStream;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** Seeded random label vectors through the stratified train/test split and k-fold assignment. */
class StratifiedSplitPropertyTest {

    static Stream<Arguments> cases() {
        SplittableRandom random = new SplittableRandom(20240601L);
        return IntStream.range(0, 40).mapToObj(i -> {
            long seed = random.nextLong();
            int rows = 10 + random.nextInt(400);
            int classes = 2 + random.nextInt(5);
            return Arguments.of(seed, rows, classes);
        });
    }

    /** Skewed labels: class k drawn with weight 1 / (k + 1). */
    static int[] labels(long seed, int rows, int classes) {
        SplittableRandom random = new SplittableRandom(seed ^ 0x5DEECE66DL);
        double total = 0;
        for (int k = 0; k < classes; k++) {
            total += 1.0 / (k + 1);
        }
        int[] labels = new int[rows];
        for (int i = 0; i < rows; i++) {
            double u = random.nextDouble() * total;
            int k = 0;
            while (k < classes - 1 && (u -= 1.0 / (k + 1)) > 0) {
                k++;
            }
            labels[i] = k;
        }
        return labels;
    }

    static int[] countsOf(int[] rows, int[] labels, int classes) {
        int[] counts = new int[classes];
        for (int row : rows) {
            counts[labels[row]]++;
        }
        return counts;
    }

    @ParameterizedTest(name = "seed {0}, {1} rows, {2} classes")
    @MethodSource("cases")
    void trainTestSplitIsAStratifiedPartitionOfTheRows(long seed, int rows, int classes) {
        int[] labels = labels(seed, rows, classes);
        double fraction = 0.25;
        TrainTestSplit split = TrainTestSplit.stratified(labels, classes, fraction, seed);
        int[] all = IntStream.concat(Arrays.stream(split.train()), Arrays.stream(split.test()))
                .sorted()
                .toArray();
        assertThat(all).isEqualTo(IntStream.range(0, rows).toArray());
        assertThat(split.test().length).isEqualTo((int) Math.round(rows * fraction));
        int[] total = countsOf(all, labels, classes);
        int[] test = countsOf(split.test(), labels, classes);
        for (int k = 0; k < classes; k++) {
            // largest remainder: each class gets floor or ceil of its exact share
            assertThat((double) test[k]).isBetween(Math.floor(total[k] * fraction), Math.ceil(total[k] * fraction));
        }
        assertThat(split.test()).isSorted();
        assertThat(TrainTestSplit.stratified(labels, classes, fraction, seed).test())
                .containsExactly(split.test());
    }

    @ParameterizedTest(name = "seed {0}, {1} rows, {2} classes")
    @MethodSource("cases")
    void kFoldPutsEveryRowInOneFoldAndSpreadsEachClassEvenly(long seed, int rows, int classes) {
        int[] labels = labels(seed, rows, classes);
        int k = 2 + (int) Math.floorMod(seed, 9);
        StratifiedKFold folds = StratifiedKFold.split(labels, classes, k, seed);
        int[] foldOfRow = folds.foldOfRow();
        assertThat(foldOfRow).hasSize(rows);
        int[] sizes = new int[k];
        int[][] perClass = new int[classes][k];
        for (int row = 0; row < rows; row++) {
            sizes[foldOfRow[row]]++;
            perClass[labels[row]][foldOfRow[row]]++;
        }
        assertThat(Arrays.stream(sizes).max().getAsInt()
                        - Arrays.stream(sizes).min().getAsInt())
                .isLessThanOrEqualTo(1);
        for (int[] counts : perClass) {
            assertThat(Arrays.stream(counts).max().getAsInt()
                            - Arrays.stream(counts).min().getAsInt())
                    .isLessThanOrEqualTo(1);
        }
        for (int f = 0; f < k; f++) {
            int[] test = folds.test(f);
            int[] train = folds.train(f);
            assertThat(test.length + train.length).isEqualTo(rows);
            assertThat(test).hasSize(sizes[f]);
            for (int row : test) {
                assertThat(foldOfRow[row]).isEqualTo(f);
            }
            for (int row : train) {
                assertThat(foldOfRow[row]).isNotEqualTo(f);
            }
        }
        assertThat(StratifiedKFold.split(labels, classes, k, seed).foldOfRow()).containsExactly(foldOfRow);
    }

    @Test
    void differentSeedsGiveDifferentSplits() {
        int[] labels = labels(1, 200, 3);
        assertThat(TrainTestSplit.stratified(labels, 3, 0.3, 1).test())
                .isNotEqualTo(TrainTestSplit.stratified(labels, 3, 0.3, 2).test());
        assertThat(StratifiedKFold.split(labels, 3, 5, 1).foldOfRow())
                .isNotEqualTo(StratifiedKFold.split(labels, 3, 5, 2).foldOfRow());
    }

    @Test
    void badArgumentsAreClearErrors() {
        int[] labels = {0, 1, 0, 1};
        assertThatThrownBy(() -> TrainTestSplit.stratified(labels, 2, 1.0, 1))
                .isInstanceOf(DataException.class)
                .hasMessage("test fraction must be in (0, 1), got 1.0");
        assertThatThrownBy(() -> TrainTestSplit.stratified(labels, 2, 0.01, 1))
                .hasMessage("a test fraction of 0.01 of 4 rows leaves no test rows");
        assertThatThrownBy(() -> StratifiedKFold.split(labels, 2, 5, 1))
                .hasMessage("k-fold needs 2 <= k <= rows (4), got k = 5");
    }

    @Test
    void foldAssignmentIsWrittenAsCsv(@org.junit.jupiter.api.io.TempDir java.nio.file.Path dir) throws Exception {
        StratifiedKFold folds = StratifiedKFold.split(new int[] {0, 1, 0, 1, 0, 1}, 2, 3, 7);
        java.nio.file.Path file = dir.resolve("folds.csv");
        folds.writeCsv(file);
        java.util.List<String> lines = java.nio.file.Files.readAllLines(file);
        assertThat(lines).hasSize(7).first().isEqualTo("row,fold");
        int[] fold = folds.foldOfRow();
        for (int row = 0; row < 6; row++) {
            assertThat(lines.get(row + 1)).isEqualTo(row + "," + fold[row]);
        }
        assertThat(StratifiedKFold.of(3, fold).test(1)).containsExactly(folds.test(1));
    }
}
