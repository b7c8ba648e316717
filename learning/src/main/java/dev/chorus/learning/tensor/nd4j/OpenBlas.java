package dev.chorus.learning.tensor.nd4j;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_FLOAT;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SymbolLookup;
import java.lang.invoke.MethodHandle;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.bytedeco.javacpp.Loader;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.factory.Nd4j;

/**
 * Direct calls into the OpenBLAS that ND4J loads, through the JDK's foreign function interface.
 *
 * <p>Why not ND4J's own BLAS entry points: {@code INDArray.mmuli} checks shapes, may copy views and
 * allocates per call; measured on this project's 2-core Zen 5 machine at n=64 it reached under 2
 * GFLOP/s where a direct {@code cblas_sgemm} reached 20-60. Here every pointer argument is passed as
 * a raw {@code long} address, so a call allocates nothing and a transpose is a flag, never a copy.
 *
 * <p>ND4J's class path carries OpenBLAS twice ({@code libopenblas.so.0}, used by libnd4j itself,
 * and {@code libopenblas_nolapack.so.0}, used by ND4J's Java BLAS wrappers); each has its own thread
 * pool, so the thread count is set on both. BLAS routines are called from the {@code nolapack} copy.
 * The handles are plain (not {@code critical}) downcalls: a large GEMM may run for seconds and a
 * critical call would hold off every safepoint of the JVM meanwhile.
 *
 * <p>References: the CBLAS interface (BLAS Technical Forum Standard, 2001, annex B); OpenBLAS's
 * {@code openblas_set_num_threads}.
 */
final class OpenBlas {

    static final int ROW_MAJOR = 101;
    static final int NO_TRANS = 111;
    static final int TRANS = 112;

    private static final MethodHandle SGEMM;
    private static final MethodHandle SGEMV;
    private static final MethodHandle SGER;
    private static final MethodHandle SAXPY;
    private static final MethodHandle SSCAL;
    private static final MethodHandle SDSDOT;
    private static final List<MethodHandle> SET_THREADS;
    private static final String CONFIG;
    private static final String CORE;

    /** The thread count last given to OpenBLAS; one process has one OpenBLAS thread pool. */
    private static int currentThreads = -1;

    static {
        // Initializes ND4J, which loads libnd4jcpu and (through it) OpenBLAS.
        Nd4j.createUninitialized(DataType.FLOAT, 1, 1).close();
        Loader.load(org.bytedeco.openblas.global.openblas_nolapack.class);
        Map<String, String> loaded = new TreeMap<>(Loader.getLoadedLibraries());
        Linker linker = Linker.nativeLinker();
        SymbolLookup blas = null;
        List<MethodHandle> setters = new ArrayList<>();
        String config = "?";
        String core = "?";
        for (Map.Entry<String, String> e : loaded.entrySet()) {
            if (!e.getKey().startsWith("openblas") || e.getValue() == null) {
                continue;
            }
            SymbolLookup lib = SymbolLookup.libraryLookup(Path.of(e.getValue()), Arena.global());
            setters.add(
                    linker.downcallHandle(find(lib, "openblas_set_num_threads"), FunctionDescriptor.ofVoid(JAVA_INT)));
            if (e.getKey().startsWith("openblas_nolapack") || blas == null) {
                blas = lib;
                config = string(linker, lib, "openblas_get_config");
                core = string(linker, lib, "openblas_get_corename");
            }
        }
        if (blas == null) {
            throw new IllegalStateException("ND4J loaded no OpenBLAS library (loaded: " + loaded.keySet() + ")");
        }
        SGEMM = linker.downcallHandle(
                find(blas, "cblas_sgemm"),
                FunctionDescriptor.ofVoid(
                        JAVA_INT,
                        JAVA_INT,
                        JAVA_INT,
                        JAVA_INT,
                        JAVA_INT,
                        JAVA_INT,
                        JAVA_FLOAT,
                        JAVA_LONG,
                        JAVA_INT,
                        JAVA_LONG,
                        JAVA_INT,
                        JAVA_FLOAT,
                        JAVA_LONG,
                        JAVA_INT));
        SGEMV = linker.downcallHandle(
                find(blas, "cblas_sgemv"),
                FunctionDescriptor.ofVoid(
                        JAVA_INT,
                        JAVA_INT,
                        JAVA_INT,
                        JAVA_INT,
                        JAVA_FLOAT,
                        JAVA_LONG,
                        JAVA_INT,
                        JAVA_LONG,
                        JAVA_INT,
                        JAVA_FLOAT,
                        JAVA_LONG,
                        JAVA_INT));
        SGER = linker.downcallHandle(
                find(blas, "cblas_sger"),
                FunctionDescriptor.ofVoid(
                        JAVA_INT,
                        JAVA_INT,
                        JAVA_INT,
                        JAVA_FLOAT,
                        JAVA_LONG,
                        JAVA_INT,
                        JAVA_LONG,
                        JAVA_INT,
                        JAVA_LONG,
                        JAVA_INT));
        SAXPY = linker.downcallHandle(
                find(blas, "cblas_saxpy"),
                FunctionDescriptor.ofVoid(JAVA_INT, JAVA_FLOAT, JAVA_LONG, JAVA_INT, JAVA_LONG, JAVA_INT));
        SSCAL = linker.downcallHandle(
                find(blas, "cblas_sscal"), FunctionDescriptor.ofVoid(JAVA_INT, JAVA_FLOAT, JAVA_LONG, JAVA_INT));
        SDSDOT = linker.downcallHandle(
                find(blas, "cblas_sdsdot"),
                FunctionDescriptor.of(JAVA_FLOAT, JAVA_INT, JAVA_FLOAT, JAVA_LONG, JAVA_INT, JAVA_LONG, JAVA_INT));
        SET_THREADS = List.copyOf(setters);
        CONFIG = config;
        CORE = core;
    }

