package dev.chorus.node.daemon;

import java.util.ArrayDeque;
import java.util.Arrays;
import java.util.Locale;

/**
 * Tells a collapse of the model (a poisoned merge, a diverging step) from ordinary noise in its
 * validation loss. It remembers the last {@link #WINDOW} healthy evaluations (validation loss and
 * parameter L2 norm). An evaluation is a collapse when
 *
 * <ul>
 *   <li>the loss or the norm is not finite (NaN or infinite parameters included), or, once
 *       {@link #WARM_UP} healthy evaluations are remembered,
 *   <li>the loss exceeds {@code max(window) + K x spread}, or the norm exceeds {@code max(window) + K x
 *       spread} of the norms, where {@code spread = max(IQR(window), RELATIVE_FLOOR x median(window))}.
 * </ul>
 *
 * The IQR is Tukey's fence made robust to a window of near-equal values by the floor relative to the
 * median: a converged loss of 0.30 with an IQR of 0.001 still tolerates a jump to about 1.0 (an
 * averaging merge with a peer that is further behind), while a poisoned model's clipped log loss
 * (tens) or norm (orders of magnitude) is far outside. A collapse is not added to the window, so a
 * node stays judged against its healthy history until it recovers. Not thread-safe: the training
 * thread owns it.
 */
public final class CollapseDetector {

    /** Healthy evaluations remembered. */
    public static final int WINDOW = 20;

    /** Healthy evaluations needed before a jump (not a non-finite value) can be a collapse. */
    public static final int WARM_UP = 5;

    /** How many spreads above the window's maximum a value must be to be a collapse. */
    public static final double K = 8;

    /** The least spread, as a share of the window's median. */
    public static final double RELATIVE_FLOOR = 0.25;

    private final ArrayDeque<double[]> window = new ArrayDeque<>();

    /**
     * What one evaluation was judged.
     *
     * @param collapsed whether it is a collapse
     * @param reason why, with the figures; empty when healthy
     */
    public record Verdict(boolean collapsed, String reason) {
        static final Verdict HEALTHY = new Verdict(false, "");
    }

    /**
     * Judges one evaluation and, when healthy, remembers it.
     *
     * @param loss the validation loss
     * @param parameterNorm the L2 norm of the model's parameters
     */
    public Verdict observe(double loss, double parameterNorm) {
        Verdict v = judge(loss, parameterNorm);
        if (!v.collapsed()) {
            if (window.size() == WINDOW) {
                window.removeFirst();
            }
            window.addLast(new double[] {loss, parameterNorm});
        }
        return v;
    }

    /** Judges without remembering. */
    public Verdict judge(double loss, double parameterNorm) {
        if (!Double.isFinite(loss)) {
            return new Verdict(true, "validation loss is " + loss);
        }
        if (!Double.isFinite(parameterNorm)) {
            return new Verdict(true, "parameters hold non-finite values (norm " + parameterNorm + ")");
        }
        if (window.size() < WARM_UP) {
            return Verdict.HEALTHY;
        }
        double lossLimit = limit(0);
        if (loss > lossLimit) {
            return new Verdict(
                    true,
                    String.format(
                            Locale.ROOT,
                            "validation loss %.6g is above %.6g (recent range %.6g to %.6g over %d evaluations)",
                            loss,
                            lossLimit,
                            min(0),
                            max(0),
                            window.size()));
        }
        double normLimit = limit(1);
        if (parameterNorm > normLimit) {
            return new Verdict(
                    true,
                    String.format(
                            Locale.ROOT,
                            "parameter norm %.6g is above %.6g (recent range %.6g to %.6g over %d evaluations)",
                            parameterNorm,
                            normLimit,
                            min(1),
                            max(1),
                            window.size()));
        }
        return Verdict.HEALTHY;
    }

    /** Healthy evaluations remembered. */
    public int healthyEvaluations() {
        return window.size();
    }

    /** The L2 norm of {@code v}, accumulated in double; infinite or NaN when an element is. */
    public static double norm(float[] v) {
        double sum = 0;
        for (float x : v) {
            sum += (double) x * x;
        }
        return Math.sqrt(sum);
    }

    private double limit(int column) {
        double[] sorted = column(column);
        Arrays.sort(sorted);
        double iqr = quantile(sorted, 0.75) - quantile(sorted, 0.25);
        double spread = Math.max(iqr, RELATIVE_FLOOR * Math.abs(quantile(sorted, 0.5)));
        return sorted[sorted.length - 1] + K * spread;
    }

    private double min(int column) {
        return Arrays.stream(column(column)).min().orElse(Double.NaN);
    }

    private double max(int column) {
        return Arrays.stream(column(column)).max().orElse(Double.NaN);
    }

    private double[] column(int column) {
        return window.stream().mapToDouble(r -> r[column]).toArray();
    }

    /** Linear interpolation between the closest ranks of a sorted array. */
    private static double quantile(double[] sorted, double q) {
        double pos = q * (sorted.length - 1);
        int lo = (int) Math.floor(pos);
        int hi = Math.min(lo + 1, sorted.length - 1);
        return sorted[lo] + (pos - lo) * (sorted[hi] - sorted[lo]);
    }
}
