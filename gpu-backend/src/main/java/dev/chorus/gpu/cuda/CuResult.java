package dev.chorus.gpu.cuda;

import java.util.Map;

/**
 * Names and one-line meanings of the CUDA driver's {@code CUresult} codes, from {@code enum
 * cudaError_enum} in {@code cuda.h} (CUDA 13.0). Kept here rather than asked of the driver, so that
 * an error can be named even when the driver could not be loaded or is the wrong version.
 */
public final class CuResult {

    public static final int SUCCESS = 0;
    public static final int ERROR_INVALID_VALUE = 1;
    public static final int ERROR_OUT_OF_MEMORY = 2;
    public static final int ERROR_NOT_INITIALIZED = 3;
    public static final int ERROR_STUB_LIBRARY = 34;
    public static final int ERROR_NO_DEVICE = 100;
    public static final int ERROR_INVALID_DEVICE = 101;
    public static final int ERROR_INVALID_CONTEXT = 201;
    public static final int ERROR_INVALID_PTX = 218;
    public static final int ERROR_UNSUPPORTED_PTX_VERSION = 222;
    public static final int ERROR_INVALID_HANDLE = 400;
    public static final int ERROR_NOT_FOUND = 500;
    public static final int ERROR_NOT_READY = 600;
    public static final int ERROR_ILLEGAL_ADDRESS = 700;
    public static final int ERROR_LAUNCH_FAILED = 719;
    public static final int ERROR_NOT_SUPPORTED = 801;
    public static final int ERROR_SYSTEM_DRIVER_MISMATCH = 803;
    public static final int ERROR_UNKNOWN = 999;

    private record Entry(String name, String meaning) {}