    private OpenBlas() {}

    private static MemorySegment find(SymbolLookup lib, String symbol) {
        return lib.find(symbol)
                .orElseThrow(() -> new IllegalStateException("OpenBLAS on the class path lacks " + symbol));
    }

    private static String string(Linker linker, SymbolLookup lib, String function) {
        try {
            MemorySegment s = (MemorySegment) linker.downcallHandle(find(lib, function), FunctionDescriptor.of(ADDRESS))
                    .invokeExact();
            return s.reinterpret(256).getString(0).trim();
        } catch (Throwable t) {
            return "?";
        }
    }

    /** Forces the static initializer; throws what loading threw. */
    static void load() {}

    /** OpenBLAS's build configuration, e.g. {@code OpenBLAS 0.3.30 DYNAMIC_ARCH NO_AFFINITY Haswell}. */
    static String config() {
        return CONFIG;
    }

    /** The kernel family OpenBLAS chose for this CPU (or was told to use by OPENBLAS_CORETYPE). */
    static String coreName() {
        return CORE;
    }

    /** Sets the thread count of every loaded OpenBLAS, unless it is already {@code threads}. */
    static void useThreads(int threads) {
        if (currentThreads == threads) {
            return;
        }
        try {
            for (MethodHandle set : SET_THREADS) {
                set.invokeExact(threads);
            }
        } catch (Throwable t) {
            throw rethrow(t);
        }
        currentThreads = threads;
    }

    static void sgemm(
            boolean transA,
            boolean transB,
            int m,
            int n,
            int k,
            float alpha,
            long a,
            int lda,
            long b,
            int ldb,
            float beta,
            long c,
            int ldc) {
        try {
            SGEMM.invokeExact(
                    ROW_MAJOR,
                    transA ? TRANS : NO_TRANS,
                    transB ? TRANS : NO_TRANS,
                    m,
                    n,
                    k,
                    alpha,
                    a,
                    lda,
                    b,
                    ldb,
                    beta,
                    c,
                    ldc);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /** {@code y = alpha * op(A) x + beta * y} with {@code A} row-major {@code m x n}. */
    static void sgemv(boolean trans, int m, int n, float alpha, long a, int lda, long x, float beta, long y) {
        try {
            SGEMV.invokeExact(ROW_MAJOR, trans ? TRANS : NO_TRANS, m, n, alpha, a, lda, x, 1, beta, y, 1);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /** {@code A += alpha * x y^T} with {@code A} row-major {@code m x n}. */
    static void sger(int m, int n, float alpha, long x, long y, long a, int lda) {
        try {
            SGER.invokeExact(ROW_MAJOR, m, n, alpha, x, 1, y, 1, a, lda);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /** {@code y += alpha * x}. */
    static void saxpy(int n, float alpha, long x, long y) {
        try {
            SAXPY.invokeExact(n, alpha, x, 1, y, 1);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /** {@code x *= alpha}. */
    static void sscal(int n, float alpha, long x) {
        try {
            SSCAL.invokeExact(n, alpha, x, 1);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /** Sum of {@code x[i] * y[i]}, accumulated in double precision. */
    static float sdsdot(int n, long x, long y) {
        try {
            return (float) SDSDOT.invokeExact(n, 0f, x, 1, y, 1);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    private static RuntimeException rethrow(Throwable t) {
        if (t instanceof RuntimeException r) {
            throw r;
        }
        if (t instanceof Error e) {
            throw e;
        }
        throw new IllegalStateException("OpenBLAS call failed: " + t, t);
    }
}
