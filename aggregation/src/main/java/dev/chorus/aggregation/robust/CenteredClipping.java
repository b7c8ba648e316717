package dev.chorus.aggregation.robust;

import dev.chorus.aggregation.ParameterVectors;
import java.util.List;

/**
 * Centered clipping: starting from a center {@code v} (the previous aggregate), repeat {@code L} times
 *
 * <pre>  v = v + (1/n) sum_k (x_k - v) min(1, tau / |x_k - v|)</pre>
 *
 * <p>Reference: S. P. Karimireddy, L. He, M. Jaggi, "Learning from History for Byzantine Robust Optimization",
 * ICML 2021 (there applied to worker momenta, with the previous round's aggregate as center).
 *
 * <p>Bound (from the update rule): let {@code m} be the honest mean, every honest input within {@code rho} of
 * {@code m}, {@code f < n/2} inputs arbitrary, and {@code e_0 = |v_0 - m|}. If {@code rho + max(e_0, E) <= tau}
 * with {@code E = f tau / (n - f)}, honest inputs are never clipped, {@code e_{l+1} <= (f/n) e_l + f tau / n}, and
 * after {@code L} iterations {@code |v_L - m| <= E + (f/n)^L max(0, e_0 - E)}.
 *
 * <p>{@link #aggregate(List, float[])} starts from the coordinate-wise median of the inputs; pass the previous
 * aggregate to {@link #aggregate(List, float[], float[])} to follow the paper. No scratch array of model size.
 */
public final class CenteredClipping implements RobustAggregator {

    private final double threshold;
    private final int iterations;
    private final CoordinateWiseMedian median = new CoordinateWiseMedian();

    /**
     * @param threshold {@code tau > 0}: the radius around the center beyond which an input is pulled in
     * @param iterations {@code L >= 1}: clipping rounds; the paper finds one enough when the center is the
     *     previous aggregate
     */
    public CenteredClipping(double threshold, int iterations) {
        if (!(threshold > 0) || Double.isInfinite(threshold)) {
            throw new IllegalArgumentException("clipping threshold must be finite and > 0, got " + threshold);
        }
        if (iterations < 1) {
            throw new IllegalArgumentException("iterations must be >= 1, got " + iterations);
        }
        this.threshold = threshold;
        this.iterations = iterations;
    }

    public double threshold() {
        return threshold;
    }

    public int iterations() {
        return iterations;
    }

    /** Centered clipping starting from the coordinate-wise median of the inputs. */
    @Override
    public void aggregate(List<float[]> inputs, float[] out) {
        median.aggregate(inputs, out);
        iterate(inputs, out);
    }

    /**
     * Centered clipping starting from {@code center}, usually the previous aggregate.
     *
     * @param center the starting point; may be {@code out} itself
     */
    public void aggregate(List<float[]> inputs, float[] center, float[] out) {
        ParameterVectors.requireInputs(inputs, out);
        ParameterVectors.requireLength(center, out.length, "center");
        ParameterVectors.requireFinite(center, "center");
        if (center != out) {
            System.arraycopy(center, 0, out, 0, out.length);
        }
        iterate(inputs, out);
    }

    private void iterate(List<float[]> inputs, float[] v) {
        int n = inputs.size();
        double[] coefficient = new double[n];
        for (int l = 0; l < iterations; l++) {
            double total = 0;
            for (int k = 0; k < n; k++) {
                double distance = Math.sqrt(ParameterVectors.squaredDistance(inputs.get(k), v));
                coefficient[k] = (distance > threshold ? threshold / distance : 1.0) / n;
                total += coefficient[k];
            }
            // v + sum_k c_k (x_k - v) = (1 - sum_k c_k) v + sum_k c_k x_k, computed in place.
            float keep = (float) (1.0 - total);
            for (int i = 0; i < v.length; i++) {
                v[i] *= keep;
            }
            for (int k = 0; k < n; k++) {
                float c = (float) coefficient[k];
                float[] x = inputs.get(k);
                for (int i = 0; i < v.length; i++) {
                    v[i] += c * x[i];
                }
            }
        }
    }
}
