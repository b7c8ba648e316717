package dev.chorus.gpu;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.chorus.gpu.cuda.CudaAvailability;
import dev.chorus.learning.tensor.TensorBackend;
import dev.chorus.learning.tensor.TensorBackendConformanceTest;
import dev.chorus.learning.tensor.TensorBackends;
import org.junit.jupiter.api.Tag;

/**
 * The conformance suite on a real GPU. Tagged {@code gpu}, which the build excludes by default;
 * where the tag is included but no usable device is found, the whole class is skipped with the
 * reason {@link CudaAvailability} gives.
 */
@Tag("gpu")
class CudaBackendConformanceTest extends TensorBackendConformanceTest {

    @Override
    protected TensorBackend backendUnderTest() {
        CudaAvailability.Outcome cuda = CudaAvailability.system();
        assumeTrue(cuda.usable(), () -> "no usable CUDA device: " + cuda.summary());
        System.out.println("CUDA conformance on " + cuda.summary());
        return TensorBackends.create("cuda", 0);
    }
}
