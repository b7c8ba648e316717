package dev.chorus.aggregation.robust;

import static org.assertj.core.api.Assertions.assertThat;

import dev.chorus.aggregation.ParameterVectors;
import dev.chorus.aggregation.Seeds;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import java.util.SplittableRandom;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Each robust rule, fed {@code n - f} honest vectors and {@code f} adversarial ones (several attacks, at random
 * positions among the inputs), stays within the bound documented on its class.
 */
class RobustAggregatorPropertyTest {

    /** Ways for the {@code f} faulty inputs to lie, given the honest ones. */
    enum Attack {
        /** All faulty inputs at one far point. */
        FAR_CLUSTER,
        /** Each faulty input random and huge. */
        RANDOM_HUGE,
        /** The honest mean reversed and scaled. */
        SIGN_FLIP,
        /** A small shift of the honest mean by one honest standard deviation per coordinate (hard to spot). */
        INNER_SHIFT,
        /** Each faulty input at the honest minimum of every coordinate. */
        HONEST_MINIMUM
    }

    record Scenario(List<float[]> honest, List<float[]> inputs, int faulty, double radius) {

        double[] honestMean() {
            double[] m = new double[honest.getFirst().length];
            for (float[] x : honest) {
                for (int i = 0; i < m.length; i++) {
                    m[i] += x[i] / (double) honest.size();
                }
            }
            return m;
        }

        double honestDiameter() {
            double max = 0;
            for (float[] a : honest) {
                for (float[] b : honest) {
                    max = Math.max(max, Math.sqrt(ParameterVectors.squaredDistance(a, b)));
                }
            }
            return max;
        }

        /** The largest distance of an honest input from the honest mean. */
        double honestSpread() {
            double[] m = honestMean();
            double max = 0;
            for (float[] x : honest) {
                max = Math.max(max, distance(x, m));
            }
            return max;
        }
    }

    static Scenario scenario(SplittableRandom random, int n, int faulty, Attack attack, double center) {
        int d = 1 + random.nextInt(20);
        double radius = 0.5 + random.nextDouble(5);
        double[] c = new double[d];
        for (int i = 0; i < d; i++) {
            c[i] = random.nextDouble(-center, center);
        }
        List<float[]> honest = new ArrayList<>();
        for (int k = 0; k < n - faulty; k++) {
            // A point drawn uniformly from the cube of side 2 radius / sqrt(d), so within `radius` of c.
            float[] x = new float[d];
            for (int i = 0; i < d; i++) {
                x[i] = (float) (c[i] + random.nextDouble(-1, 1) * radius / Math.sqrt(d));
            }
            honest.add(x);
        }
        double[] mean = new double[d];
        double[] sd = new double[d];
        double[] min = new double[d];
        java.util.Arrays.fill(min, Double.MAX_VALUE);
        for (float[] x : honest) {
            for (int i = 0; i < d; i++) {
                mean[i] += x[i] / (double) honest.size();
                min[i] = Math.min(min[i], x[i]);
            }
        }
        for (float[] x : honest) {
            for (int i = 0; i < d; i++) {
                sd[i] += (x[i] - mean[i]) * (x[i] - mean[i]) / honest.size();
            }
        }
        List<float[]> inputs = new ArrayList<>(honest);
        float[] far = new float[d];
        for (int i = 0; i < d; i++) {
            far[i] = (float) (1e6 * (random.nextBoolean() ? 1 : -1));
        }
        for (int k = 0; k < faulty; k++) {
            float[] b = new float[d];
            for (int i = 0; i < d; i++) {
                b[i] = (float)
                        switch (attack) {
                            case FAR_CLUSTER -> far[i];
                            case RANDOM_HUGE -> random.nextDouble(-1e4, 1e4);
                            case SIGN_FLIP -> -10 * mean[i];
                            case INNER_SHIFT -> mean[i] + Math.sqrt(sd[i]);
                            case HONEST_MINIMUM -> min[i];
                        };
            }
            inputs.add(b);
        }
        Collections.shuffle(inputs, new Random(random.nextLong()));
        return new Scenario(honest, inputs, faulty, radius);
    }

