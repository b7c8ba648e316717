package dev.chorus.node.protocol;

/** How parameter values are encoded in a body chunk. */
public enum Dtype {
    /** IEEE 754 binary32, little-endian. */
    F32(0, 4),
    /** IEEE 754 binary16 (half precision), little-endian. */
    F16(1, 2),
    /** bfloat16: the upper 16 bits of a binary32, rounded to nearest even, little-endian. */
    BF16(2, 2),
    /** Signed 8-bit integers with one binary32 scale per chunk: {@code value = q * scale}. */
    INT8(3, 1);

    private final int code;
    private final int bytesPerValue;

    Dtype(int code, int bytesPerValue) {
        this.code = code;
        this.bytesPerValue = bytesPerValue;
    }

    /** The wire code. */
    public int code() {
        return code;
    }

    public int bytesPerValue() {
        return bytesPerValue;
    }

    /** Bytes in front of the values of each chunk (the int8 scale). */
    public int chunkPrefixBytes() {
        return this == INT8 ? 4 : 0;
    }

    /** The dtype of a wire code. */
    public static Dtype fromCode(int code) {
        for (Dtype d : values()) {
            if (d.code == code) {
                return d;
            }
        }
        throw new ExchangeException(ErrorCode.MALFORMED, "unknown dtype " + code);
    }
}
