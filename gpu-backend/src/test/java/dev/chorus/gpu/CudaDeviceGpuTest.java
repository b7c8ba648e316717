package dev.chorus.gpu;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.chorus.gpu.cuda.CudaAvailability;
import dev.chorus.gpu.memory.CountingAllocator;
import dev.chorus.learning.tensor.Tensor;
import dev.chorus.learning.tensor.reference.ReferenceBackend;
import java.lang.foreign.MemorySegment;
import java.util.SplittableRandom;
import org.assertj.core.data.Offset;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * What only a real GPU can show, beyond the conformance suite: device memory accounting through the
 * real allocator, training that agrees with the reference backend, grid-stride kernels over more
 * elements than one grid covers, the reduced-precision GEMM modes within their error bounds, and
 * event timing. Tagged {@code gpu}; skipped with the probe's reason where no device is usable.
 */
@Tag("gpu")
class CudaDeviceGpuTest {

    private static CudaAvailability.Outcome cuda;

    @BeforeAll
    static void requireGpu() {
        cuda = CudaAvailability.system();
        assumeTrue(cuda.usable(), () -> "no usable CUDA device: " + cuda.summary());
    }

    private static CudaDevice device() {
        return new CudaDevice(cuda.driver().orElseThrow(), cuda.cublas().orElseThrow(), 0);
    }

    @Test
    void everyDeviceAllocationIsFreed() {
        CudaDevice device = device();
        CountingAllocator counting = new CountingAllocator(device.allocator());
        try (CudaBackend b = new CudaBackend(device, counting, GemmPrecision.FP32);
                TrainingLoop loop =
                        new TrainingLoop(b, "mlp:64,64", "sgd:lr=0.05,momentum=0.9", 784, 10, 512, 128, 1)) {
            for (int i = 0; i < 10; i++) {
                loop.step();
            }
            long warm = counting.allocations;
            for (int i = 0; i < 10; i++) {
                loop.step();
            }
            assertThat(counting.allocations).as("no allocation once warm").isEqualTo(warm);
        }
        assertThat(counting.liveBlocks()).isZero();
        assertThat(counting.frees).isEqualTo(counting.allocations);
    }

    @Test
    void trainingAgreesWithTheReferenceBackend() {
        for (String optimizer : new String[] {"sgd:lr=0.05,momentum=0.9", "adam:lr=0.01"}) {
            float[] expected, actual;
            try (TrainingLoop ref =
                    new TrainingLoop(new ReferenceBackend(), "mlp:32,16", optimizer, 40, 5, 200, 20, 9)) {
                for (int s = 0; s < 20; s++) {
                    ref.step();
                }
                expected = ref.parameters();
            }
            try (CudaBackend b = new CudaBackend(device(), GemmPrecision.FP32);
                    TrainingLoop gpu = new TrainingLoop(b, "mlp:32,16", optimizer, 40, 5, 200, 20, 9)) {
                for (int s = 0; s < 20; s++) {
                    gpu.step();
                }
                actual = gpu.parameters();
            }
            for (int i = 0; i < expected.length; i++) {
                assertThat(actual[i]).as("%s parameter %d", optimizer, i).isCloseTo(expected[i], Offset.offset(2e-4f));
            }
        }
    }

    @Test
    void gridStrideKernelsCoverMoreElementsThanOneGrid() {
        int n = 50_000_000; // far more than 32 blocks per multiprocessor x 256 threads
        try (CudaBackend b = new CudaBackend(device(), GemmPrecision.FP32)) {
            Tensor x = b.zeros(1, n), y = b.zeros(1, n);
            b.fill(x, 1f);
            b.fill(y, 2f);
            b.axpy(3f, x, y);
            assertThat(b.sum(y)).as("every element became 5").isEqualTo(5f * n);
            b.scale(0.5f, y);
            assertThat(b.sumOfSquares(y)).isEqualTo(6.25f * n);
            Tensor rows = b.zeros(100_000, 10);
            b.fill(rows, 1f);
            Tensor sums = b.zeros(1, 10);
            b.sumRows(rows, 0f, sums);
            float[] host = new float[10];
            b.copyToHost(sums, host, 0);
            assertThat(host).containsOnly(100_000f);
        }
    }

