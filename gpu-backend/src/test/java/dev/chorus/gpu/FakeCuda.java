package dev.chorus.gpu;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_DOUBLE;
import static java.lang.foreign.ValueLayout.JAVA_FLOAT;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import dev.chorus.gpu.cuda.CuResult;
import dev.chorus.gpu.cuda.Cublas;
import dev.chorus.gpu.cuda.CublasFunction;
import dev.chorus.gpu.cuda.CudaDriver;
import dev.chorus.gpu.cuda.CudaLibraries;
import dev.chorus.gpu.cuda.DriverFunction;
import dev.chorus.gpu.cuda.NativeFunction;
import java.lang.foreign.Arena;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SymbolLookup;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A CUDA driver and cuBLAS made of Java upcalls, so that the real bindings ({@link CudaDriver},
 * {@link Cublas}), {@link CudaDevice} and {@link CudaBackend} run end to end on a machine without a
 * GPU. Each exported symbol is an upcall stub with the {@link NativeFunction#descriptor()} of the
 * binding; "device memory" is native memory handed out in blocks; kernel launches decode their
 * {@code void**} arguments by the parameter types that the loaded PTX declares and run the
 * kernels' Java transcriptions in {@link EmulatedKernels}.
 *
 * <p>It checks what a real driver would reject or corrupt silently: every device access must stay
 * inside one allocated block (else {@code CUDA_ERROR_ILLEGAL_ADDRESS}), asynchronous copies must
 * use page-locked host memory and the backend's stream, calls need the context current on the
 * calling thread, launches must respect the kernels' 256-thread bound, and freed or unknown
 * addresses are refused. New device memory is filled with NaN, as uninitialized memory may hold
 * anything. Exceptions inside an upcall are recorded (an upcall must not throw) and surface as an
 * error code; {@link #rethrowFailures()} rethrows the first.
 */
final class FakeCuda implements AutoCloseable {

    // ---------------------------------------------------------------- knobs

    int initResult = CuResult.SUCCESS;
    int driverVersion = 13000;
    int deviceCount = 1;
    int computeMajor = 9;
    int computeMinor = 0;
    int multiprocessors = 2;
    String deviceName = "Fake CUDA device";
    long memoryLimit = Long.MAX_VALUE;

    // ---------------------------------------------------------------- state

    private final Arena arena = Arena.ofShared();
    private final TreeMap<Long, MemorySegment> deviceBlocks = new TreeMap<>();
    private final TreeMap<Long, MemorySegment> pinnedBlocks = new TreeMap<>();
    private final Map<Long, Map<String, List<String>>> modules = new HashMap<>();
    private final Map<Long, String> functionNames = new HashMap<>();
    private final Map<Long, List<String>> functionParams = new HashMap<>();
    private final Set<Long> streams = new HashSet<>();
    private final Set<Long> events = new HashSet<>();
    private final Set<Long> blasHandles = new HashSet<>();
    private final ThreadLocal<Long> currentContext = new ThreadLocal<>();
    private final MemorySegment context;
    private final List<Throwable> failures = new ArrayList<>();
    private final EmulatedKernels kernels = new EmulatedKernels(this);
    private SymbolLookup driverLookup;
    private SymbolLookup cublasLookup;
    private long deviceBytes;
    private long nextHandle = 0x1000;

    long memAllocs;
    long memFrees;
    long hostAllocs;
    long hostFrees;
    long contextRetains;
    long contextReleases;
    long contextSwitches;
    long hostToDeviceBytes;
    long deviceToHostBytes;
    long sgemms;
    long gemmExs;
    int lastComputeType = -1;
    final Map<String, Integer> launches = new ConcurrentHashMap<>();

    FakeCuda() {
        context = arena.allocate(16);
    }

    /** A FakeCuda that the CUDA backend runs on, with the driver and cuBLAS already bound. */
    CudaBackend backend() {
        return backend(GemmPrecision.FP32);
    }

    CudaBackend backend(GemmPrecision precision) {
        CudaDevice device = new CudaDevice(driver(), cublas(), 0);
        return new CudaBackend(device, precision);
    }

    CudaDriver driver() {
        return new CudaDriver(driverLookup(), "fake libcuda");
    }

    Cublas cublas() {
        return new Cublas(cublasLookup(), "fake libcublas");
    }

    /** Opens {@code libcuda.so.1} and {@code libcublas.so.13} as this fake, nothing else. */
    CudaLibraries.Opener opener(boolean withDriver, boolean withCublas) {
        return name -> {
            if (withDriver && name.equals(CudaLibraries.DRIVER)) {
                return driverLookup();
            }
            if (withCublas && name.endsWith("libcublas.so.13")) {
                return cublasLookup();
            }
            throw new IllegalArgumentException("Cannot open library: " + name);
        };
    }

    synchronized SymbolLookup driverLookup() {
        if (driverLookup == null) {
            driverLookup = stubs(DriverFunction.values(), CuResult.ERROR_UNKNOWN);
        }
        return driverLookup;
    }

    synchronized SymbolLookup cublasLookup() {
        if (cublasLookup == null) {
            cublasLookup = stubs(CublasFunction.values(), 14 /* CUBLAS_STATUS_INTERNAL_ERROR */);
        }
        return cublasLookup;
    }

    /** One upcall stub per function, each calling the method of this class named like its symbol. */
    private SymbolLookup stubs(NativeFunction[] functions, int errorStatus) {
        Map<String, MemorySegment> table = new HashMap<>();
        MethodHandles.Lookup lookup = MethodHandles.lookup();
        try {
            MethodHandle failed = lookup.findVirtual(
                            FakeCuda.class, "failed", MethodType.methodType(int.class, Throwable.class, int.class))
                    .bindTo(this);
            for (NativeFunction f : functions) {
                MethodType type = f.descriptor().toMethodType();
                MethodHandle target =
                        lookup.findVirtual(FakeCuda.class, f.symbol(), type).bindTo(this);
                MethodHandle handler = MethodHandles.dropArguments(
                        MethodHandles.insertArguments(failed, 1, errorStatus), 1, type.parameterList());
                MethodHandle safe = MethodHandles.catchException(target, Throwable.class, handler);
                table.put(f.symbol(), Linker.nativeLinker().upcallStub(safe, f.descriptor(), arena));
            }
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException("fake lacks a function of the bindings", e);
        }
        return name -> Optional.ofNullable(table.get(name));
    }

    /** Upcalls must not throw: record, and answer with an error code. */
    private synchronized int failed(Throwable t, int errorStatus) {
        failures.add(t);
        if (t instanceof IllegalAccess) {
            return CuResult.ERROR_ILLEGAL_ADDRESS;
        }
        if (t instanceof Refused r) {
            return r.status;
        }
        return errorStatus;
    }

    /** Rethrows the first exception an upcall hit, if any. */
    synchronized void rethrowFailures() {
        if (!failures.isEmpty()) {
            Throwable first = failures.getFirst();
            failures.clear();
            throw new AssertionError("the fake CUDA driver saw a bad call: " + first, first);
        }
    }

    synchronized List<Throwable> failures() {
        return List.copyOf(failures);
    }

    /** An access outside every allocated block. */
    static final class IllegalAccess extends RuntimeException {
        IllegalAccess(String message) {
            super(message);
        }
    }

    /** A call the real driver would refuse with {@code status}. */
    static final class Refused extends RuntimeException {
        final int status;

        Refused(int status, String message) {
            super(message);
            this.status = status;
        }
    }

    // ---------------------------------------------------------------- memory access

    /** The device bytes {@code [address, address + bytes)}, which must lie in one block. */
    synchronized MemorySegment deviceRange(long address, long bytes) {
        Map.Entry<Long, MemorySegment> e = deviceBlocks.floorEntry(address);
        if (e == null
                || bytes < 0
                || address + bytes > e.getKey() + e.getValue().byteSize()) {
            throw new IllegalAccess("device access [0x" + Long.toHexString(address) + ", +" + bytes
                    + ") is outside every allocated block");
        }
        return e.getValue().asSlice(address - e.getKey(), bytes);
    }

    private synchronized MemorySegment pinnedRange(MemorySegment host, long bytes) {
        long address = host.address();
        Map.Entry<Long, MemorySegment> e = pinnedBlocks.floorEntry(address);
        if (e == null || address + bytes > e.getKey() + e.getValue().byteSize()) {
            throw new Refused(
                    CuResult.ERROR_INVALID_VALUE,
                    "asynchronous copy from host memory that is not page-locked: 0x" + Long.toHexString(address));
        }
        return e.getValue().asSlice(address - e.getKey(), bytes);
    }

    /** Float view of {@code count} floats at a device address; null for address 0. */
    EmulatedKernels.Floats floats(long address, long count) {
        return address == 0 ? null : new EmulatedKernels.Floats(deviceRange(address, 4 * count));
    }

    EmulatedKernels.Doubles doubles(long address, long count) {
        return new EmulatedKernels.Doubles(deviceRange(address, 8 * count));
    }

    synchronized long liveDeviceBlocks() {
        return deviceBlocks.size();
    }

    synchronized long livePinnedBlocks() {
        return pinnedBlocks.size();
    }

    private void requireContext() {
        Long c = currentContext.get();
        if (c == null || c != context.address()) {
            throw new Refused(
                    CuResult.ERROR_INVALID_CONTEXT,
                    "no current context on thread " + Thread.currentThread().getName());
        }
    }

    private void requireStream(MemorySegment stream) {
        if (!streams.contains(stream.address())) {
            throw new Refused(CuResult.ERROR_INVALID_HANDLE, "unknown stream 0x" + Long.toHexString(stream.address()));
        }
    }

    private synchronized long handle() {
        nextHandle += 0x10;
        return nextHandle;
    }

    private static void putInt(MemorySegment out, int value) {
        out.reinterpret(4).set(JAVA_INT, 0, value);
    }

    private static void putLong(MemorySegment out, long value) {
        out.reinterpret(8).set(JAVA_LONG, 0, value);
    }

    private static void putAddress(MemorySegment out, long value) {
        out.reinterpret(8).set(ADDRESS, 0, MemorySegment.ofAddress(value));
    }

    // ================================================================ driver API

    int cuInit(int flags) {
        if (flags != 0) {
            return CuResult.ERROR_INVALID_VALUE;
        }
        return initResult;
    }

    int cuDriverGetVersion(MemorySegment out) {
        putInt(out, driverVersion);
        return 0;
    }

    int cuGetErrorName(int code, MemorySegment out) {
        putAddress(out, arena.allocateFrom(CuResult.name(code)).address());
        return 0;
    }

    int cuDeviceGetCount(MemorySegment out) {
        if (initResult != 0) {
            return CuResult.ERROR_NOT_INITIALIZED;
        }
        putInt(out, deviceCount);
        return 0;
    }

    int cuDeviceGet(MemorySegment out, int ordinal) {
        if (ordinal < 0 || ordinal >= deviceCount) {
            return 101; // CUDA_ERROR_INVALID_DEVICE
        }
        putInt(out, ordinal);
        return 0;
    }

    int cuDeviceGetName(MemorySegment out, int length, int device) {
        byte[] name = deviceName.getBytes(StandardCharsets.UTF_8);
        MemorySegment o = out.reinterpret(length);
        int n = Math.min(name.length, length - 1);
        MemorySegment.copy(name, 0, o, JAVA_BYTE, 0, n);
        o.set(JAVA_BYTE, n, (byte) 0);
        return 0;
    }

    int cuDeviceGetAttribute(MemorySegment out, int attribute, int device) {
        int value =
                switch (attribute) {
                    case CudaDriver.ATTRIBUTE_MULTIPROCESSOR_COUNT -> multiprocessors;
                    case CudaDriver.ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR -> computeMajor;
                    case CudaDriver.ATTRIBUTE_COMPUTE_CAPABILITY_MINOR -> computeMinor;
                    default -> 0;
                };
        putInt(out, value);
        return 0;
    }

    int cuDeviceTotalMem_v2(MemorySegment out, int device) {
        putLong(out, 1L << 30);
        return 0;
    }

    synchronized int cuDevicePrimaryCtxRetain(MemorySegment out, int device) {
        contextRetains++;
        putAddress(out, context.address());
        return 0;
    }

    synchronized int cuDevicePrimaryCtxRelease_v2(int device) {
        contextReleases++;
        return contextReleases > contextRetains ? CuResult.ERROR_INVALID_VALUE : 0;
    }

    synchronized int cuCtxSetCurrent(MemorySegment ctx) {
        if (ctx.address() != context.address()) {
            return 201;
        }
        contextSwitches++;
        currentContext.set(ctx.address());
        return 0;
    }

    synchronized int cuMemAlloc_v2(MemorySegment out, long bytes) {
        requireContext();
        if (bytes <= 0) {
            return CuResult.ERROR_INVALID_VALUE;
        }
        if (deviceBytes + bytes > memoryLimit) {
            return CuResult.ERROR_OUT_OF_MEMORY;
        }
        MemorySegment block = arena.allocate(bytes, 256);
        block.fill((byte) 0xFF); // NaN in every float: uninitialized memory holds anything
        deviceBlocks.put(block.address(), block);
        deviceBytes += bytes;
        memAllocs++;
        putLong(out, block.address());
        return 0;
    }

    synchronized int cuMemFree_v2(long address) {
        requireContext();
        MemorySegment block = deviceBlocks.remove(address);
        if (block == null) {
            throw new Refused(
                    CuResult.ERROR_INVALID_VALUE,
                    "cuMemFree of 0x" + Long.toHexString(address) + ", which is not an allocated block (double free?)");
        }
        deviceBytes -= block.byteSize();
        memFrees++;
        return 0;
    }

    int cuMemGetInfo_v2(MemorySegment free, MemorySegment total) {
        requireContext();
        putLong(total, 1L << 30);
        putLong(free, (1L << 30) - deviceBytes);
        return 0;
    }

    synchronized int cuMemAllocHost_v2(MemorySegment out, long bytes) {
        requireContext();
        MemorySegment block = arena.allocate(bytes, 4096);
        pinnedBlocks.put(block.address(), block);
        hostAllocs++;
        putAddress(out, block.address());
        return 0;
    }

    synchronized int cuMemFreeHost(MemorySegment host) {
        requireContext();
        if (pinnedBlocks.remove(host.address()) == null) {
            throw new Refused(
                    CuResult.ERROR_INVALID_VALUE, "cuMemFreeHost of unknown 0x" + Long.toHexString(host.address()));
        }
        hostFrees++;
        return 0;
    }

    int cuMemcpyHtoDAsync_v2(long dst, MemorySegment src, long bytes, MemorySegment stream) {
        requireContext();
        requireStream(stream);
        MemorySegment.copy(pinnedRange(src, bytes), 0, deviceRange(dst, bytes), 0, bytes);
        synchronized (this) {
            hostToDeviceBytes += bytes;
        }
        return 0;
    }

    int cuMemcpyDtoHAsync_v2(MemorySegment dst, long src, long bytes, MemorySegment stream) {
        requireContext();
        requireStream(stream);
        MemorySegment.copy(deviceRange(src, bytes), 0, pinnedRange(dst, bytes), 0, bytes);
        synchronized (this) {
            deviceToHostBytes += bytes;
        }
        return 0;
    }

    int cuMemcpyDtoDAsync_v2(long dst, long src, long bytes, MemorySegment stream) {
        requireContext();
        requireStream(stream);
        MemorySegment s = deviceRange(src, bytes), d = deviceRange(dst, bytes);
        if (src < dst + bytes && dst < src + bytes && src != dst) {
            throw new IllegalStateException("overlapping device-to-device copy, undefined in CUDA");
        }
        MemorySegment.copy(s, 0, d, 0, bytes);
        return 0;
    }

    int cuMemsetD32Async(long dst, int value, long count, MemorySegment stream) {
        requireContext();
        requireStream(stream);
        if (dst % 4 != 0) {
            return CuResult.ERROR_INVALID_VALUE;
        }
        MemorySegment d = deviceRange(dst, 4 * count);
        for (long i = 0; i < count; i++) {
            d.setAtIndex(JAVA_INT, i, value);
        }
        return 0;
    }

    synchronized int cuModuleLoadDataEx(
            MemorySegment out, MemorySegment image, int numOptions, MemorySegment options, MemorySegment values) {
        requireContext();
        String ptx = image.reinterpret(Integer.MAX_VALUE).getString(0, StandardCharsets.US_ASCII);
        if (!ptx.contains(".version") || !ptx.contains(".target")) {
            return CuResult.ERROR_INVALID_PTX;
        }
        long h = handle();
        modules.put(h, PtxEntries.parse(ptx));
        putAddress(out, h);
        return 0;
    }

    synchronized int cuModuleGetFunction(MemorySegment out, MemorySegment module, MemorySegment name) {
        requireContext();
        Map<String, List<String>> entries = modules.get(module.address());
        if (entries == null) {
            return CuResult.ERROR_INVALID_VALUE;
        }
        String n = name.reinterpret(256).getString(0, StandardCharsets.US_ASCII);
        List<String> params = entries.get(n);
        if (params == null) {
            return CuResult.ERROR_NOT_FOUND;
        }
        long h = handle();
        functionNames.put(h, n);
        functionParams.put(h, params);
        putAddress(out, h);
        return 0;
    }

    synchronized int cuModuleUnload(MemorySegment module) {
        requireContext();
        return modules.remove(module.address()) == null ? CuResult.ERROR_INVALID_VALUE : 0;
    }

    int cuLaunchKernel(
            MemorySegment f,
            int gridX,
            int gridY,
            int gridZ,
            int blockX,
            int blockY,
            int blockZ,
            int sharedBytes,
            MemorySegment stream,
            MemorySegment params,
            MemorySegment extra) {
        requireContext();
        requireStream(stream);
        String name;
        List<String> types;
        synchronized (this) {
            name = functionNames.get(f.address());
            types = functionParams.get(f.address());
        }
        if (name == null) {
            return CuResult.ERROR_INVALID_VALUE;
        }
        if (gridX < 1 || gridY < 1 || gridZ != 1 || blockZ != 1 || gridY > 65535) {
            return CuResult.ERROR_INVALID_VALUE;
        }
        if ((long) blockX * blockY > 256) {
            return CuResult.ERROR_INVALID_VALUE; // every kernel is compiled with .maxntid 256
        }
        if (!extra.equals(MemorySegment.NULL) || sharedBytes != 0) {
            return CuResult.ERROR_INVALID_VALUE;
        }
        MemorySegment pointers = params.reinterpret(8L * types.size());
        Object[] values = new Object[types.size()];
        for (int i = 0; i < types.size(); i++) {
            MemorySegment slot = pointers.getAtIndex(ADDRESS, i).reinterpret(8);
            values[i] = switch (types.get(i)) {
                case ".u64", ".s64", ".b64" -> slot.get(JAVA_LONG, 0);
                case ".u32", ".s32", ".b32" -> slot.get(JAVA_INT, 0);
                case ".f32" -> slot.get(JAVA_FLOAT, 0);
                case ".f64" -> slot.get(JAVA_DOUBLE, 0);
                default -> throw new IllegalStateException("PTX parameter type " + types.get(i));
            };
        }
        kernels.run(name, new EmulatedKernels.Grid(gridX, gridY, blockX, blockY), new EmulatedKernels.Args(values));
        launches.merge(name, 1, Integer::sum);
        return 0;
    }

    synchronized int cuStreamCreate(MemorySegment out, int flags) {
        requireContext();
        long h = handle();
        streams.add(h);
        putAddress(out, h);
        return 0;
    }

    int cuStreamSynchronize(MemorySegment stream) {
        requireContext();
        requireStream(stream);
        return 0;
    }

    synchronized int cuStreamDestroy_v2(MemorySegment stream) {
        requireContext();
        return streams.remove(stream.address()) ? 0 : CuResult.ERROR_INVALID_VALUE;
    }

    synchronized int cuEventCreate(MemorySegment out, int flags) {
        requireContext();
        long h = handle();
        events.add(h);
        putAddress(out, h);
        return 0;
    }

    int cuEventRecord(MemorySegment event, MemorySegment stream) {
        requireContext();
        requireStream(stream);
        return events.contains(event.address()) ? 0 : CuResult.ERROR_INVALID_VALUE;
    }

    int cuEventSynchronize(MemorySegment event) {
        return events.contains(event.address()) ? 0 : CuResult.ERROR_INVALID_VALUE;
    }

    int cuEventElapsedTime_v2(MemorySegment out, MemorySegment start, MemorySegment end) {
        out.reinterpret(4).set(JAVA_FLOAT, 0, 0.5f);
        return 0;
    }

    synchronized int cuEventDestroy_v2(MemorySegment event) {
        return events.remove(event.address()) ? 0 : CuResult.ERROR_INVALID_VALUE;
    }

    synchronized int liveEvents() {
        return events.size();
    }

    synchronized int liveStreams() {
        return streams.size();
    }

    synchronized int liveModules() {
        return modules.size();
    }

    // ================================================================ cuBLAS

    int cublasGetProperty(int type, MemorySegment out) {
        putInt(out, type == CublasFunction.MAJOR_VERSION ? 13 : type == CublasFunction.MINOR_VERSION ? 0 : 2);
        return 0;
    }

    synchronized int cublasCreate_v2(MemorySegment out) {
        requireContext();
        long h = handle();
        blasHandles.add(h);
        putAddress(out, h);
        return 0;
    }

    synchronized int cublasDestroy_v2(MemorySegment handle) {
        return blasHandles.remove(handle.address()) ? 0 : 1;
    }

    synchronized int cublasSetStream_v2(MemorySegment handle, MemorySegment stream) {
        requireStream(stream);
        return blasHandles.contains(handle.address()) ? 0 : 1;
    }

    int cublasSetMathMode(MemorySegment handle, int mode) {
        return mode == CublasFunction.DEFAULT_MATH ? 0 : 7;
    }

    synchronized int liveBlasHandles() {
        return blasHandles.size();
    }

    int cublasSgemm_v2(
            MemorySegment handle,
            int transA,
            int transB,
            int m,
            int n,
            int k,
            MemorySegment alpha,
            MemorySegment a,
            int lda,
            MemorySegment b,
            int ldb,
            MemorySegment beta,
            MemorySegment c,
            int ldc) {
        requireContext();
        synchronized (this) {
            sgemms++;
        }
        return gemm(transA, transB, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc, CublasFunction.COMPUTE_32F);
    }

    int cublasGemmEx(
            MemorySegment handle,
            int transA,
            int transB,
            int m,
            int n,
            int k,
            MemorySegment alpha,
            MemorySegment a,
            int aType,
            int lda,
            MemorySegment b,
            int bType,
            int ldb,
            MemorySegment beta,
            MemorySegment c,
            int cType,
            int ldc,
            int computeType,
            int algo) {
        requireContext();
        if (aType != CublasFunction.CUDA_R_32F
                || bType != CublasFunction.CUDA_R_32F
                || cType != CublasFunction.CUDA_R_32F) {
            return 7;
        }
        if (computeType != CublasFunction.COMPUTE_32F_FAST_TF32
                && computeType != CublasFunction.COMPUTE_32F_FAST_16BF) {
            return 7;
        }
        synchronized (this) {
            gemmExs++;
            lastComputeType = computeType;
        }
        return gemm(transA, transB, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc, computeType);
    }

    /**
     * Column-major {@code C = alpha op(A) op(B) + beta C} as the BLAS reference defines it,
     * including its argument checks ({@code CUBLAS_STATUS_INVALID_VALUE}). The fast compute types
     * round the inputs to TF32 or bfloat16 first.
     */
    private int gemm(
            int transA,
            int transB,
            int m,
            int n,
            int k,
            MemorySegment alphaPtr,
            MemorySegment aPtr,
            int lda,
            MemorySegment bPtr,
            int ldb,
            MemorySegment betaPtr,
            MemorySegment cPtr,
            int ldc,
            int computeType) {
        boolean ta = transA == CublasFunction.OP_T, tb = transB == CublasFunction.OP_T;
        if ((transA != 0 && transA != 1) || (transB != 0 && transB != 1) || m < 0 || n < 0 || k < 0) {
            return 7;
        }
        int aRows = ta ? k : m, aCols = ta ? m : k, bRows = tb ? n : k, bCols = tb ? k : n;
        if (lda < Math.max(1, aRows) || ldb < Math.max(1, bRows) || ldc < Math.max(1, m)) {
            return 7;
        }
        if (m == 0 || n == 0) {
            return 0;
        }
        float alpha = alphaPtr.reinterpret(4).get(JAVA_FLOAT, 0);
        float beta = betaPtr.reinterpret(4).get(JAVA_FLOAT, 0);
        EmulatedKernels.Floats a = k == 0 ? null : floats(aPtr.address(), (long) lda * (aCols - 1) + aRows);
        EmulatedKernels.Floats b = k == 0 ? null : floats(bPtr.address(), (long) ldb * (bCols - 1) + bRows);
        EmulatedKernels.Floats c = floats(cPtr.address(), (long) ldc * (n - 1) + m);
        for (int j = 0; j < n; j++) {
            for (int i = 0; i < m; i++) {
                double s = 0;
                for (int p = 0; p < k; p++) {
                    float av = ta ? a.get(p + (long) i * lda) : a.get(i + (long) p * lda);
                    float bv = tb ? b.get(j + (long) p * ldb) : b.get(p + (long) j * ldb);
                    s += (double) round(av, computeType) * round(bv, computeType);
                }
                long ci = i + (long) j * ldc;
                double prior = beta == 0f ? 0 : (double) beta * c.get(ci);
                c.set(ci, (float) (alpha * s + prior));
            }
        }
        return 0;
    }

    /** Rounds to the mantissa width of the compute type (to nearest, ties away; close enough here). */
    static float round(float x, int computeType) {
        int dropped =
                switch (computeType) {
                    case CublasFunction.COMPUTE_32F_FAST_TF32 -> 13;
                    case CublasFunction.COMPUTE_32F_FAST_16BF -> 16;
                    default -> 0;
                };
        if (dropped == 0 || !Float.isFinite(x)) {
            return x;
        }
        int bits = Float.floatToRawIntBits(x);
        bits += 1 << (dropped - 1);
        bits &= -(1 << dropped);
        return Float.intBitsToFloat(bits);
    }

    @Override
    public void close() {
        arena.close();
    }
}
