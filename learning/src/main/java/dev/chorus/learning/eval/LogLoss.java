package dev.chorus.learning.eval;

/**
 * Mean negative log-likelihood of the true classes (cross-entropy), {@code -mean(ln p[y])}. The
 * probability of the true class is clipped to {@code [EPSILON, 1 - EPSILON]}, so a confident
 * wrong prediction costs {@code -ln(1e-15)} (about 34.5) rather than infinity.
 */
public final class LogLoss {

    /** The clipping bound of probabilities, as scikit-learn's {@code log_loss} long used. */
    public static final double EPSILON = 1e-15;

    private LogLoss() {}

    /**
     * The log loss of row-major {@code probabilities} ({@code labels.length x classes}, each row a
     * distribution) for {@code labels}; NaN for no rows.
     */
    public static double of(int[] labels, float[] probabilities, int classes) {
        if ((long) labels.length * classes != probabilities.length) {
            throw new IllegalArgumentException(
                    probabilities.length + " probabilities for " + labels.length + " rows of " + classes + " classes");
        }
        if (labels.length == 0) {
            return Double.NaN;
        }
        double sum = 0;
        for (int i = 0; i < labels.length; i++) {
            ConfusionMatrix.checkClass(labels[i], classes, "label", i);
            double p = probabilities[i * classes + labels[i]];
            if (Double.isNaN(p)) {
                throw new IllegalArgumentException("probability of row " + i + " is NaN");
            }
            sum -= Math.log(Math.min(1 - EPSILON, Math.max(EPSILON, p)));
        }
        return sum / labels.length;
    }
}
