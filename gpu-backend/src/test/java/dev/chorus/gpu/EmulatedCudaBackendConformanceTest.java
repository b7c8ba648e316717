package dev.chorus.gpu;

import static org.assertj.core.api.Assertions.assertThat;

import dev.chorus.learning.tensor.TensorBackend;
import dev.chorus.learning.tensor.TensorBackendConformanceTest;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;

/**
 * The conformance suite on the CUDA backend over {@link FakeCuda}: the real bindings, device
 * wrapper and backend, with the kernels and cuBLAS emulated. It checks everything on the Java
 * side of the backend (shape checks, view offsets, argument marshalling, the row-major GEMM
 * mapping, launch shapes, copies through pinned memory) on any machine; {@link
 * CudaBackendConformanceTest} runs the same suite on a real GPU.
 */
class EmulatedCudaBackendConformanceTest extends TensorBackendConformanceTest {

    private final FakeCuda cuda = new FakeCuda();
    private CudaBackend backend;

    @Override
    protected TensorBackend backendUnderTest() {
        backend = cuda.backend();
        return backend;
    }

    @AfterEach
    void noBadCalls() {
        cuda.rethrowFailures();
    }

    @AfterAll
    void everythingWasReleased() {
        // Runs before the suite's own @AfterAll; closing twice is allowed.
        backend.close();
        cuda.rethrowFailures();
        assertThat(cuda.liveDeviceBlocks()).as("device blocks left").isZero();
        assertThat(cuda.livePinnedBlocks()).as("pinned blocks left").isZero();
        assertThat(cuda.liveStreams()).as("streams left").isZero();
        assertThat(cuda.liveModules()).as("modules left").isZero();
        assertThat(cuda.liveEvents()).as("events left").isZero();
        assertThat(cuda.liveBlasHandles()).as("cuBLAS handles left").isZero();
        assertThat(cuda.contextReleases).as("primary context releases").isEqualTo(cuda.contextRetains);
        cuda.close();
    }
}