    private static final Map<Integer, Entry> CODES = Map.ofEntries(
            e(0, "CUDA_SUCCESS", "no error"),
            e(1, "CUDA_ERROR_INVALID_VALUE", "an argument is out of range"),
            e(2, "CUDA_ERROR_OUT_OF_MEMORY", "out of device memory"),
            e(3, "CUDA_ERROR_NOT_INITIALIZED", "the driver was not initialized with cuInit"),
            e(4, "CUDA_ERROR_DEINITIALIZED", "the driver is shutting down"),
            e(5, "CUDA_ERROR_PROFILER_DISABLED", "the profiler is disabled"),
            e(6, "CUDA_ERROR_PROFILER_NOT_INITIALIZED", "the profiler is not initialized"),
            e(7, "CUDA_ERROR_PROFILER_ALREADY_STARTED", "the profiler is already started"),
            e(8, "CUDA_ERROR_PROFILER_ALREADY_STOPPED", "the profiler is already stopped"),
            e(34, "CUDA_ERROR_STUB_LIBRARY", "libcuda is the toolkit's stub library, not a real driver"),
            e(36, "CUDA_ERROR_CALL_REQUIRES_NEWER_DRIVER", "the call needs a newer driver"),
            e(46, "CUDA_ERROR_DEVICE_UNAVAILABLE", "the device is busy or unavailable (e.g. exclusive mode)"),
            e(100, "CUDA_ERROR_NO_DEVICE", "no CUDA-capable device is detected"),
            e(101, "CUDA_ERROR_INVALID_DEVICE", "invalid device ordinal"),
            e(102, "CUDA_ERROR_DEVICE_NOT_LICENSED", "the device is not licensed for this use"),
            e(200, "CUDA_ERROR_INVALID_IMAGE", "the kernel image is invalid"),
            e(201, "CUDA_ERROR_INVALID_CONTEXT", "no valid context is current"),
            e(202, "CUDA_ERROR_CONTEXT_ALREADY_CURRENT", "the context is already current"),
            e(205, "CUDA_ERROR_MAP_FAILED", "a map or register operation failed"),
            e(206, "CUDA_ERROR_UNMAP_FAILED", "an unmap or unregister operation failed"),
            e(207, "CUDA_ERROR_ARRAY_IS_MAPPED", "the array is mapped"),
            e(208, "CUDA_ERROR_ALREADY_MAPPED", "the resource is already mapped"),
            e(209, "CUDA_ERROR_NO_BINARY_FOR_GPU", "no kernel image is available for this device"),
            e(210, "CUDA_ERROR_ALREADY_ACQUIRED", "the resource is already acquired"),
            e(211, "CUDA_ERROR_NOT_MAPPED", "the resource is not mapped"),
            e(212, "CUDA_ERROR_NOT_MAPPED_AS_ARRAY", "the resource is not mapped as an array"),
            e(213, "CUDA_ERROR_NOT_MAPPED_AS_POINTER", "the resource is not mapped as a pointer"),
            e(214, "CUDA_ERROR_ECC_UNCORRECTABLE", "an uncorrectable ECC error was detected"),
            e(215, "CUDA_ERROR_UNSUPPORTED_LIMIT", "the limit is not supported by this device"),
            e(216, "CUDA_ERROR_CONTEXT_ALREADY_IN_USE", "the context is already in use by another thread"),
            e(217, "CUDA_ERROR_PEER_ACCESS_UNSUPPORTED", "peer access is not supported"),
            e(218, "CUDA_ERROR_INVALID_PTX", "the PTX failed to compile"),
            e(219, "CUDA_ERROR_INVALID_GRAPHICS_CONTEXT", "invalid graphics context"),
            e(220, "CUDA_ERROR_NVLINK_UNCORRECTABLE", "an uncorrectable NVLink error was detected"),
            e(221, "CUDA_ERROR_JIT_COMPILER_NOT_FOUND", "the PTX JIT compiler library was not found"),
            e(222, "CUDA_ERROR_UNSUPPORTED_PTX_VERSION", "the PTX is newer than this driver supports"),
            e(223, "CUDA_ERROR_JIT_COMPILATION_DISABLED", "PTX JIT compilation is disabled"),
            e(224, "CUDA_ERROR_UNSUPPORTED_EXEC_AFFINITY", "the execution affinity is not supported"),
            e(225, "CUDA_ERROR_UNSUPPORTED_DEVSIDE_SYNC", "device-side synchronization is not supported"),
            e(226, "CUDA_ERROR_CONTAINED", "an exception was contained on the device"),
            e(300, "CUDA_ERROR_INVALID_SOURCE", "the kernel source is invalid"),
            e(301, "CUDA_ERROR_FILE_NOT_FOUND", "file not found"),
            e(302, "CUDA_ERROR_SHARED_OBJECT_SYMBOL_NOT_FOUND", "a shared object symbol was not found"),
            e(303, "CUDA_ERROR_SHARED_OBJECT_INIT_FAILED", "a shared object failed to initialize"),
            e(304, "CUDA_ERROR_OPERATING_SYSTEM", "an operating system call failed"),
            e(400, "CUDA_ERROR_INVALID_HANDLE", "invalid resource handle"),
            e(401, "CUDA_ERROR_ILLEGAL_STATE", "the resource is in an illegal state"),
            e(402, "CUDA_ERROR_LOSSY_QUERY", "the query would lose information"),
            e(500, "CUDA_ERROR_NOT_FOUND", "a named symbol was not found"),
            e(600, "CUDA_ERROR_NOT_READY", "the asynchronous work has not completed"),
            e(700, "CUDA_ERROR_ILLEGAL_ADDRESS", "a kernel accessed an illegal memory address"),
            e(701, "CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES", "too many resources requested for the launch"),
            e(702, "CUDA_ERROR_LAUNCH_TIMEOUT", "the kernel timed out"),
            e(703, "CUDA_ERROR_LAUNCH_INCOMPATIBLE_TEXTURING", "incompatible texturing mode"),
            e(704, "CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED", "peer access is already enabled"),
            e(705, "CUDA_ERROR_PEER_ACCESS_NOT_ENABLED", "peer access is not enabled"),
            e(708, "CUDA_ERROR_PRIMARY_CONTEXT_ACTIVE", "the primary context is already active"),
            e(709, "CUDA_ERROR_CONTEXT_IS_DESTROYED", "the context was destroyed"),
            e(710, "CUDA_ERROR_ASSERT", "a device-side assertion failed"),
            e(711, "CUDA_ERROR_TOO_MANY_PEERS", "too many peer devices"),
            e(712, "CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED", "the host memory is already registered"),
            e(713, "CUDA_ERROR_HOST_MEMORY_NOT_REGISTERED", "the host memory is not registered"),
            e(714, "CUDA_ERROR_HARDWARE_STACK_ERROR", "a device hardware stack error"),
            e(715, "CUDA_ERROR_ILLEGAL_INSTRUCTION", "a kernel executed an illegal instruction"),
            e(716, "CUDA_ERROR_MISALIGNED_ADDRESS", "a kernel accessed a misaligned address"),
            e(717, "CUDA_ERROR_INVALID_ADDRESS_SPACE", "a kernel used an invalid address space"),
            e(718, "CUDA_ERROR_INVALID_PC", "a kernel's program counter became invalid"),
            e(719, "CUDA_ERROR_LAUNCH_FAILED", "a kernel failed while executing"),
            e(720, "CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE", "the cooperative launch is too large"),
            e(721, "CUDA_ERROR_TENSOR_MEMORY_LEAK", "a kernel leaked tensor memory"),
            e(800, "CUDA_ERROR_NOT_PERMITTED", "the operation is not permitted"),
            e(801, "CUDA_ERROR_NOT_SUPPORTED", "the operation is not supported on this system or device"),
            e(802, "CUDA_ERROR_SYSTEM_NOT_READY", "the system is not ready (is the fabric manager running?)"),
            e(803, "CUDA_ERROR_SYSTEM_DRIVER_MISMATCH", "the driver library and the kernel module differ in version"),
            e(
                    804,
                    "CUDA_ERROR_COMPAT_NOT_SUPPORTED_ON_DEVICE",
                    "forward compatibility is not supported on this device"),
            e(805, "CUDA_ERROR_MPS_CONNECTION_FAILED", "could not connect to the MPS server"),
            e(806, "CUDA_ERROR_MPS_RPC_FAILURE", "an MPS remote call failed"),
            e(807, "CUDA_ERROR_MPS_SERVER_NOT_READY", "the MPS server is not ready"),
            e(808, "CUDA_ERROR_MPS_MAX_CLIENTS_REACHED", "the MPS server has too many clients"),
            e(809, "CUDA_ERROR_MPS_MAX_CONNECTIONS_REACHED", "the MPS server has too many connections"),
            e(810, "CUDA_ERROR_MPS_CLIENT_TERMINATED", "the MPS client was terminated"),
            e(811, "CUDA_ERROR_CDP_NOT_SUPPORTED", "dynamic parallelism is not supported"),
            e(812, "CUDA_ERROR_CDP_VERSION_MISMATCH", "dynamic parallelism version mismatch"),
            e(900, "CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED", "not allowed while a stream is captured"),
            e(901, "CUDA_ERROR_STREAM_CAPTURE_INVALIDATED", "the stream capture was invalidated"),
            e(902, "CUDA_ERROR_STREAM_CAPTURE_MERGE", "a capture would merge two independent captures"),
            e(903, "CUDA_ERROR_STREAM_CAPTURE_UNMATCHED", "the capture was not begun in this stream"),
            e(904, "CUDA_ERROR_STREAM_CAPTURE_UNJOINED", "a forked capture was not joined"),
            e(905, "CUDA_ERROR_STREAM_CAPTURE_ISOLATION", "a dependency would cross the capture boundary"),
            e(906, "CUDA_ERROR_STREAM_CAPTURE_IMPLICIT", "implicit dependency on a captured stream"),
            e(907, "CUDA_ERROR_CAPTURED_EVENT", "not allowed on an event recorded in a capture"),
            e(908, "CUDA_ERROR_STREAM_CAPTURE_WRONG_THREAD", "the capture belongs to another thread"),
            e(909, "CUDA_ERROR_TIMEOUT", "the wait timed out"),
            e(910, "CUDA_ERROR_GRAPH_EXEC_UPDATE_FAILURE", "the graph update was not possible"),
            e(911, "CUDA_ERROR_EXTERNAL_DEVICE", "an external device reported an error"),
            e(912, "CUDA_ERROR_INVALID_CLUSTER_SIZE", "invalid cluster size"),
            e(913, "CUDA_ERROR_FUNCTION_NOT_LOADED", "the function is not loaded"),
            e(914, "CUDA_ERROR_INVALID_RESOURCE_TYPE", "invalid resource type"),
            e(915, "CUDA_ERROR_INVALID_RESOURCE_CONFIGURATION", "invalid resource configuration"),
            e(916, "CUDA_ERROR_KEY_ROTATION", "a key rotation error occurred"),
            e(999, "CUDA_ERROR_UNKNOWN", "unknown error"));

