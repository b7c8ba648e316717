package dev.chorus.gpu;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.chorus.gpu.memory.CountingAllocator;
import dev.chorus.gpu.memory.DeviceScope;
import dev.chorus.learning.tensor.Tensor;
import dev.chorus.learning.tensor.reference.ReferenceBackend;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Device memory and host traffic of the CUDA backend, over {@link FakeCuda}: every allocation is
 * freed by the time the backend is closed, scopes free their tensors, training keeps parameters on
 * the device (a step moves only its batch in and its loss out, and allocates nothing once warm),
 * and the flat parameter vector reaches the host only when asked, through page-locked memory.
 */
class CudaBackendMemoryTest {

    private final FakeCuda cuda = new FakeCuda();

    @AfterEach
    void noBadCalls() {
        cuda.rethrowFailures();
        cuda.close();
    }

    @Test
    void everyAllocationIsFreedByTheTimeTheBackendCloses() {
        CudaDevice device = new CudaDevice(cuda.driver(), cuda.cublas(), 0);
        CountingAllocator counting = new CountingAllocator(device.allocator());
        CudaBackend b = new CudaBackend(device, counting, GemmPrecision.FP32);
        long scratch = counting.allocations;
        Tensor a = b.zeros(100, 100);
        Tensor c = b.fromHost(new float[50], 5, 10);
        Tensor v = b.view(a, 10, 3, 3);
        assertThat(counting.allocations - scratch).isEqualTo(2);
        v.close(); // a view owns nothing
        a.close();
        assertThat(counting.frees).as("freed blocks are cached, not returned").isZero();
        Tensor again = b.zeros(100, 100);
        assertThat(counting.allocations - scratch)
                .as("the cached block is reused")
                .isEqualTo(2);
        assertThat(b.allocationStats().reuses()).isEqualTo(1);
        assertThatThrownBy(() -> b.sum(a)).isInstanceOf(IllegalStateException.class);
        b.close();
        assertThat(counting.frees).isEqualTo(counting.allocations);
        assertThat(counting.liveBlocks()).isZero();
        assertThat(cuda.liveDeviceBlocks()).isZero();
        assertThat(cuda.livePinnedBlocks()).isZero();
        assertThat(cuda.liveEvents()).isZero();
        assertThatThrownBy(() -> b.zeros(1, 1)).isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(() -> b.sum(again)).isInstanceOf(IllegalStateException.class);
        b.close(); // idempotent
    }

    @Test
    void scopesFreeTheirTensors() {
        CudaDevice device = new CudaDevice(cuda.driver(), cuda.cublas(), 0);
        CountingAllocator real = new CountingAllocator(device.allocator());
        try (CudaBackend b = new CudaBackend(device, real, GemmPrecision.FP32)) {
            Tensor outer = b.zeros(8, 8);
            b.fill(outer, 2f);
            assertThat(b.sum(outer)).isEqualTo(128f); // allocates the reduction scratch once
            long before = b.allocationStats().liveBlocks();
            Tensor inner;
            try (DeviceScope scope = b.openScope()) {
                inner = b.zeros(16, 16);
                b.zeros(4, 4);
                assertThat(b.allocationStats().liveBlocks()).isEqualTo(before + 2);
                assertThat(scope.liveBuffers()).isEqualTo(2);
            }
            assertThat(b.allocationStats().liveBlocks()).isEqualTo(before);
            assertThatThrownBy(() -> b.fill(inner, 1f))
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("used after its storage was freed");
            assertThat(b.sum(outer))
                    .as("tensors outside the scope are untouched")
                    .isEqualTo(128f);
            Tensor afterScope = b.zeros(2, 2);
            assertThat(b.allocationStats().liveBlocks())
                    .as("new tensors go to the root scope again")
                    .isEqualTo(before + 1);
            afterScope.close();
        }
        assertThat(real.liveBlocks()).isZero();
    }

