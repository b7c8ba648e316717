package dev.chorus.gpu.cuda;

import java.lang.foreign.FunctionDescriptor;

/**
 * The cuBLAS entry points this backend uses ({@code libcublas.so.13} or {@code .12}, declared in
 * {@code cublas_api.h}); {@code _v2} names are what {@code cublas_v2.h} maps the API names to.
 * Device pointers and the host-side {@code alpha}/{@code beta} are addresses.
 */
public enum CublasFunction implements NativeFunction {
    CUBLAS_GET_PROPERTY("cublasGetProperty", NativeFunction.status(INT, PTR)),
    CUBLAS_CREATE("cublasCreate_v2", "cublasCreate", NativeFunction.status(PTR)),
    CUBLAS_DESTROY("cublasDestroy_v2", "cublasDestroy", NativeFunction.status(PTR)),
    CUBLAS_SET_STREAM("cublasSetStream_v2", "cublasSetStream", NativeFunction.status(PTR, PTR)),
    CUBLAS_SET_MATH_MODE("cublasSetMathMode", NativeFunction.status(PTR, INT)),
    /** handle, transa, transb, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc. */
    CUBLAS_SGEMM(
            "cublasSgemm_v2",
            "cublasSgemm",
            NativeFunction.status(PTR, INT, INT, INT, INT, INT, PTR, PTR, INT, PTR, INT, PTR, PTR, INT)),
    /**
     * handle, transa, transb, m, n, k, alpha, A, Atype, lda, B, Btype, ldb, beta, C, Ctype, ldc,
     * computeType, algo.
     */
    CUBLAS_GEMM_EX(
            "cublasGemmEx",
            NativeFunction.status(
                    PTR, INT, INT, INT, INT, INT, PTR, PTR, INT, INT, PTR, INT, INT, PTR, PTR, INT, INT, INT, INT));

    /** {@code cublasOperation_t}. */
    public static final int OP_N = 0;

    public static final int OP_T = 1;

    /** {@code cublasMath_t}: no reduced precision unless a call's compute type asks for it. */
    public static final int DEFAULT_MATH = 0;

    /** {@code cudaDataType_t} of float32 data. */
    public static final int CUDA_R_32F = 0;

    /** {@code cublasComputeType_t} values. */
    public static final int COMPUTE_32F = 68;

    public static final int COMPUTE_32F_FAST_16BF = 75;
    public static final int COMPUTE_32F_FAST_TF32 = 77;

    /** {@code cublasGemmAlgo_t}: let cuBLAS choose. */
    public static final int GEMM_DEFAULT = -1;

    /** {@code libraryPropertyType}. */
    public static final int MAJOR_VERSION = 0;

    public static final int MINOR_VERSION = 1;
    public static final int PATCH_LEVEL = 2;

    private final String symbol;
    private final String headerName;
    private final FunctionDescriptor descriptor;

    CublasFunction(String name, FunctionDescriptor descriptor) {
        this(name, name, descriptor);
    }

    CublasFunction(String symbol, String headerName, FunctionDescriptor descriptor) {
        this.symbol = symbol;
        this.headerName = headerName;
        this.descriptor = descriptor;
    }

    @Override
    public String symbol() {
        return symbol;
    }

    @Override
    public String headerName() {
        return headerName;
    }

    @Override
    public FunctionDescriptor descriptor() {
        return descriptor;
    }
}