    static double distance(float[] x, double[] m) {
        double s = 0;
        for (int i = 0; i < x.length; i++) {
            double d = x[i] - m[i];
            s += d * d;
        }
        return Math.sqrt(s);
    }

    static void assertWithinHonestRange(Scenario s, float[] out, String what) {
        for (int i = 0; i < out.length; i++) {
            float lo = Float.MAX_VALUE;
            float hi = -Float.MAX_VALUE;
            for (float[] x : s.honest()) {
                lo = Math.min(lo, x[i]);
                hi = Math.max(hi, x[i]);
            }
            double slack = 1e-5 * (1 + Math.abs(lo) + Math.abs(hi));
            assertThat((double) out[i]).as("%s, coordinate %d", what, i).isBetween(lo - slack, hi + slack);
        }
    }

    @ParameterizedTest
    @MethodSource("dev.chorus.aggregation.Seeds#seeds")
    void coordinateWiseMedianStaysWithinTheHonestRange(long seed) {
        Seeds.print("coordinateWiseMedianStaysWithinTheHonestRange", seed);
        SplittableRandom random = new SplittableRandom(seed);
        for (Attack attack : Attack.values()) {
            int n = 3 + random.nextInt(13);
            int f = random.nextInt((n - 1) / 2 + 1); // f < n/2
            Scenario s = scenario(random, n, f, attack, 10);
            float[] out = new CoordinateWiseMedian().aggregate(s.inputs());
            assertWithinHonestRange(s, out, "median, n=" + n + " f=" + f + " " + attack + " seed " + seed);
        }
    }

    @ParameterizedTest
    @MethodSource("dev.chorus.aggregation.Seeds#seeds")
    void trimmedMeanStaysWithinTheHonestRange(long seed) {
        Seeds.print("trimmedMeanStaysWithinTheHonestRange", seed);
        SplittableRandom random = new SplittableRandom(seed);
        for (Attack attack : Attack.values()) {
            int n = 3 + random.nextInt(13);
            int trimmed = random.nextInt((n - 1) / 2 + 1); // n > 2b
            int f = random.nextInt(trimmed + 1); // f <= b
            Scenario s = scenario(random, n, f, attack, 10);
            float[] out = new TrimmedMean(trimmed).aggregate(s.inputs());
            assertWithinHonestRange(
                    s, out, "trimmed mean b=" + trimmed + ", n=" + n + " f=" + f + " " + attack + " seed " + seed);
        }
    }

    @ParameterizedTest
    @MethodSource("dev.chorus.aggregation.Seeds#seeds")
    void normClippingBoundsTheFaultyInfluence(long seed) {
        Seeds.print("normClippingBoundsTheFaultyInfluence", seed);
        SplittableRandom random = new SplittableRandom(seed);
        for (Attack attack : Attack.values()) {
            int n = 2 + random.nextInt(14);
            int f = random.nextInt(n);
            Scenario s = scenario(random, n, f, attack, 3);
            double tau = 0.5 + random.nextDouble(10);
            float[] out = new NormClipping(tau).aggregate(s.inputs());
            double[] clippedHonestMean = new double[out.length];
            for (float[] x : s.honest()) {
                double norm = ParameterVectors.norm(x);
                double scale = norm > tau ? tau / norm : 1;
                for (int i = 0; i < out.length; i++) {
                    clippedHonestMean[i] += scale * x[i] / s.honest().size();
                }
            }
            String what = "clipping tau=" + tau + ", n=" + n + " f=" + f + " " + attack + " seed " + seed;
            assertThat(distance(out, clippedHonestMean))
                    .as(what)
                    .isLessThanOrEqualTo(2 * f * tau / n * (1 + 1e-5) + 1e-5);
            assertThat(ParameterVectors.norm(out)).as(what).isLessThanOrEqualTo(tau * (1 + 1e-5));
        }
    }

