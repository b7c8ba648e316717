package dev.chorus.gpu.cuda;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_FLOAT;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SymbolLookup;
import java.lang.invoke.MethodHandle;
import java.nio.charset.StandardCharsets;
import java.util.EnumMap;
import java.util.Map;

/**
 * Typed calls into the CUDA driver API through downcall handles, one per {@link DriverFunction}.
 * Every method checks the returned {@code CUresult} and throws {@link CudaException} naming the
 * call; methods named {@code try...} return the raw code instead. Handles ({@code CUcontext},
 * {@code CUstream}, ...) are {@link MemorySegment}s of size zero; device pointers are {@code long}.
 *
 * <p>All handles are created in the constructor, so a driver that lacks a needed entry point is
 * reported at once, by name.
 */
public final class CudaDriver {

    /** {@code CU_DEVICE_ATTRIBUTE_*} values used here. */
    public static final int ATTRIBUTE_MULTIPROCESSOR_COUNT = 16;

    public static final int ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR = 75;
    public static final int ATTRIBUTE_COMPUTE_CAPABILITY_MINOR = 76;

    /** {@code CU_STREAM_NON_BLOCKING}: no implicit synchronization with the legacy default stream. */
    public static final int STREAM_NON_BLOCKING = 0x1;

    /** {@code CU_EVENT_DEFAULT} and {@code CU_EVENT_DISABLE_TIMING}. */
    public static final int EVENT_DEFAULT = 0x0;

    public static final int EVENT_DISABLE_TIMING = 0x2;

    /** {@code CU_JIT_ERROR_LOG_BUFFER} and {@code CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES}. */
    public static final int JIT_ERROR_LOG_BUFFER = 5;

    public static final int JIT_ERROR_LOG_BUFFER_SIZE_BYTES = 6;

    private final Map<DriverFunction, MethodHandle> handles = new EnumMap<>(DriverFunction.class);
    private final MethodHandle launchKernel;
    private final MethodHandle memcpyHtoDAsync;
    private final MethodHandle memcpyDtoHAsync;
    private final MethodHandle memcpyDtoDAsync;
    private final MethodHandle memsetD32Async;
    private final MethodHandle streamSynchronize;
    private final MethodHandle eventRecord;
    private final MethodHandle eventSynchronize;
    private final MethodHandle ctxSetCurrent;

    /**
     * Binds every {@link DriverFunction} in {@code lookup}.
     *
     * @param library the library's name, for messages
     * @throws UnsatisfiedLinkError naming the first missing symbol
     */
    public CudaDriver(SymbolLookup lookup, String library) {
        for (DriverFunction f : DriverFunction.values()) {
            handles.put(f, NativeFunction.bind(lookup, library, f));
        }
        launchKernel = handles.get(DriverFunction.CU_LAUNCH_KERNEL);
        memcpyHtoDAsync = handles.get(DriverFunction.CU_MEMCPY_HTOD_ASYNC);
        memcpyDtoHAsync = handles.get(DriverFunction.CU_MEMCPY_DTOH_ASYNC);
        memcpyDtoDAsync = handles.get(DriverFunction.CU_MEMCPY_DTOD_ASYNC);
        memsetD32Async = handles.get(DriverFunction.CU_MEMSET_D32_ASYNC);
        streamSynchronize = handles.get(DriverFunction.CU_STREAM_SYNCHRONIZE);
        eventRecord = handles.get(DriverFunction.CU_EVENT_RECORD);
        eventSynchronize = handles.get(DriverFunction.CU_EVENT_SYNCHRONIZE);
        ctxSetCurrent = handles.get(DriverFunction.CU_CTX_SET_CURRENT);
    }

    private MethodHandle h(DriverFunction f) {
        return handles.get(f);
    }

    /** Rethrows what a downcall threw: errors and runtime exceptions as they are. */
    private static RuntimeException rethrow(Throwable t) {
        if (t instanceof RuntimeException r) {
            return r;
        }
        if (t instanceof Error e) {
            throw e;
        }
        return new IllegalStateException(t);
    }

    // ---------------------------------------------------------------- initialization and devices

