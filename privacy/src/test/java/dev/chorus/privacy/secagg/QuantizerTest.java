package dev.chorus.privacy.secagg;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import org.junit.jupiter.api.Test;

/** Fixed-point quantization: clipping, the levels, the no-overflow guarantee and bad inputs. */
class QuantizerTest {

    @Test
    void coordinatesAreClippedToTheRange() {
        Quantizer q = new Quantizer(1.0, 4);
        int[] words = q.quantize(new float[] {-5f, -1f, 0f, 1f, 7f});
        long top = 0xFFFF_FFFFL / 4;
        assertThat(Integer.toUnsignedLong(words[0])).isZero();
        assertThat(Integer.toUnsignedLong(words[1])).isZero();
        assertThat(Integer.toUnsignedLong(words[2])).isEqualTo((top + 1) / 2);
        assertThat(Integer.toUnsignedLong(words[3])).isEqualTo(top);
        assertThat(Integer.toUnsignedLong(words[4])).isEqualTo(top);
        assertThat(q.dequantizeSum(words, 1)).containsExactly(new float[] {-1f, -1f, 0f, 1f, 1f}, within(1e-6f));
    }

    @Test
    void theLargestSumOfEveryContributorDoesNotOverflow() {
        for (int n : new int[] {1, 2, 3, 7, 100, 1000, 65_537}) {
            Quantizer q = new Quantizer(2.5, n);
            int[] one = q.quantize(new float[] {2.5f, -2.5f});
            int[] sum = new int[2];
            for (int i = 0; i < n; i++) {
                sum[0] += one[0];
                sum[1] += one[1];
            }
            assertThat(Integer.toUnsignedLong(sum[0])).as("n = %d", n).isLessThanOrEqualTo(0xFFFF_FFFFL);
            float[] decoded = q.dequantizeSum(sum, n);
            assertThat((double) decoded[0]).as("n = %d", n).isCloseTo(2.5 * n, within(n * q.step() / 2 + 1e-3 * n));
            assertThat((double) decoded[1]).as("n = %d", n).isCloseTo(-2.5 * n, within(n * q.step() / 2 + 1e-3 * n));
        }
    }

    @Test
    void sixteenBitWordsSumWithoutOverflowModulo2To16AndDecodeFromA32BitSum() {
        for (int n : new int[] {1, 2, 3, 8, 100, 32_768}) {
            Quantizer q = new Quantizer(2.5, n, 16);
            int[] one = q.quantize(new float[] {2.5f, -2.5f, 0.3f});
            for (int w : one) {
                assertThat(w).isBetween(0, 0xFFFF);
            }
            int[] sum = new int[3];
            for (int i = 0; i < n; i++) {
                for (int j = 0; j < 3; j++) {
                    // As a masked sum arrives: summed modulo 2^32, with anything added in the high halves.
                    sum[j] += one[j] + (i << 16);
                }
            }
            float[] decoded = q.dequantizeSum(sum, n);
            double tolerance = n * q.step() / 2 + 1e-3 * n;
            assertThat((double) decoded[0]).as("n = %d", n).isCloseTo(2.5 * n, within(tolerance));
            assertThat((double) decoded[1]).as("n = %d", n).isCloseTo(-2.5 * n, within(tolerance));
            assertThat((double) decoded[2]).as("n = %d", n).isCloseTo(0.3 * n, within(tolerance));
        }
        assertThat(new Quantizer(1.0, 8, 16).step()).isCloseTo(2.0 / (0xFFFF / 8), within(1e-15));
        assertThat(new Quantizer(1.0, 8, 16).reduce(0x1234_ABCD)).isEqualTo(0xABCD);
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> new Quantizer(1.0, 32_769, 16))
                .hasMessageContaining("no resolution");
        assertThatThrownBy(() -> new Quantizer(1.0, 3, 24)).hasMessageContaining("16 or 32 bits");
    }

    @Test
    void theStepIsTwiceTheRangeOverTheTopLevel() {
        Quantizer q = new Quantizer(1.0, 10);
        assertThat(q.step()).isCloseTo(2.0 / (0xFFFF_FFFFL / 10), within(1e-18));
    }

    @Test
    void nonFiniteValuesAndBadParametersAreRefused() {
        Quantizer q = new Quantizer(1.0, 3);
        assertThatThrownBy(() -> q.quantize(new float[] {0f, Float.NaN}))
                .isInstanceOf(SecAggException.class)
                .hasMessage("coordinate 1 is NaN; only finite values can be aggregated");
        assertThatThrownBy(() -> q.quantize(new float[] {Float.NEGATIVE_INFINITY}))
                .isInstanceOf(SecAggException.class);
        assertThatThrownBy(() -> new Quantizer(0, 3)).isInstanceOf(SecAggException.class);
        assertThatThrownBy(() -> new Quantizer(Double.NaN, 3)).isInstanceOf(SecAggException.class);
        assertThatThrownBy(() -> new Quantizer(1, 0)).isInstanceOf(SecAggException.class);
        assertThatThrownBy(() -> q.dequantizeSum(new int[1], 4))
                .isInstanceOf(SecAggException.class)
                .hasMessageContaining("outside 1..3");
    }

    @Test
    void aSumStillMaskedIsRefusedRatherThanDecodedAsNoise() {
        Quantizer q = new Quantizer(1.0, 3);
        int[] masked = {0xF000_0000};
        assertThatThrownBy(() -> q.dequantizeSum(masked, 2))
                .isInstanceOf(SecAggException.class)
                .hasMessageContaining("still masked");
    }
}
