package dev.chorus.gpu;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.chorus.gpu.cuda.CublasFunction;
import dev.chorus.learning.tensor.Tensor;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The opt-in GEMM modes reach cuBLAS as the right calls: FP32 through {@code cublasSgemm}, TF32
 * and BF16 through {@code cublasGemmEx} with the fast compute types. On the emulated device, whose
 * GemmEx rounds the inputs like the tensor cores do, the error grows with the mode as it should.
 */
class GemmPrecisionTest {

    private final FakeCuda cuda = new FakeCuda();

    @AfterEach
    void close() {
        cuda.rethrowFailures();
        cuda.close();
    }

    @Test
    void parsing() {
        assertThat(GemmPrecision.parse(" TF32 ")).isEqualTo(GemmPrecision.TF32);
        assertThat(GemmPrecision.parse("bf16")).isEqualTo(GemmPrecision.BF16);
        assertThatThrownBy(() -> GemmPrecision.parse("fp16"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("unknown GEMM precision 'fp16'; expected fp32, tf32 or bf16");
    }

    @Test
    void eachModeReachesItsCublasCall() {
        float[] a = new float[6 * 5], b = new float[5 * 4];
        for (int i = 0; i < a.length; i++) a[i] = 1f + i / 7f;
        for (int i = 0; i < b.length; i++) b[i] = 1f - i / 9f;
        double[] exact = new double[6 * 4], magnitude = new double[6 * 4];
        for (int i = 0; i < 6; i++) {
            for (int j = 0; j < 4; j++) {
                for (int p = 0; p < 5; p++) {
                    exact[i * 4 + j] += (double) a[i * 5 + p] * b[p * 4 + j];
                    magnitude[i * 4 + j] += Math.abs((double) a[i * 5 + p] * b[p * 4 + j]);
                }
            }
        }
        double[] worst = new double[3];
        try (CudaBackend backend = cuda.backend()) {
            assertThat(backend.gemmPrecision()).isEqualTo(GemmPrecision.FP32);
            Tensor ta = backend.fromHost(a, 6, 5), tb = backend.fromHost(b, 5, 4), tc = backend.zeros(6, 4);
            GemmPrecision[] modes = GemmPrecision.values();
            for (int m = 0; m < modes.length; m++) {
                backend.setGemmPrecision(modes[m]);
                backend.gemm(false, false, 1f, ta, tb, 0f, tc);
                float[] c = new float[24];
                backend.copyToHost(tc, c, 0);
                for (int i = 0; i < c.length; i++) {
                    worst[m] = Math.max(worst[m], Math.abs(c[i] - exact[i]) / magnitude[i]);
                }
            }
        }
        assertThat(cuda.sgemms).isEqualTo(1);
        assertThat(cuda.gemmExs).isEqualTo(2);
        assertThat(cuda.lastComputeType).isEqualTo(CublasFunction.COMPUTE_32F_FAST_16BF);
        // Relative to sum |a||b|: float32 rounding, then 2^-10 (TF32) and 2^-7 (bfloat16) per product.
        assertThat(worst[0]).isLessThan(7 * 0x1p-23);
        assertThat(worst[1]).isGreaterThan(worst[0]).isLessThan(0x1p-10);
        assertThat(worst[2]).isGreaterThan(worst[1]).isLessThan(0x1p-7);
    }
}
