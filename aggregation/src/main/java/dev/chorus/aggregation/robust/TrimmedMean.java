package dev.chorus.aggregation.robust;

import dev.chorus.aggregation.ParameterVectors;
import java.util.Arrays;
import java.util.List;

/**
 * The coordinate-wise trimmed mean: for each coordinate, drop the {@code b} smallest and {@code b} largest values
 * and average the remaining {@code n - 2b}.
 *
 * <p>Reference: D. Yin, Y. Chen, K. Ramchandran, P. Bartlett, "Byzantine-Robust Distributed Learning: Towards
 * Optimal Statistical Rates", ICML 2018 (coordinate-wise trimmed mean, with {@code b = beta n}).
 *
 * <p>Bound: with at most {@code b} arbitrary inputs, every coordinate of the result lies between the smallest
 * and the largest honest value of that coordinate.
 */
public final class TrimmedMean implements RobustAggregator {

    private final int trimmed;

    /**
     * @param trimmed {@code b >= 0}: values dropped at each end of every coordinate; set it to at least the number
     *     of faulty inputs to tolerate. Needs {@code n > 2b} inputs.
     */
    public TrimmedMean(int trimmed) {
        if (trimmed < 0) {
            throw new IllegalArgumentException("trimmed count must be >= 0, got " + trimmed);
        }
        this.trimmed = trimmed;
    }

    public int trimmed() {
        return trimmed;
    }

    @Override
    public void aggregate(List<float[]> inputs, float[] out) {
        ParameterVectors.requireInputs(inputs, out);
        int n = inputs.size();
        if (n <= 2 * trimmed) {
            throw new IllegalArgumentException("trimmed mean dropping " + trimmed + " per side needs more than "
                    + 2 * trimmed + " inputs, got " + n);
        }
        float[] column = new float[n];
        int kept = n - 2 * trimmed;
        for (int i = 0; i < out.length; i++) {
            for (int k = 0; k < n; k++) {
                column[k] = inputs.get(k)[i];
            }
            Arrays.sort(column);
            double sum = 0;
            for (int k = trimmed; k < n - trimmed; k++) {
                sum += column[k];
            }
            out[i] = (float) (sum / kept);
        }
    }
}
