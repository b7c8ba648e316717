package dev.chorus.gpu.cuda;

import java.lang.foreign.FunctionDescriptor;

/**
 * The CUDA driver API entry points this backend uses ({@code libcuda.so.1}, declared in {@code
 * cuda.h}). Versioned names follow the header's {@code #define}s of CUDA 13.0; the per-thread
 * default stream variants are not used, since every call names an explicit stream.
 */
public enum DriverFunction implements NativeFunction {
    CU_INIT("cuInit", NativeFunction.status(INT)),
    CU_DRIVER_GET_VERSION("cuDriverGetVersion", NativeFunction.status(PTR)),
    CU_GET_ERROR_NAME("cuGetErrorName", NativeFunction.status(INT, PTR)),
    CU_DEVICE_GET_COUNT("cuDeviceGetCount", NativeFunction.status(PTR)),
    CU_DEVICE_GET("cuDeviceGet", NativeFunction.status(PTR, INT)),
    CU_DEVICE_GET_NAME("cuDeviceGetName", NativeFunction.status(PTR, INT, INT)),
    CU_DEVICE_GET_ATTRIBUTE("cuDeviceGetAttribute", NativeFunction.status(PTR, INT, INT)),
    CU_DEVICE_TOTAL_MEM("cuDeviceTotalMem_v2", "cuDeviceTotalMem", NativeFunction.status(PTR, INT)),
    CU_DEVICE_PRIMARY_CTX_RETAIN("cuDevicePrimaryCtxRetain", NativeFunction.status(PTR, INT)),
    CU_DEVICE_PRIMARY_CTX_RELEASE(
            "cuDevicePrimaryCtxRelease_v2", "cuDevicePrimaryCtxRelease", NativeFunction.status(INT)),
    CU_CTX_SET_CURRENT("cuCtxSetCurrent", NativeFunction.status(PTR)),
    CU_MEM_ALLOC("cuMemAlloc_v2", "cuMemAlloc", NativeFunction.status(PTR, LONG)),
    CU_MEM_FREE("cuMemFree_v2", "cuMemFree", NativeFunction.status(LONG)),
    CU_MEM_GET_INFO("cuMemGetInfo_v2", "cuMemGetInfo", NativeFunction.status(PTR, PTR)),
    CU_MEM_ALLOC_HOST("cuMemAllocHost_v2", "cuMemAllocHost", NativeFunction.status(PTR, LONG)),
    CU_MEM_FREE_HOST("cuMemFreeHost", NativeFunction.status(PTR)),
    CU_MEMCPY_HTOD_ASYNC("cuMemcpyHtoDAsync_v2", "cuMemcpyHtoDAsync", NativeFunction.status(LONG, PTR, LONG, PTR)),
    CU_MEMCPY_DTOH_ASYNC("cuMemcpyDtoHAsync_v2", "cuMemcpyDtoHAsync", NativeFunction.status(PTR, LONG, LONG, PTR)),
    CU_MEMCPY_DTOD_ASYNC("cuMemcpyDtoDAsync_v2", "cuMemcpyDtoDAsync", NativeFunction.status(LONG, LONG, LONG, PTR)),
    CU_MEMSET_D32_ASYNC("cuMemsetD32Async", NativeFunction.status(LONG, INT, LONG, PTR)),
    CU_MODULE_LOAD_DATA_EX("cuModuleLoadDataEx", NativeFunction.status(PTR, PTR, INT, PTR, PTR)),
    CU_MODULE_GET_FUNCTION("cuModuleGetFunction", NativeFunction.status(PTR, PTR, PTR)),
    CU_MODULE_UNLOAD("cuModuleUnload", NativeFunction.status(PTR)),
    CU_LAUNCH_KERNEL("cuLaunchKernel", NativeFunction.status(PTR, INT, INT, INT, INT, INT, INT, INT, PTR, PTR, PTR)),
    CU_STREAM_CREATE("cuStreamCreate", NativeFunction.status(PTR, INT)),
    CU_STREAM_SYNCHRONIZE("cuStreamSynchronize", NativeFunction.status(PTR)),
    CU_STREAM_DESTROY("cuStreamDestroy_v2", "cuStreamDestroy", NativeFunction.status(PTR)),
    CU_EVENT_CREATE("cuEventCreate", NativeFunction.status(PTR, INT)),
    CU_EVENT_RECORD("cuEventRecord", NativeFunction.status(PTR, PTR)),
    CU_EVENT_SYNCHRONIZE("cuEventSynchronize", NativeFunction.status(PTR)),
    CU_EVENT_ELAPSED_TIME("cuEventElapsedTime_v2", "cuEventElapsedTime", NativeFunction.status(PTR, PTR, PTR)),
    CU_EVENT_DESTROY("cuEventDestroy_v2", "cuEventDestroy", NativeFunction.status(PTR));

    private final String symbol;
    private final String headerName;
    private final FunctionDescriptor descriptor;

    DriverFunction(String name, FunctionDescriptor descriptor) {
        this(name, name, descriptor);
    }

    DriverFunction(String symbol, String headerName, FunctionDescriptor descriptor) {
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
