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
