package dev.chorus.aggregation.robust;

import dev.chorus.aggregation.ParameterVectors;
import java.util.Arrays;
import java.util.List;

/**
 * The median of each coordinate separately (the mean of the two middle values for an even count).
 *
 * <p>Reference: D. Yin, Y. Chen, K. Ramchandran, P. Bartlett, "Byzantine-Robust Distributed Learning: Towards
 * Optimal Statistical Rates", ICML 2018 (coordinate-wise median).
 *
 * <p>Bound: with {@code f < n/2} arbitrary inputs, every coordinate of the result lies between the smallest and
 * the largest honest value of that coordinate. No hyper-parameter.
 */
public final class CoordinateWiseMedian implements RobustAggregator {

    @Override
    public void aggregate(List<float[]> inputs, float[] out) {
        ParameterVectors.requireInputs(inputs, out);
        int n = inputs.size();
        float[] column = new float[n];
        for (int i = 0; i < out.length; i++) {
            for (int k = 0; k < n; k++) {
                column[k] = inputs.get(k)[i];
            }
            Arrays.sort(column);
            out[i] = (n & 1) == 1 ? column[n / 2] : (float) (((double) column[n / 2 - 1] + column[n / 2]) / 2);
        }
    }
}
