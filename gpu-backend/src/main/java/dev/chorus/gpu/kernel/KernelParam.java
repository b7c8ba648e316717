package dev.chorus.gpu.kernel;

/**
 * The C type of one kernel parameter, as the PTX declares it: pointers and {@code long long} are
 * {@code .u64}, {@code int} is {@code .u32}, {@code float} is {@code .f32}, {@code double} is
 * {@code .f64}.
 */
public enum KernelParam {
    /** A device pointer ({@code float*}, {@code double*}); 0 for a null pointer. */
    PTR(8, ".u64"),
    I32(4, ".u32"),
    I64(8, ".u64"),
    F32(4, ".f32"),
    F64(8, ".f64");

    private final int bytes;
    private final String ptxType;

    KernelParam(int bytes, String ptxType) {
        this.bytes = bytes;
        this.ptxType = ptxType;
    }

    /** Size in bytes (also its alignment). */
    public int bytes() {
        return bytes;
    }

    /** The type of its {@code .param} in PTX. */
    public String ptxType() {
        return ptxType;
    }
}
