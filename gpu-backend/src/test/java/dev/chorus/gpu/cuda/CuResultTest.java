package dev.chorus.gpu.cuda;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class CuResultTest {

    @Test
    void namesAndMeaningsOfKnownCodes() {
        assertThat(CuResult.name(0)).isEqualTo("CUDA_SUCCESS");
        assertThat(CuResult.name(100)).isEqualTo("CUDA_ERROR_NO_DEVICE");
        assertThat(CuResult.name(222)).isEqualTo("CUDA_ERROR_UNSUPPORTED_PTX_VERSION");
        assertThat(CuResult.describe(2)).isEqualTo("CUDA_ERROR_OUT_OF_MEMORY (out of device memory)");
        assertThat(CuResult.describe(700)).startsWith("CUDA_ERROR_ILLEGAL_ADDRESS (");
    }

    @Test
    void unknownCodesAreStillNamed() {
        assertThat(CuResult.name(12345)).isEqualTo("CUresult 12345");
        assertThat(CuResult.describe(-1)).startsWith("CUresult -1 (");
    }

    @Test
    void checkThrowsOneLineNamingTheCall() {
        assertThatCode(() -> CuResult.check(0, "cuInit")).doesNotThrowAnyException();
        assertThatThrownBy(() -> CuResult.check(201, "cuMemAlloc"))
                .isExactlyInstanceOf(CudaException.class)
                .hasMessage("cuMemAlloc failed: CUDA_ERROR_INVALID_CONTEXT (no valid context is current)")
                .satisfies(e -> {
                    CudaException c = (CudaException) e;
                    assertThat(c.call()).isEqualTo("cuMemAlloc");
                    assertThat(c.status()).isEqualTo(201);
                });
    }

    @Test
    void outOfMemoryHasItsOwnType() {
        assertThatThrownBy(() -> CuResult.check(CuResult.ERROR_OUT_OF_MEMORY, "cuMemAlloc"))
                .isInstanceOf(DeviceOutOfMemoryException.class)
                .hasMessageContaining("CUDA_ERROR_OUT_OF_MEMORY");
    }

    @Test
    void cublasStatuses() {
        assertThat(CublasStatus.name(7)).isEqualTo("CUBLAS_STATUS_INVALID_VALUE");
        assertThat(CublasStatus.describe(13)).startsWith("CUBLAS_STATUS_EXECUTION_FAILED (");
        assertThat(CublasStatus.name(99)).isEqualTo("cublasStatus 99");
        assertThatThrownBy(() -> CublasStatus.check(1, "cublasCreate"))
                .isInstanceOf(CudaException.class)
                .hasMessageStartingWith("cublasCreate failed: CUBLAS_STATUS_NOT_INITIALIZED");
        assertThatCode(() -> CublasStatus.check(0, "cublasSgemm")).doesNotThrowAnyException();
    }

    @Test
    void cudaVersionsReadAsMajorDotMinor() {
        assertThat(CudaAvailability.cudaVersion(13000)).isEqualTo("13.0");
        assertThat(CudaAvailability.cudaVersion(12040)).isEqualTo("12.4");
        assertThat(CudaAvailability.cudaVersion(12090)).isEqualTo("12.9");
    }
}
