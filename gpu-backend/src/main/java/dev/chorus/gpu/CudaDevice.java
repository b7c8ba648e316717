package dev.chorus.gpu;

import static java.lang.foreign.ValueLayout.JAVA_FLOAT;

import dev.chorus.gpu.cuda.CuResult;
import dev.chorus.gpu.cuda.Cublas;
import dev.chorus.gpu.cuda.CublasFunction;
import dev.chorus.gpu.cuda.CudaDriver;
import dev.chorus.gpu.cuda.CudaException;
import dev.chorus.gpu.kernel.Kernel;
import dev.chorus.gpu.kernel.KernelArgs;
import dev.chorus.gpu.kernel.KernelModule;
import dev.chorus.gpu.kernel.LaunchShape;
import dev.chorus.gpu.memory.DeviceAllocator;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * One GPU as the CUDA backend uses it: the device's primary context, one non-blocking stream that
 * every copy, kernel and cuBLAS call is queued on (so they run in order without host waits), the
 * kernels loaded from the shipped PTX, and a cuBLAS handle bound to the stream. The host waits only
 * in {@link #synchronize()} and {@link #waitEvent}.
 *
 * <p>The driver's current context is per OS thread; {@link #bind()} makes it current on the
 * calling thread when that thread has not been seen last, so a backend may move between threads
 * (one at a time, as the SPI requires).
 */
public final class CudaDevice implements AutoCloseable {

    private final CudaDriver driver;
    private final Cublas cublas;
    private final Arena arena = Arena.ofShared();
    private final int device;
    private final MemorySegment context;
    private final MemorySegment stream;
    private final MemorySegment blas;
    private final List<MemorySegment> modules = new ArrayList<>();
    private final Map<Kernel, MemorySegment> functions = new EnumMap<>(Kernel.class);
    private final MemorySegment alpha;
    private final MemorySegment beta;
    private final String name;
    private final int multiprocessors;
    private final DeviceAllocator allocator;
    private Thread boundThread;
    private boolean closed;

    private long h2dCopies, h2dBytes, d2hCopies, d2hBytes, launches, gemms, syncs, streamSyncs;

    /**
     * Opens device {@code ordinal}: retains its primary context (shared with cuBLAS and any other
     * library in the process), creates the stream, loads every {@link KernelModule} and creates the
     * cuBLAS handle. On failure, whatever was acquired is released.
     */
    public CudaDevice(CudaDriver driver, Cublas cublas, int ordinal) {
        this.driver = driver;
        this.cublas = cublas;
        CuResult.check(driver.tryInit(), "cuInit");
        device = driver.device(ordinal);
        name = driver.deviceName(device);
        multiprocessors = driver.deviceAttribute(device, CudaDriver.ATTRIBUTE_MULTIPROCESSOR_COUNT);
        context = driver.primaryContextRetain(device);
        MemorySegment s = null, b = null;
        try {
            driver.setCurrentContext(context);
            boundThread = Thread.currentThread();
            s = driver.streamCreate(CudaDriver.STREAM_NON_BLOCKING);
            for (KernelModule m : KernelModule.values()) {
                byte[] ptx = m.ptx();
                MemorySegment image = arena.allocate(ptx.length + 1L);
                MemorySegment.copy(ptx, 0, image, java.lang.foreign.ValueLayout.JAVA_BYTE, 0, ptx.length);
                image.set(java.lang.foreign.ValueLayout.JAVA_BYTE, ptx.length, (byte) 0);
                modules.add(driver.moduleLoadData(image, m.resource()));
            }
            for (Kernel k : Kernel.values()) {
                functions.put(k, driver.moduleGetFunction(modules.get(k.module().ordinal()), k.symbol()));
            }
            b = cublas.create();
            cublas.setStream(b, s);
            cublas.setMathMode(b, CublasFunction.DEFAULT_MATH);
        } catch (RuntimeException | Error e) {
            try {
                if (b != null) {
                    cublas.destroy(b);
                }
                for (MemorySegment m : modules) {
                    driver.moduleUnload(m);
                }
                if (s != null) {
                    driver.streamDestroy(s);
                }
                driver.primaryContextRelease(device);
            } catch (RuntimeException suppressed) {
                e.addSuppressed(suppressed);
            }
            arena.close();
            throw e;
        }
        stream = s;
        blas = b;
        alpha = arena.allocate(JAVA_FLOAT);
        beta = arena.allocate(JAVA_FLOAT);
        allocator = new DeviceAllocator() {
            @Override
            public long allocate(long bytes) {
                bind();
                return driver.memAlloc(bytes);
            }

            @Override
            public void free(long address) {
                bind();
                driver.memFree(address);
            }
        };
    }

    /** {@code NVIDIA H200 (132 multiprocessors)}. */
    public String description() {
        return String.format(Locale.ROOT, "%s (%d multiprocessors)", name, multiprocessors);
    }

    public int multiprocessors() {
        return multiprocessors;
    }

    /** Raw device memory of this device ({@code cuMemAlloc}/{@code cuMemFree}). */
    public DeviceAllocator allocator() {
        return allocator;
    }

    /** Makes this device's context current on the calling thread, if it is not already. */
    public void bind() {
        if (closed) {
            throw new IllegalStateException("the CUDA device is closed");
        }
        Thread t = Thread.currentThread();
        if (t != boundThread || t.isVirtual()) {
            driver.setCurrentContext(context);
            boundThread = t;
        }
    }

    // ---------------------------------------------------------------- host memory and copies

    /** Page-locked host memory of {@code bytes}, for asynchronous copies. */
    public MemorySegment allocatePinned(long bytes) {
        bind();
        return driver.memAllocHost(bytes);
    }

    public void freePinned(MemorySegment pinned) {
        bind();
        driver.memFreeHost(pinned);
    }

    /** Queues a copy from (pinned) host memory; {@code src} must stay untouched until it completes. */
    public void copyToDevice(MemorySegment src, long dst, long bytes) {
        driver.memcpyHtoDAsync(dst, src, bytes, stream);
        h2dCopies++;
        h2dBytes += bytes;
    }

    /** Queues a copy into (pinned) host memory; read {@code dst} only after a synchronization. */
    public void copyToHost(long src, MemorySegment dst, long bytes) {
        driver.memcpyDtoHAsync(dst, src, bytes, stream);
        d2hCopies++;
        d2hBytes += bytes;
    }

    public void copyOnDevice(long src, long dst, long bytes) {
        driver.memcpyDtoDAsync(dst, src, bytes, stream);
    }

    /** Queues setting {@code count} 32-bit words at {@code dst} to {@code bits}. */
    public void fill32(long dst, int bits, long count) {
        driver.memsetD32Async(dst, bits, count, stream);
    }

    // ---------------------------------------------------------------- kernels and cuBLAS

    /** Queues one kernel launch with the arguments marshalled in {@code args}. */
    public void launch(LaunchShape shape, KernelArgs args) {
        Kernel k = args.kernel();
        MemorySegment params = args.complete();
        int r = driver.launchKernel(
                functions.get(k), shape.gridX(), shape.gridY(), 1, shape.blockX(), shape.blockY(), 1, stream, params);
        if (r != CuResult.SUCCESS) {
            throw new CudaException(
                    "cuLaunchKernel",
                    r,
                    "cuLaunchKernel(" + k.symbol() + ", grid " + shape.gridX()
                            + "x" + shape.gridY() + ", block " + shape.blockX() + "x" + shape.blockY() + ") failed: "
                            + CuResult.describe(r));
        }
        launches++;
    }

    /**
     * Queues a column-major {@code C = alpha op(A) op(B) + beta C} (cuBLAS conventions: {@code m x
     * n} result, {@code k} inner dimension, leading dimensions in elements).
     */
    public void gemmColumnMajor(
            GemmPrecision precision,
            boolean transA,
            boolean transB,
            int m,
            int n,
            int k,
            float alphaValue,
            long a,
            int lda,
            long b,
            int ldb,
            float betaValue,
            long c,
            int ldc) {
        alpha.set(JAVA_FLOAT, 0, alphaValue);
        beta.set(JAVA_FLOAT, 0, betaValue);
        int opA = transA ? CublasFunction.OP_T : CublasFunction.OP_N;
        int opB = transB ? CublasFunction.OP_T : CublasFunction.OP_N;
        switch (precision) {
            case FP32 -> cublas.sgemm(blas, opA, opB, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
            case TF32 ->
                cublas.gemmEx(
                        blas,
                        opA,
                        opB,
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
                        ldc,
                        CublasFunction.COMPUTE_32F_FAST_TF32);
            case BF16 ->
                cublas.gemmEx(
                        blas,
                        opA,
                        opB,
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
                        ldc,
                        CublasFunction.COMPUTE_32F_FAST_16BF);
        }
        gemms++;
    }

    // ---------------------------------------------------------------- synchronization

    /** Waits until everything queued so far has run. */
    public void synchronize() {
        driver.streamSynchronize(stream);
        syncs++;
        streamSyncs++;
    }

    /** A new event (timing disabled unless {@code timing}). */
    public MemorySegment createEvent(boolean timing) {
        bind();
        return driver.eventCreate(timing ? CudaDriver.EVENT_DEFAULT : CudaDriver.EVENT_DISABLE_TIMING);
    }

    /** Marks the current end of the stream. */
    public void recordEvent(MemorySegment event) {
        driver.eventRecord(event, stream);
    }

    /** Waits until the work before the event's last record has run. */
    public void waitEvent(MemorySegment event) {
        driver.eventSynchronize(event);
        syncs++;
    }

    public float elapsedMillis(MemorySegment start, MemorySegment end) {
        return driver.eventElapsedMillis(start, end);
    }

    public void destroyEvent(MemorySegment event) {
        bind();
        driver.eventDestroy(event);
    }

    /** Stream synchronizations so far: all work queued before the last one has completed. */
    long streamSynchronizations() {
        return streamSyncs;
    }

    /** Counters since this device was opened. */
    public TransferStats stats() {
        return new TransferStats(h2dCopies, h2dBytes, d2hCopies, d2hBytes, launches, gemms, syncs);
    }

    /**
     * Waits for the stream, then releases the cuBLAS handle, the modules, the stream and the
     * primary context. Device memory must have been freed by then. Idempotent.
     */
    @Override
    public void close() {
        if (closed) {
            return;
        }
        bind();
        closed = true;
        RuntimeException first = null;
        for (Runnable step : new Runnable[] {
            () -> driver.streamSynchronize(stream),
            () -> cublas.destroy(blas),
            () -> modules.forEach(driver::moduleUnload),
            () -> driver.streamDestroy(stream),
            () -> driver.primaryContextRelease(device)
        }) {
            try {
                step.run();
            } catch (RuntimeException e) {
                if (first == null) {
                    first = e;
                } else {
                    first.addSuppressed(e);
                }
            }
        }
        arena.close();
        if (first != null) {
            throw first;
        }
    }
}
