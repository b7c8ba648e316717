package dev.chorus.gpu.cuda;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SymbolLookup;
import java.lang.invoke.MethodHandle;
import java.util.EnumMap;
import java.util.Map;

/**
 * Typed calls into cuBLAS through downcall handles, one per {@link CublasFunction}. cuBLAS is
 * column-major; the row-major mapping lives in the caller. Pointer mode stays at its default
 * (host), so {@code alpha} and {@code beta} are host addresses.
 */
public final class Cublas {

    private final Map<CublasFunction, MethodHandle> handles = new EnumMap<>(CublasFunction.class);
    private final MethodHandle sgemm;
    private final MethodHandle gemmEx;

    /**
     * Binds every {@link CublasFunction} in {@code lookup}.
     *
     * @throws UnsatisfiedLinkError naming the first missing symbol
     */
    public Cublas(SymbolLookup lookup, String library) {
        for (CublasFunction f : CublasFunction.values()) {
            handles.put(f, NativeFunction.bind(lookup, library, f));
        }
        sgemm = handles.get(CublasFunction.CUBLAS_SGEMM);
        gemmEx = handles.get(CublasFunction.CUBLAS_GEMM_EX);
    }

    private static RuntimeException rethrow(Throwable t) {
        if (t instanceof RuntimeException r) {
            return r;
        }
        if (t instanceof Error e) {
            throw e;
        }
        return new IllegalStateException(t);
    }

    /** {@code major.minor.patch} of the loaded library; needs no device. */
    public String version() {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment out = arena.allocate(JAVA_INT);
            int[] parts = new int[3];
            int[] properties = {CublasFunction.MAJOR_VERSION, CublasFunction.MINOR_VERSION, CublasFunction.PATCH_LEVEL};
            MethodHandle h = handles.get(CublasFunction.CUBLAS_GET_PROPERTY);
            for (int i = 0; i < 3; i++) {
                CublasStatus.check((int) h.invokeExact(properties[i], out), "cublasGetProperty");
                parts[i] = out.get(JAVA_INT, 0);
            }
            return parts[0] + "." + parts[1] + "." + parts[2];
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /** A new handle on the current context. */
    public MemorySegment create() {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment out = arena.allocate(ADDRESS);
            CublasStatus.check((int) handles.get(CublasFunction.CUBLAS_CREATE).invokeExact(out), "cublasCreate");
            return out.get(ADDRESS, 0);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    public void destroy(MemorySegment handle) {
        try {
            CublasStatus.check((int) handles.get(CublasFunction.CUBLAS_DESTROY).invokeExact(handle), "cublasDestroy");
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    public void setStream(MemorySegment handle, MemorySegment stream) {
        try {
            CublasStatus.check(
                    (int) handles.get(CublasFunction.CUBLAS_SET_STREAM).invokeExact(handle, stream), "cublasSetStream");
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    public void setMathMode(MemorySegment handle, int mode) {
        try {
            CublasStatus.check(
                    (int) handles.get(CublasFunction.CUBLAS_SET_MATH_MODE).invokeExact(handle, mode),
                    "cublasSetMathMode");
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /** Column-major {@code C = alpha op(A) op(B) + beta C} in float32 ({@code cublasSgemm}). */
    public void sgemm(
            MemorySegment handle,
            int transA,
            int transB,
            int m,
            int n,
            int k,
            MemorySegment alpha,
            long a,
            int lda,
            long b,
            int ldb,
            MemorySegment beta,
            long c,
            int ldc) {
        try {
            CublasStatus.check(
                    (int) sgemm.invokeExact(
                            handle,
                            transA,
                            transB,
                            m,
                            n,
                            k,
                            alpha,
                            MemorySegment.ofAddress(a),
                            lda,
                            MemorySegment.ofAddress(b),
                            ldb,
                            beta,
                            MemorySegment.ofAddress(c),
                            ldc),
                    "cublasSgemm");
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /**
     * Column-major float32 GEMM through {@code cublasGemmEx} with the given compute type (e.g.
     * {@link CublasFunction#COMPUTE_32F_FAST_TF32}), which may round the inputs to TF32 or bf16
     * inside the tensor cores while accumulating in float32.
     */
    public void gemmEx(
            MemorySegment handle,
            int transA,
            int transB,
            int m,
            int n,
            int k,
            MemorySegment alpha,
            long a,
            int lda,
            long b,
            int ldb,
            MemorySegment beta,
            long c,
            int ldc,
            int computeType) {
        int f32 = CublasFunction.CUDA_R_32F;
        try {
            CublasStatus.check(
                    (int) gemmEx.invokeExact(
                            handle,
                            transA,
                            transB,
                            m,
                            n,
                            k,
                            alpha,
                            MemorySegment.ofAddress(a),
                            f32,
                            lda,
                            MemorySegment.ofAddress(b),
                            f32,
                            ldb,
                            beta,
                            MemorySegment.ofAddress(c),
                            f32,
                            ldc,
                            computeType,
                            CublasFunction.GEMM_DEFAULT),
                    "cublasGemmEx");
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }
}
