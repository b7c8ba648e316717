package dev.chorus.aggregation.robust;

import dev.chorus.aggregation.ParameterVectors;
import java.util.List;

/**
 * The mean of the inputs after scaling each down to Euclidean norm at most {@code tau}: {@code (1/n) sum_k x_k
 * min(1, tau / |x_k|)}. Meant for updates (deltas), whose norm measures how far they move the model, not for raw
 * parameters.
 *
 * <p>Reference: Z. Sun, P. Kairouz, A. T. Suresh, H. B. McMahan, "Can You Really Backdoor Federated Learning?",
 * arXiv:1911.07963 (2019) (norm bounding); the building block of centered clipping ({@link CenteredClipping}).
 *
 * <p>Bound: with {@code f} arbitrary inputs, the result is within {@code 2 f tau / n} of the mean of the clipped
 * honest inputs (which is the honest mean itself when every honest norm is at most {@code tau}), and its norm is
 * at most {@code tau}.
 */
public final class NormClipping implements RobustAggregator {

    private final double threshold;

    /** @param threshold {@code tau > 0}: the largest norm an input keeps */
    public NormClipping(double threshold) {
        if (!(threshold > 0) || Double.isInfinite(threshold)) {
            throw new IllegalArgumentException("clipping threshold must be finite and > 0, got " + threshold);
        }
        this.threshold = threshold;
    }

    public double threshold() {
        return threshold;
    }

    @Override
    public void aggregate(List<float[]> inputs, float[] out) {
        ParameterVectors.requireInputs(inputs, out);
        int n = inputs.size();
        java.util.Arrays.fill(out, 0f);
        for (float[] x : inputs) {
            double norm = ParameterVectors.norm(x);
            float scale = (float) ((norm > threshold ? threshold / norm : 1.0) / n);
            for (int i = 0; i < out.length; i++) {
                out[i] += scale * x[i];
            }
        }
    }
}