    @Test
    void reducedPrecisionGemmStaysWithinItsBounds() {
        int m = 192, k = 320, n = 256;
        SplittableRandom random = new SplittableRandom(5);
        float[] a = new float[m * k], bm = new float[k * n];
        for (int i = 0; i < a.length; i++) a[i] = (float) (random.nextDouble() * 2 - 1);
        for (int i = 0; i < bm.length; i++) bm[i] = (float) (random.nextDouble() * 2 - 1);
        ReferenceBackend ref = new ReferenceBackend();
        float[] exact = new float[m * n], magnitude = new float[m * n];
        try (Tensor ra = ref.fromHost(a, m, k);
                Tensor rb = ref.fromHost(bm, k, n);
                Tensor rc = ref.zeros(m, n)) {
            ref.gemm(false, false, 1f, ra, rb, 0f, rc);
            ref.copyToHost(rc, exact, 0);
            float[] absA = a.clone(), absB = bm.clone();
            for (int i = 0; i < absA.length; i++) absA[i] = Math.abs(absA[i]);
            for (int i = 0; i < absB.length; i++) absB[i] = Math.abs(absB[i]);
            ref.copyFromHost(absA, 0, ra);
            ref.copyFromHost(absB, 0, rb);
            ref.gemm(false, false, 1f, ra, rb, 0f, rc);
            ref.copyToHost(rc, magnitude, 0);
        }
        // Relative to sum |a||b|: rounding both inputs costs 2^-10 (TF32, 10 explicit bits) or
        // 2^-7 (bfloat16, 7 bits) per product at most, plus float32 accumulation.
        double[] bound = {(k + 2) * 0x1p-23, 0x1p-10 + (k + 2) * 0x1p-23, 0x1p-7 + (k + 2) * 0x1p-23};
        GemmPrecision[] modes = {GemmPrecision.FP32, GemmPrecision.TF32, GemmPrecision.BF16};
        try (CudaBackend b = new CudaBackend(device(), GemmPrecision.FP32)) {
            Tensor ta = b.fromHost(a, m, k), tb = b.fromHost(bm, k, n), tc = b.zeros(m, n);
            for (int mode = 0; mode < modes.length; mode++) {
                b.setGemmPrecision(modes[mode]);
                b.gemm(false, false, 1f, ta, tb, 0f, tc);
                float[] got = new float[m * n];
                b.copyToHost(tc, got, 0);
                double worst = 0;
                for (int i = 0; i < got.length; i++) {
                    worst = Math.max(worst, Math.abs(got[i] - exact[i]) / magnitude[i]);
                }
                System.out.printf(
                        "gemm %s: worst error %.3g of sum|a||b| (bound %.3g)%n", modes[mode], worst, bound[mode]);
                assertThat(worst)
                        .as("%s error relative to sum |a||b|", modes[mode])
                        .isLessThanOrEqualTo(bound[mode]);
            }
        }
    }

    @Test
    void eventsTimeQueuedWork() {
        try (CudaDevice d = device()) {
            MemorySegment start = d.createEvent(true), end = d.createEvent(true);
            try (CudaBackend b = new CudaBackend(device(), GemmPrecision.FP32)) {
                Tensor x = b.zeros(2048, 2048), y = b.zeros(2048, 2048), z = b.zeros(2048, 2048);
                b.fill(x, 1f);
                b.fill(y, 1f);
                b.gemm(false, false, 1f, x, y, 0f, z);
                b.synchronize();
                assertThat(b.sum(z)).isEqualTo(2048f * 2048 * 2048);
            }
            d.bind();
            d.recordEvent(start);
            d.recordEvent(end);
            d.waitEvent(end);
            assertThat(d.elapsedMillis(start, end)).isGreaterThanOrEqualTo(0f);
            d.destroyEvent(start);
            d.destroyEvent(end);
        }
    }
}
