package dev.chorus.learning.data;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;

/**
 * A split of row indices into a training and a test set, each sorted ascending.
 *
 * @param train indices of training rows
 * @param test indices of test rows
 */
public record TrainTestSplit(int[] train, int[] test) {

    /**
     * A seeded stratified split: about {@code testFraction} of the rows of every class go to the
     * test set. The test set holds {@code round(rows * testFraction)} rows, shared among classes by
     * largest remainder (Hamilton's method) of {@code classCount * testFraction}, ties to the lower
     * class; within a class, which rows are taken is a seeded shuffle.
     */
    public static TrainTestSplit stratified(int[] labels, int classes, double testFraction, long seed) {
        if (!(testFraction > 0 && testFraction < 1)) {
            throw new DataException("test fraction must be in (0, 1), got " + testFraction);
        }
        int rows = labels.length;
        int testRows = (int) Math.round(rows * testFraction);
        if (testRows == 0 || testRows == rows) {
            throw new DataException("a test fraction of " + testFraction + " of " + rows + " rows leaves "
                    + (testRows == 0 ? "no test rows" : "no training rows"));
        }
        List<int[]> byClass = StratifiedKFold.shuffledByClass(labels, classes, new SplittableRandom(seed));
        int[] quota = new int[classes];
        double[] remainder = new double[classes];
        int assigned = 0;
        for (int k = 0; k < classes; k++) {
            double exact = byClass.get(k).length * testFraction;
            quota[k] = (int) Math.floor(exact);
            remainder[k] = exact - quota[k];
            assigned += quota[k];
        }
        List<Integer> order = new ArrayList<>();
        for (int k = 0; k < classes; k++) {
            order.add(k);
        }
        order.sort((a, b) -> Double.compare(remainder[b], remainder[a]));
        for (int i = 0; assigned < testRows; i++) {
            int k = order.get(i % classes);
            if (quota[k] < byClass.get(k).length) {
                quota[k]++;
                assigned++;
            }
        }
        int[] test = new int[testRows];
        int[] train = new int[rows - testRows];
        int t = 0;
        int n = 0;
        for (int k = 0; k < classes; k++) {
            int[] members = byClass.get(k);
            for (int i = 0; i < members.length; i++) {
                if (i < quota[k]) {
                    test[t++] = members[i];
                } else {
                    train[n++] = members[i];
                }
            }
        }
        Arrays.sort(test);
        Arrays.sort(train);
        return new TrainTestSplit(train, test);
    }
}
