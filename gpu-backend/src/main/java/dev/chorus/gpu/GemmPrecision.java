package dev.chorus.gpu;

import java.util.Locale;

/**
 * How the CUDA backend multiplies float32 matrices. {@link #FP32} is the default and the only mode
 * that meets the conformance suite's error bounds; the others are opt-in and trade accuracy for
 * tensor-core speed while keeping float32 storage and accumulation.
 */
public enum GemmPrecision {
    /** {@code cublasSgemm}: IEEE float32 products and sums. */
    FP32,
    /**
     * {@code cublasGemmEx} with {@code CUBLAS_COMPUTE_32F_FAST_TF32}: inputs rounded to TF32 (10
     * mantissa bits, relative error about 5e-4 per product) on tensor cores.
     */
    TF32,
    /**
     * {@code cublasGemmEx} with {@code CUBLAS_COMPUTE_32F_FAST_16BF}: inputs rounded to bfloat16 (7
     * mantissa bits, relative error about 4e-3 per product) on tensor cores.
     */
    BF16;

    /** Parses {@code fp32}, {@code tf32} or {@code bf16} (any case). */
    public static GemmPrecision parse(String text) {
        String t = text == null ? "" : text.trim().toUpperCase(Locale.ROOT);
        for (GemmPrecision p : values()) {
            if (p.name().equals(t)) {
                return p;
            }
        }
        throw new IllegalArgumentException("unknown GEMM precision '" + text + "'; expected fp32, tf32 or bf16");
    }

    /**
     * The mode that {@code CHORUS_CUDA_GEMM} (or the system property {@code chorus.cuda.gemm})
     * asks for; {@link #FP32} when neither is set.
     */
    public static GemmPrecision fromEnvironment() {
        String p = System.getProperty("chorus.cuda.gemm");
        if (p == null || p.isBlank()) {
            p = System.getenv("CHORUS_CUDA_GEMM");
        }
        return p == null || p.isBlank() ? FP32 : parse(p);
    }
}