    private CuResult() {}

    private static Map.Entry<Integer, Entry> e(int code, String name, String meaning) {
        return Map.entry(code, new Entry(name, meaning));
    }

    /** The symbolic name, e.g. {@code CUDA_ERROR_NO_DEVICE}; {@code CUresult 12345} when unknown. */
    public static String name(int code) {
        Entry e = CODES.get(code);
        return e == null ? "CUresult " + code : e.name();
    }

    /** {@code NAME (meaning)}, e.g. {@code CUDA_ERROR_NO_DEVICE (no CUDA-capable device is detected)}. */
    public static String describe(int code) {
        Entry e = CODES.get(code);
        return e == null
                ? "CUresult " + code + " (unknown to this version of Chorus)"
                : e.name() + " (" + e.meaning() + ")";
    }

    /** Every code this table knows, for tests against {@code cuda.h}. */
    static Map<Integer, String> names() {
        java.util.Map<Integer, String> out = new java.util.TreeMap<>();
        CODES.forEach((code, entry) -> out.put(code, entry.name()));
        return out;
    }

    /**
     * Throws unless {@code status} is {@link #SUCCESS}; out-of-memory becomes a {@link
     * DeviceOutOfMemoryException}.
     */
    public static void check(int status, String call) {
        if (status != SUCCESS) {
            throw failure(status, call);
        }
    }

    /** The exception for a failed call. */
    public static CudaException failure(int status, String call) {
        String message = call + " failed: " + describe(status);
        return status == ERROR_OUT_OF_MEMORY
                ? new DeviceOutOfMemoryException(call, status, message)
                : new CudaException(call, status, message);
    }
}