    @Test
    void trainingKeepsParametersOnTheDevice() {
        int width = 20, classes = 3, batch = 16;
        CountingAllocator counting;
        CudaDevice device = new CudaDevice(cuda.driver(), cuda.cublas(), 0);
        counting = new CountingAllocator(device.allocator());
        try (CudaBackend b = new CudaBackend(device, counting, GemmPrecision.FP32);
                TrainingLoop loop =
                        new TrainingLoop(b, "mlp:32,32", "sgd:lr=0.05,momentum=0.9", width, classes, 64, batch, 7)) {
            loop.step();
            loop.step();
            long allocations = counting.allocations;
            TransferStats before = b.transferStats();
            int steps = 5;
            for (int s = 0; s < steps; s++) {
                loop.step();
            }
            TransferStats during = b.transferStats().minus(before);
            assertThat(counting.allocations).as("device allocations once warm").isEqualTo(allocations);
            assertThat(during.hostToDeviceBytes())
                    .as("only the batch and its one-hot labels go in")
                    .isEqualTo(steps * 4L * batch * (width + classes));
            assertThat(during.hostToDeviceCopies()).isEqualTo(2L * steps);
            assertThat(during.deviceToHostBytes()).as("only the loss comes out").isEqualTo(steps * 4L);
            assertThat(during.synchronizations())
                    .as("one wait per step, for the loss")
                    .isEqualTo(steps);
            assertThat(during.gemms())
                    .as("3 dense layers: 3 forward, 3 weight and 2 input gradients")
                    .isEqualTo(8L * steps);

            TransferStats beforeCopy = b.transferStats();
            float[] params = loop.parameters();
            TransferStats copy = b.transferStats().minus(beforeCopy);
            assertThat(copy.deviceToHostCopies()).isEqualTo(1);
            assertThat(copy.deviceToHostBytes()).isEqualTo(4L * loop.model.parameterCount());
            assertThat(copy.launches()).isZero();
            assertThat(params).hasSize(loop.model.parameterCount());
        }
        assertThat(counting.liveBlocks()).isZero();
        assertThat(cuda.livePinnedBlocks()).isZero();
    }

    @Test
    void largeUploadsGoInChunksAndArriveWhole() {
        int n = 3 * (1 << 20) + 12345;
        float[] data = new float[n];
        for (int i = 0; i < n; i++) {
            data[i] = i * 0.5f;
        }
        try (CudaBackend b = cuda.backend()) {
            TransferStats before = b.transferStats();
            Tensor t = b.fromHost(data, 1, n);
            TransferStats upload = b.transferStats().minus(before);
            assertThat(upload.hostToDeviceCopies()).isEqualTo(4);
            assertThat(upload.hostToDeviceBytes()).isEqualTo(4L * n);
            float[] back = new float[n];
            b.copyToHost(t, back, 0);
            assertThat(back).isEqualTo(data);
        }
    }

    @Test
    void trainingMatchesTheReferenceBackend() {
        int width = 12, classes = 4, batch = 10, steps = 15;
        float[] expected, actual;
        float lossRef = 0, lossCuda = 0;
        try (TrainingLoop ref = new TrainingLoop(
                new ReferenceBackend(), "mlp:16,8:tanh", "adam:lr=0.01", width, classes, 50, batch, 3)) {
            for (int s = 0; s < steps; s++) {
                lossRef = ref.step();
            }
            expected = ref.parameters();
        }
        try (CudaBackend b = cuda.backend();
                TrainingLoop gpu = new TrainingLoop(b, "mlp:16,8:tanh", "adam:lr=0.01", width, classes, 50, batch, 3)) {
            for (int s = 0; s < steps; s++) {
                lossCuda = gpu.step();
            }
            actual = gpu.parameters();
        }
        assertThat(lossCuda).isCloseTo(lossRef, org.assertj.core.data.Offset.offset(1e-4f));
        for (int i = 0; i < expected.length; i++) {
            assertThat(actual[i])
                    .as("parameter %d", i)
                    .isCloseTo(expected[i], org.assertj.core.data.Offset.offset(1e-4f));
        }
    }

    @Test
    void aBackendMayMoveBetweenThreads() throws Exception {
        try (CudaBackend b = cuda.backend()) {
            Tensor x = b.fromHost(new float[] {1, 2, 3}, 1, 3);
            long switches = cuda.contextSwitches;
            ExecutorService other = Executors.newSingleThreadExecutor();
            try {
                float s = other.submit(() -> b.sum(x)).get();
                assertThat(s).isEqualTo(6f);
            } finally {
                other.shutdown();
            }
            assertThat(cuda.contextSwitches)
                    .as("the context was made current on the new thread")
                    .isGreaterThan(switches);
            assertThat(b.dot(x, x)).isEqualTo(14f);
            float[] onVirtual = new float[1];
            Thread t = Thread.ofVirtual().start(() -> onVirtual[0] = b.sumOfSquares(x));
            t.join();
            assertThat(onVirtual[0]).isEqualTo(14f);
        }
    }
}
