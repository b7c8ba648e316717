package dev.chorus.learning.partition;

import java.util.random.RandomGenerator;

/**
 * Draws from the symmetric Dirichlet distribution Dir(alpha, ..., alpha) by normalising
 * independent Gamma(alpha, 1) draws, which come from Marsaglia and Tsang, "A simple method for
 * generating gamma variables", ACM TOMS 26(3), 2000. For alpha &lt; 1 it uses their boost:
 * Gamma(alpha) = Gamma(alpha + 1) * U^(1/alpha).
 *
 * <p>Draws are kept as logarithms until the final normalisation: with alpha as small as 0.01,
 * U^(1/alpha) underflows to 0 for every component, and the proportions would be 0/0.
 */
public final class DirichletSampler {

    private DirichletSampler() {}

    /** Proportions over {@code n} components, summing to 1. */
    public static double[] sample(double alpha, int n, RandomGenerator random) {
        checkConcentration(alpha);
        double[] logs = new double[n];
        double max = Double.NEGATIVE_INFINITY;
        for (int i = 0; i < n; i++) {
            logs[i] = logGamma(alpha, random);
            max = Math.max(max, logs[i]);
        }
        double sum = 0;
        for (int i = 0; i < n; i++) {
            logs[i] = Math.exp(logs[i] - max);
            sum += logs[i];
        }
        for (int i = 0; i < n; i++) {
            logs[i] /= sum;
        }
        return logs;
    }

    /** The logarithm of one Gamma(shape, 1) draw. */
    public static double logGamma(double shape, RandomGenerator random) {
        if (shape < 1) {
            // 1 - nextDouble() is in (0, 1], so its log is finite.
            return logGamma(shape + 1, random) + Math.log(1 - random.nextDouble()) / shape;
        }
        double d = shape - 1.0 / 3;
        double c = 1 / Math.sqrt(9 * d);
        while (true) {
            double x = random.nextGaussian();
            double v = 1 + c * x;
            if (v <= 0) {
                continue;
            }
            v = v * v * v;
            double u = 1 - random.nextDouble();
            double x2 = x * x;
            if (u < 1 - 0.0331 * x2 * x2 || Math.log(u) < 0.5 * x2 + d * (1 - v + Math.log(v))) {
                return Math.log(d) + Math.log(v);
            }
        }
    }

    static void checkConcentration(double alpha) {
        if (!(alpha > 0) || !Double.isFinite(alpha)) {
            throw new IllegalArgumentException("concentration must be positive and finite, got " + alpha);
        }
    }
}
