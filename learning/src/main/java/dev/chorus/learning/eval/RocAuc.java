package dev.chorus.learning.eval;

import java.util.Arrays;
import java.util.Comparator;

/**
 * Area under the ROC curve of a binary scorer, computed from ranks: AUC = (R+ - n+(n+ + 1)/2) /
 * (n+ n-), where R+ is the sum of the ranks of the positive rows' scores (Mann and Whitney 1947;
 * Hanley and McNeil 1982, Radiology 143(1)). Tied scores share their average rank, so a tie
 * between a positive and a negative counts one half, as in the trapezoidal ROC area.
 */
public final class RocAuc {

    private RocAuc() {}

    /**
     * The AUC of {@code scores} (higher means more likely positive) for {@code labels} in {0, 1};
     * NaN when the labels hold only one class, where the AUC is undefined.
     */
    public static double of(int[] labels, double[] scores) {
        int n = labels.length;
        if (scores.length != n) {
            throw new IllegalArgumentException(n + " labels but " + scores.length + " scores");
        }
        long positives = 0;
        for (int i = 0; i < n; i++) {
            if (labels[i] != 0 && labels[i] != 1) {
                throw new IllegalArgumentException("label " + labels[i] + " of row " + i + " is not 0 or 1");
            }
            if (Double.isNaN(scores[i])) {
                throw new IllegalArgumentException("score of row " + i + " is NaN");
            }
            positives += labels[i];
        }
        long negatives = n - positives;
        if (positives == 0 || negatives == 0) {
            return Double.NaN;
        }
        Integer[] order = new Integer[n];
        for (int i = 0; i < n; i++) {
            order[i] = i;
        }
        Arrays.sort(order, Comparator.comparingDouble(i -> scores[i]));
        double positiveRankSum = 0;
        int start = 0;
        while (start < n) {
            int end = start;
            while (end + 1 < n && scores[order[end + 1]] == scores[order[start]]) {
                end++;
            }
            // Ranks start+1 .. end+1 (1-based) share their mean.
            double rank = (start + end + 2) / 2.0;
            for (int i = start; i <= end; i++) {
                if (labels[order[i]] == 1) {
                    positiveRankSum += rank;
                }
            }
            start = end + 1;
        }
        return (positiveRankSum - positives * (positives + 1) / 2.0) / ((double) positives * negatives);
    }
}