    @ParameterizedTest
    @MethodSource("dev.chorus.aggregation.Seeds#seeds")
    void centeredClippingConvergesToTheHonestMean(long seed) {
        Seeds.print("centeredClippingConvergesToTheHonestMean", seed);
        SplittableRandom random = new SplittableRandom(seed);
        for (Attack attack : Attack.values()) {
            int n = 3 + random.nextInt(13);
            int f = random.nextInt((n - 1) / 2 + 1); // f < n/2
            Scenario s = scenario(random, n, f, attack, 10);
            double[] m = s.honestMean();
            double rho = s.honestSpread();
            // Start from the honest mean moved by e0 in a random direction (the previous aggregate).
            double e0 = random.nextDouble(3 * (rho + 0.1));
            float[] center = new float[m.length];
            double[] dir = new double[m.length];
            double dirNorm = 0;
            for (int i = 0; i < m.length; i++) {
                dir[i] = random.nextGaussian();
                dirNorm += dir[i] * dir[i];
            }
            for (int i = 0; i < m.length; i++) {
                center[i] = (float) (m[i] + e0 * dir[i] / Math.sqrt(dirNorm));
            }
            double startError = distance(center, m);
            // The smallest tau for which the bound's condition rho + max(e0, f tau / (n - f)) <= tau holds, plus 1%.
            double tau = 1.01 * Math.max(rho + startError, rho * (n - f) / (double) (n - 2 * f));
            int iterations = 1 + random.nextInt(5);
            float[] out = new float[m.length];
            new CenteredClipping(tau, iterations).aggregate(s.inputs(), center, out);
            double fixedPoint = f * tau / (n - f);
            double bound = fixedPoint + Math.pow((double) f / n, iterations) * Math.max(0, startError - fixedPoint);
            assertThat(distance(out, m))
                    .as(
                            "centered clipping tau=%.3f L=%d e0=%.3f, n=%d f=%d %s seed %d",
                            tau, iterations, startError, n, f, attack, seed)
                    .isLessThanOrEqualTo(bound * (1 + 1e-4) + 1e-4);
        }
    }

    @ParameterizedTest
    @MethodSource("dev.chorus.aggregation.Seeds#seeds")
    void krumPicksAnInputNearTheHonestMean(long seed) {
        Seeds.print("krumPicksAnInputNearTheHonestMean", seed);
        SplittableRandom random = new SplittableRandom(seed);
        for (Attack attack : Attack.values()) {
            int f = random.nextInt(5);
            int n = 2 * f + 3 + random.nextInt(6);
            Scenario s = scenario(random, n, f, attack, 10);
            Krum krum = new Krum(f);
            float[] out = krum.aggregate(s.inputs());
            assertThat(out).isEqualTo(s.inputs().get(krum.select(s.inputs())));
            double bound = krumRadius(s, n, f);
            assertThat(distance(out, s.honestMean()))
                    .as("Krum, n=%d f=%d %s seed %d", n, f, attack, seed)
                    .isLessThanOrEqualTo(bound * (1 + 1e-5) + 1e-5);
        }
    }

    @ParameterizedTest
    @MethodSource("dev.chorus.aggregation.Seeds#seeds")
    void multiKrumAveragesInputsNearTheHonestMean(long seed) {
        Seeds.print("multiKrumAveragesInputsNearTheHonestMean", seed);
        SplittableRandom random = new SplittableRandom(seed);
        for (Attack attack : Attack.values()) {
            int f = random.nextInt(5);
            int n = 2 * f + 3 + random.nextInt(6);
            int m = 1 + random.nextInt(n - f);
            Scenario s = scenario(random, n, f, attack, 10);
            float[] out = new MultiKrum(f, m).aggregate(s.inputs());
            double bound = krumRadius(s, n, f);
            assertThat(distance(out, s.honestMean()))
                    .as("multi-Krum m=%d, n=%d f=%d %s seed %d", m, n, f, attack, seed)
                    .isLessThanOrEqualTo(bound * (1 + 1e-5) + 1e-5);
        }
    }

    private static double krumRadius(Scenario s, int n, int f) {
        double diameter = s.honestDiameter();
        return f == 0 ? diameter : diameter * (1 + Math.sqrt((n - f - 2) / (double) (n - 2 * f - 1)));
    }
}
