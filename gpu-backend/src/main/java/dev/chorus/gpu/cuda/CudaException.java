package dev.chorus.gpu.cuda;

/**
 * A CUDA driver or cuBLAS call failed. The message is one line: the call, the symbolic status and
 * what it means (e.g. {@code cuMemAlloc failed: CUDA_ERROR_OUT_OF_MEMORY (out of memory)}).
 */
public class CudaException extends RuntimeException {

    private final String call;
    private final int status;

    public CudaException(String call, int status, String message) {
        super(message);
        this.call = call;
        this.status = status;
    }

    /** The C function that failed, as named in the header (e.g. {@code cuMemAlloc}). */
    public String call() {
        return call;
    }

    /** The raw status code the call returned ({@code CUresult} or {@code cublasStatus_t}). */
    public int status() {
        return status;
    }
}