    /** {@code cuInit(0)}, returning the raw code (the availability probe names failures itself). */
    public int tryInit() {
        try {
            return (int) h(DriverFunction.CU_INIT).invokeExact(0);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /** The CUDA version the driver supports, e.g. {@code 13000} for 13.0. */
    public int driverVersion() {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment out = arena.allocate(JAVA_INT);
            CuResult.check((int) h(DriverFunction.CU_DRIVER_GET_VERSION).invokeExact(out), "cuDriverGetVersion");
            return out.get(JAVA_INT, 0);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /** The driver's own name for a code, or empty when it does not know it. */
    public String errorName(int code) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment out = arena.allocate(ADDRESS);
            int r = (int) h(DriverFunction.CU_GET_ERROR_NAME).invokeExact(code, out);
            if (r != CuResult.SUCCESS) {
                return "";
            }
            MemorySegment p = out.get(ADDRESS, 0);
            return p.equals(MemorySegment.NULL) ? "" : p.reinterpret(256).getString(0, StandardCharsets.US_ASCII);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /** {@code cuDeviceGetCount}, returning the raw code and writing the count into {@code count[0]}. */
    public int tryDeviceCount(int[] count) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment out = arena.allocate(JAVA_INT);
            int r = (int) h(DriverFunction.CU_DEVICE_GET_COUNT).invokeExact(out);
            count[0] = out.get(JAVA_INT, 0);
            return r;
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /** The {@code CUdevice} of an ordinal. */
    public int device(int ordinal) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment out = arena.allocate(JAVA_INT);
            CuResult.check((int) h(DriverFunction.CU_DEVICE_GET).invokeExact(out, ordinal), "cuDeviceGet");
            return out.get(JAVA_INT, 0);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    public String deviceName(int device) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment out = arena.allocate(256);
            CuResult.check((int) h(DriverFunction.CU_DEVICE_GET_NAME).invokeExact(out, 256, device), "cuDeviceGetName");
            return out.getString(0, StandardCharsets.UTF_8);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    public int deviceAttribute(int device, int attribute) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment out = arena.allocate(JAVA_INT);
            CuResult.check(
                    (int) h(DriverFunction.CU_DEVICE_GET_ATTRIBUTE).invokeExact(out, attribute, device),
                    "cuDeviceGetAttribute");
            return out.get(JAVA_INT, 0);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    public long deviceTotalMemory(int device) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment out = arena.allocate(JAVA_LONG);
            CuResult.check((int) h(DriverFunction.CU_DEVICE_TOTAL_MEM).invokeExact(out, device), "cuDeviceTotalMem");
            return out.get(JAVA_LONG, 0);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    // ---------------------------------------------------------------- contexts

    public MemorySegment primaryContextRetain(int device) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment out = arena.allocate(ADDRESS);
            CuResult.check(
                    (int) h(DriverFunction.CU_DEVICE_PRIMARY_CTX_RETAIN).invokeExact(out, device),
                    "cuDevicePrimaryCtxRetain");
            return out.get(ADDRESS, 0);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    public void primaryContextRelease(int device) {
        try {
            CuResult.check(
                    (int) h(DriverFunction.CU_DEVICE_PRIMARY_CTX_RELEASE).invokeExact(device),
                    "cuDevicePrimaryCtxRelease");
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    public void setCurrentContext(MemorySegment context) {
        try {
            CuResult.check((int) ctxSetCurrent.invokeExact(context), "cuCtxSetCurrent");
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    // ---------------------------------------------------------------- memory

    /** {@code cuMemAlloc}; throws {@link DeviceOutOfMemoryException} when the device is full. */
    public long memAlloc(long bytes) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment out = arena.allocate(JAVA_LONG);
            CuResult.check((int) h(DriverFunction.CU_MEM_ALLOC).invokeExact(out, bytes), "cuMemAlloc");
            return out.get(JAVA_LONG, 0);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    public void memFree(long devicePointer) {
        try {
            CuResult.check((int) h(DriverFunction.CU_MEM_FREE).invokeExact(devicePointer), "cuMemFree");
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /** {@code {free, total}} bytes of the current context's device. */
    public long[] memInfo() {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment free = arena.allocate(JAVA_LONG), total = arena.allocate(JAVA_LONG);
            CuResult.check((int) h(DriverFunction.CU_MEM_GET_INFO).invokeExact(free, total), "cuMemGetInfo");
            return new long[] {free.get(JAVA_LONG, 0), total.get(JAVA_LONG, 0)};
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /** Page-locked host memory, usable by asynchronous copies; a segment of {@code bytes}. */
    public MemorySegment memAllocHost(long bytes) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment out = arena.allocate(ADDRESS);
            CuResult.check((int) h(DriverFunction.CU_MEM_ALLOC_HOST).invokeExact(out, bytes), "cuMemAllocHost");
            return out.get(ADDRESS, 0).reinterpret(bytes);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    public void memFreeHost(MemorySegment host) {
        try {
            CuResult.check((int) h(DriverFunction.CU_MEM_FREE_HOST).invokeExact(host), "cuMemFreeHost");
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    public void memcpyHtoDAsync(long dst, MemorySegment src, long bytes, MemorySegment stream) {
        try {
            CuResult.check((int) memcpyHtoDAsync.invokeExact(dst, src, bytes, stream), "cuMemcpyHtoDAsync");
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    public void memcpyDtoHAsync(MemorySegment dst, long src, long bytes, MemorySegment stream) {
        try {
            CuResult.check((int) memcpyDtoHAsync.invokeExact(dst, src, bytes, stream), "cuMemcpyDtoHAsync");
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    public void memcpyDtoDAsync(long dst, long src, long bytes, MemorySegment stream) {
        try {
            CuResult.check((int) memcpyDtoDAsync.invokeExact(dst, src, bytes, stream), "cuMemcpyDtoDAsync");
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /** Sets {@code count} 32-bit words at {@code dst} to {@code value}. */
    public void memsetD32Async(long dst, int value, long count, MemorySegment stream) {
        try {
            CuResult.check((int) memsetD32Async.invokeExact(dst, value, count, stream), "cuMemsetD32Async");
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    // ---------------------------------------------------------------- modules and launches

    /**
     * Loads a NUL-terminated PTX image; on failure the exception carries the JIT compiler's log.
     */
    public MemorySegment moduleLoadData(MemorySegment image, String what) {
        try (Arena arena = Arena.ofConfined()) {
            int logSize = 8192;
            MemorySegment log = arena.allocate(logSize);
            MemorySegment options = arena.allocate(JAVA_INT, 2);
            options.setAtIndex(JAVA_INT, 0, JIT_ERROR_LOG_BUFFER);
            options.setAtIndex(JAVA_INT, 1, JIT_ERROR_LOG_BUFFER_SIZE_BYTES);
            MemorySegment values = arena.allocate(ADDRESS, 2);
            values.setAtIndex(ADDRESS, 0, log);
            // The size option's value is passed in the pointer itself, as the driver API documents.
            values.setAtIndex(ADDRESS, 1, MemorySegment.ofAddress(logSize));
            MemorySegment out = arena.allocate(ADDRESS);
            int r = (int) h(DriverFunction.CU_MODULE_LOAD_DATA_EX).invokeExact(out, image, 2, options, values);
            if (r != CuResult.SUCCESS) {
                String jitLog = log.getString(0, StandardCharsets.UTF_8).strip().replace('\n', ' ');
                throw new CudaException(
                        "cuModuleLoadDataEx",
                        r,
                        "cuModuleLoadDataEx failed for " + what + ": " + CuResult.describe(r)
                                + (jitLog.isEmpty() ? "" : "; JIT log: " + jitLog));
            }
            return out.get(ADDRESS, 0);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    public MemorySegment moduleGetFunction(MemorySegment module, String name) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment out = arena.allocate(ADDRESS);
            MemorySegment cName = arena.allocateFrom(name);
            int r = (int) h(DriverFunction.CU_MODULE_GET_FUNCTION).invokeExact(out, module, cName);
            if (r != CuResult.SUCCESS) {
                throw new CudaException(
                        "cuModuleGetFunction", r, "cuModuleGetFunction(" + name + ") failed: " + CuResult.describe(r));
            }
            return out.get(ADDRESS, 0);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    public void moduleUnload(MemorySegment module) {
        try {
            CuResult.check((int) h(DriverFunction.CU_MODULE_UNLOAD).invokeExact(module), "cuModuleUnload");
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /**
     * {@code cuLaunchKernel} with a {@code void**} array of argument pointers and no dynamic
     * shared memory; returns the raw code so that the caller can name the kernel.
     */
    public int launchKernel(
            MemorySegment function,
            int gridX,
            int gridY,
            int gridZ,
            int blockX,
            int blockY,
            int blockZ,
            MemorySegment stream,
            MemorySegment kernelParams) {
        try {
            return (int) launchKernel.invokeExact(
                    function, gridX, gridY, gridZ, blockX, blockY, blockZ, 0, stream, kernelParams, MemorySegment.NULL);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    // ---------------------------------------------------------------- streams and events

    public MemorySegment streamCreate(int flags) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment out = arena.allocate(ADDRESS);
            CuResult.check((int) h(DriverFunction.CU_STREAM_CREATE).invokeExact(out, flags), "cuStreamCreate");
            return out.get(ADDRESS, 0);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    public void streamSynchronize(MemorySegment stream) {
        try {
            CuResult.check((int) streamSynchronize.invokeExact(stream), "cuStreamSynchronize");
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    public void streamDestroy(MemorySegment stream) {
        try {
            CuResult.check((int) h(DriverFunction.CU_STREAM_DESTROY).invokeExact(stream), "cuStreamDestroy");
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    public MemorySegment eventCreate(int flags) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment out = arena.allocate(ADDRESS);
            CuResult.check((int) h(DriverFunction.CU_EVENT_CREATE).invokeExact(out, flags), "cuEventCreate");
            return out.get(ADDRESS, 0);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    public void eventRecord(MemorySegment event, MemorySegment stream) {
        try {
            CuResult.check((int) eventRecord.invokeExact(event, stream), "cuEventRecord");
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    public void eventSynchronize(MemorySegment event) {
        try {
            CuResult.check((int) eventSynchronize.invokeExact(event), "cuEventSynchronize");
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /** Milliseconds between two recorded events (both created with timing enabled). */
    public float eventElapsedMillis(MemorySegment start, MemorySegment end) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment out = arena.allocate(JAVA_FLOAT);
            CuResult.check(
                    (int) h(DriverFunction.CU_EVENT_ELAPSED_TIME).invokeExact(out, start, end), "cuEventElapsedTime");
            return out.get(JAVA_FLOAT, 0);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    public void eventDestroy(MemorySegment event) {
        try {
            CuResult.check((int) h(DriverFunction.CU_EVENT_DESTROY).invokeExact(event), "cuEventDestroy");
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }
}
