package dev.chorus.node.protocol;

/**
 * The value codecs of a body chunk. Encoding and the sender's digest use the same rounding, so the sender can
 * hash exactly the float32 values the receiver will decode.
 *
 * <ul>
 *   <li>{@link Dtype#F16}: IEEE binary16 with round-to-nearest-even ({@link Float#floatToFloat16}); values beyond
 *       the largest finite half (65504) saturate to it rather than becoming infinite. Relative error at most
 *       2^-11 inside the normal range [6.1e-5, 65504].
 *   <li>{@link Dtype#BF16}: the upper half of the binary32 bits, rounded to nearest even; overflow saturates to the
 *       largest finite bfloat16. Relative error at most 2^-8.
 *   <li>{@link Dtype#INT8}: symmetric per-chunk scale {@code s = max|v| / 127}, {@code q = round(v / s)} in
 *       [-127, 127]. Absolute error at most {@code s / 2} per value.
 * </ul>
 */
public final class Quantization {

    private static final float MAX_HALF = 65504f;
    private static final short MAX_BF16 = 0x7f7f;

    private Quantization() {}

    /** The int8 scale of {@code values[from, from + n)}. */
    public static float int8Scale(float[] values, int from, int n) {
        float max = 0;
        for (int i = from; i < from + n; i++) {
            max = Math.max(max, Math.abs(values[i]));
        }
        return max / 127f;
    }

    /** The value the receiver decodes for {@code v}, given the chunk's scale (int8 only). */
    public static float roundTrip(Dtype dtype, float v, float scale) {
        return switch (dtype) {
            case F32 -> v;
            case F16 -> Float.float16ToFloat(toHalf(v));
            case BF16 -> fromBf16(toBf16(v));
            case INT8 -> toInt8(v, scale) * scale;
        };
    }

    static short toHalf(float v) {
        return Float.floatToFloat16(Math.max(-MAX_HALF, Math.min(MAX_HALF, v)));
    }

    static short toBf16(float v) {
        int bits = Float.floatToRawIntBits(v);
        int rounded = bits + 0x7fff + ((bits >>> 16) & 1);
        short out = (short) (rounded >>> 16);
        if ((out & 0x7f80) == 0x7f80) { // rounded up to infinity: saturate, keeping the sign
            out = (short) ((out & 0x8000) | MAX_BF16);
        }
        return out;
    }

    static float fromBf16(short b) {
        return Float.intBitsToFloat((b & 0xffff) << 16);
    }

    static byte toInt8(float v, float scale) {
        if (scale == 0) {
            return 0;
        }
        int q = Math.round(v / scale);
        return (byte) Math.max(-127, Math.min(127, q));
    }

    /** Bytes of {@code dimension} values in chunks of {@code chunk}: each chunk's values, after its scale for int8. */
    public static long chunkedBytes(Dtype dtype, int dimension, int chunk) {
        long chunks = (dimension + (long) chunk - 1) / chunk;
        return chunks * dtype.chunkPrefixBytes() + (long) dimension * dtype.bytesPerValue();
    }

    /**
     * {@code values} in {@code dtype}, cut into chunks of {@code chunk} values; for int8 each chunk starts with its
     * scale (binary32, little-endian).
     */
    public static byte[] encodeChunked(Dtype dtype, float[] values, int chunk) {
        byte[] out = new byte[Math.toIntExact(chunkedBytes(dtype, values.length, chunk))];
        int at = 0;
        for (int from = 0; from < values.length; from += chunk) {
            int n = Math.min(chunk, values.length - from);
            float scale = 0;
            if (dtype == Dtype.INT8) {
                scale = int8Scale(values, from, n);
                putInt(out, at, Float.floatToRawIntBits(scale));
                at += 4;
            }
            encode(dtype, values, from, n, scale, out, at);
            at += n * dtype.bytesPerValue();
        }
        return out;
    }

    /**
     * The {@code dimension} values that {@link #encodeChunked} wrote into {@code in} from {@code at} to its end.
     *
     * @throws ExchangeException (MALFORMED) when the bytes left are not exactly that many values' worth, or a value
     *     or a scale is not finite
     */
    public static float[] decodeChunked(Dtype dtype, byte[] in, int at, int dimension, int chunk) {
        long expected = chunkedBytes(dtype, dimension, chunk);
        if (in.length - at != expected) {
            throw new ExchangeException(
                    ErrorCode.MALFORMED,
                    (in.length - at) + " bytes for " + dimension + " " + dtype + " values, not " + expected);
        }
        float[] out = new float[dimension];
        for (int from = 0; from < dimension; from += chunk) {
            int n = Math.min(chunk, dimension - from);
            float scale = 0;
            if (dtype == Dtype.INT8) {
                scale = Float.intBitsToFloat(getInt(in, at));
                at += 4;
                if (!Float.isFinite(scale)) {
                    throw new ExchangeException(
                            ErrorCode.MALFORMED, "the int8 scale of value " + from + " is " + scale);
                }
            }
            int bad = decode(dtype, in, at, n, scale, out, from);
            if (bad >= 0) {
                throw new ExchangeException(ErrorCode.MALFORMED, "value " + (from + bad) + " is not finite");
            }
            at += n * dtype.bytesPerValue();
        }
        return out;
    }

    /** Writes {@code n} values, little-endian, from {@code src[from]} into {@code out[at]}. */
    static void encode(Dtype dtype, float[] src, int from, int n, float scale, byte[] out, int at) {
        switch (dtype) {
            case F32 -> {
                for (int i = 0; i < n; i++) {
                    putInt(out, at + 4 * i, Float.floatToRawIntBits(src[from + i]));
                }
            }
            case F16 -> {
                for (int i = 0; i < n; i++) {
                    putShort(out, at + 2 * i, toHalf(src[from + i]));
                }
            }
            case BF16 -> {
                for (int i = 0; i < n; i++) {
                    putShort(out, at + 2 * i, toBf16(src[from + i]));
                }
            }
            case INT8 -> {
                for (int i = 0; i < n; i++) {
                    out[at + i] = toInt8(src[from + i], scale);
                }
            }
        }
    }

    /**
     * Reads {@code n} values into {@code dst[to]}; returns the index of the first value that is not finite, or -1.
     */
    static int decode(Dtype dtype, byte[] in, int at, int n, float scale, float[] dst, int to) {
        int bad = -1;
        for (int i = 0; i < n; i++) {
            float v =
                    switch (dtype) {
                        case F32 -> Float.intBitsToFloat(getInt(in, at + 4 * i));
                        case F16 -> Float.float16ToFloat(getShort(in, at + 2 * i));
                        case BF16 -> fromBf16(getShort(in, at + 2 * i));
                        case INT8 -> in[at + i] * scale;
                    };
            if (bad < 0 && !Float.isFinite(v)) {
                bad = i;
            }
            dst[to + i] = v;
        }
        return bad;
    }

    static void putInt(byte[] b, int at, int v) {
        b[at] = (byte) v;
        b[at + 1] = (byte) (v >>> 8);
        b[at + 2] = (byte) (v >>> 16);
        b[at + 3] = (byte) (v >>> 24);
    }

    static int getInt(byte[] b, int at) {
        return (b[at] & 0xff) | (b[at + 1] & 0xff) << 8 | (b[at + 2] & 0xff) << 16 | (b[at + 3] & 0xff) << 24;
    }

    static void putShort(byte[] b, int at, short v) {
        b[at] = (byte) v;
        b[at + 1] = (byte) (v >>> 8);
    }

    static short getShort(byte[] b, int at) {
        return (short) ((b[at] & 0xff) | (b[at + 1] & 0xff) << 8);
    }
}
