package dev.chorus.gpu.cuda;

import java.util.Map;

/** Names and meanings of {@code cublasStatus_t} codes (cuBLAS 12 and 13, {@code cublas_api.h}). */
public final class CublasStatus {

    public static final int SUCCESS = 0;

    private static final Map<Integer, String[]> CODES = Map.of(
            0, new String[] {"CUBLAS_STATUS_SUCCESS", "no error"},
            1, new String[] {"CUBLAS_STATUS_NOT_INITIALIZED", "cuBLAS was not initialized (no usable device?)"},
            3, new String[] {"CUBLAS_STATUS_ALLOC_FAILED", "cuBLAS could not allocate memory"},
            7, new String[] {"CUBLAS_STATUS_INVALID_VALUE", "an argument is invalid"},
            8, new String[] {"CUBLAS_STATUS_ARCH_MISMATCH", "the device lacks a feature the call needs"},
            11, new String[] {"CUBLAS_STATUS_MAPPING_ERROR", "access to GPU memory failed"},
            13, new String[] {"CUBLAS_STATUS_EXECUTION_FAILED", "the kernel failed to launch or run"},
            14, new String[] {"CUBLAS_STATUS_INTERNAL_ERROR", "an internal cuBLAS operation failed"},
            15, new String[] {"CUBLAS_STATUS_NOT_SUPPORTED", "the requested functionality is not supported"},
            16, new String[] {"CUBLAS_STATUS_LICENSE_ERROR", "a licensing error"});

    private CublasStatus() {}

    public static String name(int code) {
        String[] e = CODES.get(code);
        return e == null ? "cublasStatus " + code : e[0];
    }

    public static String describe(int code) {
        String[] e = CODES.get(code);
        return e == null ? "cublasStatus " + code + " (unknown to this version of Chorus)" : e[0] + " (" + e[1] + ")";
    }

    public static void check(int status, String call) {
        if (status != SUCCESS) {
            throw new CudaException(call, status, call + " failed: " + describe(status));
        }
    }
}
