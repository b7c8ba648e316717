package dev.chorus.privacy.secagg;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.util.Random;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/** The decoded modular sum of quantized vectors is the sum of the clipped floats, within m * step / 2. */
class QuantizerPropertyTest {

    @ParameterizedTest(name = "seed {0}")
    @MethodSource("dev.chorus.privacy.secagg.Seeds#seeds")
    void theDecodedSumIsTheClippedSumWithinHalfAStepPerContribution(long seed) {
        Random random = new Random(seed);
        int n = 1 + random.nextInt(200);
        int m = 1 + random.nextInt(n);
        double range = 0.01 + random.nextDouble() * 10;
        Quantizer q = new Quantizer(range, n);
        int d = 257;
        int[] sum = new int[d];
        double[] expected = new double[d];
        for (int member = 0; member < m; member++) {
            float[] values = new float[d];
            for (int i = 0; i < d; i++) {
                // Some coordinates beyond the range, to be clipped.
                values[i] = (float) ((random.nextDouble() * 2.4 - 1.2) * range);
                expected[i] += Math.max(-range, Math.min(range, values[i]));
            }
            int[] words = q.quantize(values);
            for (int i = 0; i < d; i++) {
                sum[i] += words[i];
            }
        }
        float[] decoded = q.dequantizeSum(sum, m);
        for (int i = 0; i < d; i++) {
            // m half-steps of rounding, then the rounding of the result to float.
            double bound = m * q.step() / 2 + Math.ulp((float) Math.abs(expected[i])) + 1e-12;
            assertThat((double) decoded[i]).as("coordinate %d", i).isCloseTo(expected[i], within(bound));
        }
    }
}
