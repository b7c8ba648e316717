package dev.chorus.gpu.cuda;

/** The device had no room for an allocation ({@code CUDA_ERROR_OUT_OF_MEMORY}). */
public final class DeviceOutOfMemoryException extends CudaException {

    public DeviceOutOfMemoryException(String call, int status, String message) {
        super(call, status, message);
    }
}
