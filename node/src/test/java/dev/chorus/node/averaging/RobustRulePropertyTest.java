package dev.chorus.node.averaging;

import static org.assertj.core.api.Assertions.assertThat;

import dev.chorus.aggregation.robust.CenteredClipping;
import dev.chorus.aggregation.robust.CoordinateWiseMedian;
import dev.chorus.aggregation.robust.Krum;
import dev.chorus.aggregation.robust.MultiKrum;
import dev.chorus.aggregation.robust.NormClipping;
import dev.chorus.aggregation.robust.RobustAggregator;
import dev.chorus.aggregation.robust.TrimmedMean;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import java.util.SplittableRandom;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Each rule as the config names it builds its aggregator with the parameter given, and with as few models as the
 * rule accepts ({@link RobustRule#minInputs()}, or more), the most faulty ones it tolerates (huge, sign-flipped, at
 * random positions) keep the result within the bound documented on the aggregator's class.
 */
class RobustRulePropertyTest {

    private static final String[] RULES = {
        "median",
        "trimmed:1",
        "trimmed:2",
        "clip:3",
        "centered-clip:40",
        "krum:1",
        "krum:2",
        "multikrum:1,3",
        "multikrum:2,4"
    };

    static Stream<Arguments> cases() {
        List<Arguments> out = new ArrayList<>();
        for (String rule : RULES) {
            for (int extra = 0; extra < 3; extra++) {
                for (long seed = 1; seed <= 4; seed++) {
                    out.add(Arguments.of(rule, extra, seed * 7919 + extra));
                }
            }
        }
        return out.stream();
    }

    @ParameterizedTest(name = "{0} n=min+{1} seed={2}")
    @MethodSource("cases")
    void theRuleReachedThroughTheConfigKeepsItsBound(String text, int extra, long seed) {
        RobustRule rule = RobustRule.parse(text);
        RobustAggregator aggregator = rule.create().orElseThrow();
        int n = rule.minInputs() + extra;
        int f = tolerated(rule, n);
        SplittableRandom random = new SplittableRandom(seed);
        int d = 1 + random.nextInt(12);
        double radius = rule instanceof RobustRule.Clip ? 1.0 : 0.5 + random.nextDouble(3);
        double[] center = new double[d];
        for (int i = 0; i < d; i++) {
            center[i] = rule instanceof RobustRule.Clip ? 0 : random.nextDouble(-5, 5);
        }
        List<float[]> honest = new ArrayList<>();
        for (int k = 0; k < n - f; k++) {
            float[] x = new float[d];
            for (int i = 0; i < d; i++) {
                x[i] = (float) (center[i] + random.nextDouble(-1, 1) * radius / Math.sqrt(d));
            }
            honest.add(x);
        }
        double[] mean = mean(honest);
        List<float[]> inputs = new ArrayList<>(honest);
        for (int k = 0; k < f; k++) {
            float[] x = new float[d];
            for (int i = 0; i < d; i++) {
                // Sign-flipped and scaled far out, as a member that sends -1e6 times the honest model would.
                x[i] = (float) (-1e6 * mean[i] + (k % 2 == 0 ? 1e6 : -1e6));
            }
            inputs.add(x);
        }
        Collections.shuffle(inputs, new Random(seed));
        float[] out = aggregator.aggregate(inputs);

        String context = text + " n=" + n + " f=" + f + " seed=" + seed;
        switch (aggregator) {
            case CoordinateWiseMedian m -> withinHonestCoordinates(out, honest, context);
            case TrimmedMean t -> {
                assertThat(t.trimmed()).isEqualTo(((RobustRule.Trimmed) rule).trimmed());
                withinHonestCoordinates(out, honest, context);
            }
            case NormClipping c -> {
                assertThat(c.threshold()).isEqualTo(3.0);
                // Every honest norm is at most 1 <= tau: the result is within 2 f tau / n of the honest mean.
                assertThat(distance(out, mean)).as(context).isLessThanOrEqualTo(2.0 * f * 3 / n + 1e-4);
            }
            case CenteredClipping c -> {
                assertThat(c.threshold()).isEqualTo(40.0);
                assertThat(c.iterations()).isEqualTo(RobustRule.CenteredClip.ITERATIONS);
                // Honest inputs and the median lie within 2 radius of m, and 2 radius + E <= tau, so
                // |v_L - m| <= max(E, 2 radius) with E = f tau / (n - f).
                double bound = Math.max(f * 40.0 / (n - f), 2 * radius);
                assertThat(distance(out, mean)).as(context).isLessThanOrEqualTo(bound + 1e-4);
            }
            case Krum k -> {
                assertThat(k.faulty()).isEqualTo(((RobustRule.KrumRule) rule).faulty());
                krumRadius(out, honest, mean, n, f, context);
            }
            case MultiKrum k -> {
                RobustRule.MultiKrumRule m = (RobustRule.MultiKrumRule) rule;
                assertThat(k.faulty()).isEqualTo(m.faulty());
                assertThat(k.selected()).isEqualTo(m.selected());
                krumRadius(out, honest, mean, n, f, context);
            }
            default -> throw new AssertionError("unexpected aggregator " + aggregator);
        }
    }

    /** The most faulty inputs {@code rule} tolerates among {@code n}. */
    private static int tolerated(RobustRule rule, int n) {
        return switch (rule) {
            case RobustRule.Trimmed t -> t.trimmed();
            case RobustRule.KrumRule k -> k.faulty();
            case RobustRule.MultiKrumRule k -> k.faulty();
            case RobustRule.Clip c -> n > 1 ? 1 : 0;
            default -> (n - 1) / 2;
        };
    }

    private static void withinHonestCoordinates(float[] out, List<float[]> honest, String context) {
        for (int i = 0; i < out.length; i++) {
            float lo = Float.POSITIVE_INFINITY;
            float hi = Float.NEGATIVE_INFINITY;
            for (float[] x : honest) {
                lo = Math.min(lo, x[i]);
                hi = Math.max(hi, x[i]);
            }
            assertThat(out[i]).as(context + " coordinate " + i).isBetween(lo - 1e-4f, hi + 1e-4f);
        }
    }

    private static void krumRadius(float[] out, List<float[]> honest, double[] mean, int n, int f, String context) {
        double diameter = 0;
        for (float[] a : honest) {
            for (float[] b : honest) {
                diameter = Math.max(diameter, distance(a, b));
            }
        }
        double radius = diameter * (1 + Math.sqrt((n - f - 2.0) / (n - 2.0 * f - 1)));
        assertThat(distance(out, mean)).as(context).isLessThanOrEqualTo(radius + 1e-4);
    }

    private static double[] mean(List<float[]> xs) {
        double[] m = new double[xs.getFirst().length];
        for (float[] x : xs) {
            for (int i = 0; i < m.length; i++) {
                m[i] += x[i] / (double) xs.size();
            }
        }
        return m;
    }

    private static double distance(float[] a, float[] b) {
        double s = 0;
        for (int i = 0; i < a.length; i++) {
            double t = a[i] - b[i];
            s += t * t;
        }
        return Math.sqrt(s);
    }

    private static double distance(float[] a, double[] b) {
        double s = 0;
        for (int i = 0; i < a.length; i++) {
            double t = a[i] - b[i];
            s += t * t;
        }
        return Math.sqrt(s);
    }
}
