package dev.chorus.learning.partition;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.util.SplittableRandom;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The Gamma and Dirichlet draws have the moments of their distributions: Gamma(a, 1) has mean and
 * variance a; a symmetric Dir(alpha) component over n has mean 1/n and variance (n - 1) / (n^2 (n
 * alpha + 1)).
 */
class DirichletSamplerPropertyTest {

    @ParameterizedTest(name = "shape {0}, seed {1}")
    @CsvSource({"0.05, 1", "0.3, 2", "1, 3", "2.5, 4", "30, 5"})
    void gammaDrawsHaveMeanAndVarianceEqualToTheShape(double shape, long seed) {
        SplittableRandom random = new SplittableRandom(seed);
        int n = 100_000;
        double sum = 0;
        double squares = 0;
        for (int i = 0; i < n; i++) {
            double x = Math.exp(DirichletSampler.logGamma(shape, random));
            sum += x;
            squares += x * x;
        }
        double mean = sum / n;
        double variance = squares / n - mean * mean;
        // Within 5 standard errors: the mean's is sqrt(var / n), the sample variance's is about
        // var * sqrt((excess kurtosis + 2) / n), and Gamma(a) has excess kurtosis 6 / a.
        assertThat(mean).isCloseTo(shape, within(5 * Math.sqrt(shape / n)));
        assertThat(variance).isCloseTo(shape, within(5 * shape * Math.sqrt((6 / shape + 2) / n)));
    }

    @ParameterizedTest(name = "alpha {0}, {1} components, seed {2}")
    @CsvSource({"0.01, 5, 1", "0.1, 10, 2", "1, 3, 3", "100, 4, 4"})
    void dirichletComponentsSumToOneWithTheRightMoments(double alpha, int components, long seed) {
        SplittableRandom random = new SplittableRandom(seed);
        int n = 20_000;
        double sum = 0;
        double squares = 0;
        for (int i = 0; i < n; i++) {
            double[] p = DirichletSampler.sample(alpha, components, random);
            double total = 0;
            for (double v : p) {
                assertThat(v).isBetween(0.0, 1.0);
                total += v;
            }
            assertThat(total).isCloseTo(1, within(1e-12));
            sum += p[0];
            squares += p[0] * p[0];
        }
        double mean = sum / n;
        double variance = squares / n - mean * mean;
        double expectedVariance = (components - 1.0) / (components * components * (components * alpha + 1));
        assertThat(mean).isCloseTo(1.0 / components, within(5 * Math.sqrt(expectedVariance / n)));
        // A component is Beta(a, b) with a = alpha, b = (components - 1) alpha.
        double a = alpha;
        double b = (components - 1) * alpha;
        double kurtosis =
                6 * ((a - b) * (a - b) * (a + b + 1) - a * b * (a + b + 2)) / (a * b * (a + b + 2) * (a + b + 3));
        assertThat(variance).isCloseTo(expectedVariance, within(5 * expectedVariance * Math.sqrt((kurtosis + 2) / n)));
    }
}
