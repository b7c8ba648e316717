package dev.chorus.gpu;

import static org.assertj.core.api.Assertions.assertThat;

import dev.chorus.gpu.cuda.CuResult;
import dev.chorus.gpu.cuda.CudaAvailability;
import dev.chorus.gpu.cuda.CudaLibraries;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What {@link CudaAvailability} says in each situation, found by calling a {@link FakeCuda}
 * driver through the real bindings: one line naming the missing driver, device, driver version,
 * compute capability or cuBLAS; or, when everything is there, a summary of the device.
 */
class CudaAvailabilityTest {

    private final FakeCuda cuda = new FakeCuda();

    @AfterEach
    void close() {
        cuda.rethrowFailures();
        cuda.close();
    }

    private CudaAvailability.Outcome probe(boolean driver, boolean cublas) {
        return CudaAvailability.probe(cuda.opener(driver, cublas), Map.of(), null);
    }

    private static void assertOneLine(String problem) {
        assertThat(problem).isNotBlank().doesNotContain("\n");
    }

    @Test
    void everythingPresent() {
        CudaAvailability.Outcome o = probe(true, true);
        assertThat(o.usable()).isTrue();
        assertThat(o.problem()).isEmpty();
        assertThat(o.driver()).isPresent();
        assertThat(o.cublas()).isPresent();
        assertThat(o.summary())
                .isEqualTo("Fake CUDA device (compute capability 9.0, 2 multiprocessors, 1.0 GiB), driver CUDA 13.0,"
                        + " cuBLAS 13.0.2 (libcublas.so.13)");
    }

    @Test
    void noDriverLibrary() {
        CudaAvailability.Outcome o = probe(false, true);
        assertThat(o.problem()).hasValueSatisfying(p -> {
            assertOneLine(p);
            assertThat(p).startsWith("no NVIDIA driver: libcuda.so.1 was not found");
        });
    }

    @Test
    void driverWithoutDevice() {
        cuda.initResult = CuResult.ERROR_NO_DEVICE;
        assertThat(probe(true, true).problem())
                .hasValue("no CUDA device: the NVIDIA driver is installed but cuInit reports CUDA_ERROR_NO_DEVICE"
                        + " (no CUDA-capable device is detected)");
    }

    @Test
    void stubDriverLibrary() {
        cuda.initResult = CuResult.ERROR_STUB_LIBRARY;
        assertThat(probe(true, true).problem()).hasValueSatisfying(p -> assertThat(p)
                .startsWith("no NVIDIA driver: libcuda.so.1 is the CUDA toolkit's stub library"));
    }

    @Test
    void otherInitFailuresAreNamed() {
        cuda.initResult = CuResult.ERROR_SYSTEM_DRIVER_MISMATCH;
        assertThat(probe(true, true).problem()).hasValueSatisfying(p -> assertThat(p)
                .startsWith(
                        "the NVIDIA driver failed to initialize: cuInit returned CUDA_ERROR_SYSTEM_DRIVER_MISMATCH"));
    }

    @Test
    void driverTooOldForThePtx() {
        cuda.driverVersion = 12040;
        assertThat(probe(true, true).problem()).hasValueSatisfying(p -> {
            assertOneLine(p);
            assertThat(p).contains("supports CUDA 12.4").contains("need 13.0 or newer");
        });
    }

    @Test
    void zeroDevices() {
        cuda.deviceCount = 0;
        assertThat(probe(true, true).problem()).hasValue("no CUDA device: the NVIDIA driver sees none");
    }

    @Test
    void deviceTooOld() {
        cuda.computeMajor = 6;
        cuda.computeMinor = 1;
        assertThat(probe(true, true).problem())
                .hasValue("CUDA device 0 (Fake CUDA device) has compute capability 6.1; the CUDA backend needs 7.5 or"
                        + " newer");
    }

    @Test
    void noCublas() {
        CudaAvailability.Outcome o = probe(true, false);
        assertThat(o.problem()).hasValueSatisfying(p -> {
            assertOneLine(p);
            assertThat(p)
                    .startsWith("no cuBLAS: none of libcublas.so.13, libcublas.so.12, libcublas.so")
                    .endsWith("set CHORUS_CUBLAS to libcublas.so's path");
        });
    }

    @Test
    void anExplicitCublasPathIsTheOnlyCandidate(@TempDir Path dir) {
        assertThat(CudaLibraries.cublasCandidates(Map.of("CHORUS_CUBLAS", "/opt/x/libcublas.so.12"), null))
                .containsExactly("/opt/x/libcublas.so.12");
        assertThat(CudaLibraries.cublasCandidates(Map.of("CHORUS_CUBLAS", dir.toString()), null))
                .containsExactly(
                        dir.resolve("libcublas.so.13").toString(),
                        dir.resolve("libcublas.so.12").toString(),
                        dir.resolve("libcublas.so").toString());
        assertThat(CudaLibraries.cublasCandidates(Map.of("CHORUS_CUBLAS", "/a"), "/b/libcublas.so"))
                .as("the system property wins")
                .containsExactly("/b/libcublas.so");
        // Through the fake: a folder holding libcublas.so.13 is found there.
        CudaAvailability.Outcome o =
                CudaAvailability.probe(cuda.opener(true, true), Map.of("CHORUS_CUBLAS", dir.toString()), null);
        assertThat(o.usable()).isTrue();
        assertThat(o.summary()).endsWith("(" + dir.resolve("libcublas.so.13") + ")");
    }

    @Test
    void theProbeNeverThrows() {
        CudaAvailability.Outcome o = CudaAvailability.probe(
                name -> {
                    throw new IllegalStateException("loader exploded");
                },
                Map.of(),
                null);
        assertThat(o.problem()).hasValue("the CUDA probe failed: loader exploded");
        CudaAvailability.Outcome denied = CudaAvailability.probe(
                name -> {
                    throw new IllegalCallerException("Illegal native access");
                },
                Map.of(),
                null);
        assertThat(denied.problem())
                .hasValueSatisfying(p -> assertThat(p).startsWith("native access is disabled; run java with"));
    }
}
