package dev.chorus.node.protocol;

import static org.assertj.core.api.Assertions.assertThat;

import dev.chorus.testsupport.TestLog;
import java.util.SplittableRandom;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** Round-trip error bounds of the fp16, bf16 and int8 codecs, on seeded random vectors. */
class ExchangeQuantizationTest {

    private static float[] vector(long seed, int n, double sigma) {
        SplittableRandom r = new SplittableRandom(seed);
        float[] v = new float[n];
        for (int i = 0; i < n; i++) {
            v[i] = (float) (r.nextGaussian() * sigma);
        }
        return v;
    }

    private static float[] roundTrip(Dtype dtype, float[] v) {
        byte[] buf = new byte[v.length * dtype.bytesPerValue()];
        float scale = dtype == Dtype.INT8 ? Quantization.int8Scale(v, 0, v.length) : 0;
        Quantization.encode(dtype, v, 0, v.length, scale, buf, 0);
        float[] out = new float[v.length];
        assertThat(Quantization.decode(dtype, buf, 0, v.length, scale, out, 0)).isEqualTo(-1);
        for (int i = 0; i < v.length; i++) {
            assertThat(out[i]).isEqualTo(Quantization.roundTrip(dtype, v[i], scale)); // digest agrees with decoding
        }
        return out;
    }

    @ParameterizedTest
    @ValueSource(longs = {1, 2, 3})
    void halfRelativeErrorAtMostTwoToMinusEleven(long seed) {
        TestLog.figures("seed " + seed);
        float[] v = vector(seed, 10_000, 3.0);
        float[] out = roundTrip(Dtype.F16, v);
        for (int i = 0; i < v.length; i++) {
            if (Math.abs(v[i]) >= 6.2e-5f) { // normal binary16 range
                assertThat(Math.abs(out[i] - v[i])).isLessThanOrEqualTo(Math.abs(v[i]) * 0x1p-11f);
            } else {
                assertThat(Math.abs(out[i] - v[i])).isLessThanOrEqualTo(0x1p-25f); // half the subnormal step
            }
        }
    }

    @ParameterizedTest
    @ValueSource(longs = {4, 5, 6})
    void bfloat16RelativeErrorAtMostTwoToMinusEight(long seed) {
        TestLog.figures("seed " + seed);
        float[] v = vector(seed, 10_000, 1e3);
        float[] out = roundTrip(Dtype.BF16, v);
        for (int i = 0; i < v.length; i++) {
            assertThat(Math.abs(out[i] - v[i])).isLessThanOrEqualTo(Math.abs(v[i]) * 0x1p-8f);
        }
    }

    @ParameterizedTest
    @ValueSource(longs = {7, 8, 9})
    void int8AbsoluteErrorAtMostHalfAScaleStep(long seed) {
        TestLog.figures("seed " + seed);
        float[] v = vector(seed, 4096, 0.1);
        float scale = Quantization.int8Scale(v, 0, v.length);
        float[] out = roundTrip(Dtype.INT8, v);
        for (int i = 0; i < v.length; i++) {
            assertThat(Math.abs(out[i] - v[i])).isLessThanOrEqualTo(scale / 2 * 1.0001f);
        }
    }

    @ParameterizedTest
    @ValueSource(floats = {1e6f, -1e6f, Float.MAX_VALUE, -Float.MAX_VALUE})
    void overflowSaturatesInsteadOfBecomingInfinite(float big) {
        for (Dtype d : new Dtype[] {Dtype.F16, Dtype.BF16}) {
            float out = roundTrip(d, new float[] {big})[0];
            assertThat(Float.isFinite(out)).as(d + " of " + big).isTrue();
            assertThat(Math.signum(out)).isEqualTo(Math.signum(big));
        }
    }

    @ParameterizedTest
    @ValueSource(ints = {0})
    void allZeroChunkHasZeroScale(int ignored) {
        float[] out = roundTrip(Dtype.INT8, new float[16]);
        assertThat(out).containsOnly(0f);
    }
}
