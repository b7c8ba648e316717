package dev.chorus.learning.data;

import java.util.Arrays;

/**
 * Z-score standardisation, {@code (x - mean) / std} per feature, with the mean and the population
 * standard deviation (as scikit-learn's {@code StandardScaler}) of a training split. Fit it on the
 * training rows only and apply it to both splits, so that nothing about the test rows leaks into
 * training. A constant feature gets {@code std = 1}, so it maps to 0 instead of dividing by zero.
 *
 * <p>The fitted state is two plain arrays ({@link #mean()}, {@link #std()}), to be stored with a
 * model and restored with {@link #of}.
 */
public final class Standardizer {

    private final double[] mean;
    private final double[] std;

    private Standardizer(double[] mean, double[] std) {
        this.mean = mean;
        this.std = std;
    }

    /** The standardizer of {@code train}'s features. */
    public static Standardizer fit(Dataset train) {
        int rows = train.rows();
        int cols = train.cols();
        if (rows == 0) {
            throw new DataException("cannot fit a standardizer on an empty training split");
        }
        float[] x = train.features();
        double[] mean = new double[cols];
        float[] min = new float[cols];
        float[] max = new float[cols];
        Arrays.fill(min, Float.POSITIVE_INFINITY);
        Arrays.fill(max, Float.NEGATIVE_INFINITY);
        for (int r = 0; r < rows; r++) {
            for (int c = 0; c < cols; c++) {
                float v = x[r * cols + c];
                mean[c] += v;
                min[c] = Math.min(min[c], v);
                max[c] = Math.max(max[c], v);
            }
        }
        for (int c = 0; c < cols; c++) {
            mean[c] /= rows;
        }
        double[] variance = new double[cols];
        for (int r = 0; r < rows; r++) {
            for (int c = 0; c < cols; c++) {
                double d = x[r * cols + c] - mean[c];
                variance[c] += d * d;
            }
        }
        double[] std = new double[cols];
        for (int c = 0; c < cols; c++) {
            // An exactly constant column (min == max) would otherwise get a rounding-noise std.
            std[c] = min[c] == max[c] ? 1 : Math.sqrt(variance[c] / rows);
        }
        return new Standardizer(mean, std);
    }

    /** A standardizer restored from stored arrays; every std must be finite and positive. */
    public static Standardizer of(double[] mean, double[] std) {
        if (mean.length != std.length) {
            throw new IllegalArgumentException(mean.length + " means but " + std.length + " standard deviations");
        }
        for (int c = 0; c < std.length; c++) {
            if (!(std[c] > 0) || !Double.isFinite(std[c]) || !Double.isFinite(mean[c])) {
                throw new IllegalArgumentException("feature " + c + ": mean " + mean[c] + ", std " + std[c]);
            }
        }
        return new Standardizer(mean.clone(), std.clone());
    }

    /** The per-feature means (a copy). */
    public double[] mean() {
        return mean.clone();
    }

    /** The per-feature standard deviations, 1 for constant features (a copy). */
    public double[] std() {
        return std.clone();
    }

    /** A standardized copy of {@code data}. */
    public Dataset apply(Dataset data) {
        if (data.cols() != mean.length) {
            throw new IllegalArgumentException(
                    "standardizer fitted on " + mean.length + " features, data has " + data.cols());
        }
        float[] x = data.features();
        float[] out = new float[x.length];
        int cols = data.cols();
        for (int r = 0; r < data.rows(); r++) {
            for (int c = 0; c < cols; c++) {
                int i = r * cols + c;
                out[i] = (float) ((x[i] - mean[c]) / std[c]);
            }
        }
        return new Dataset(
                out, data.rows(), cols, data.labels(), data.classes(), data.featureNames(), data.classNames());
    }
}
