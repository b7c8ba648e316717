package dev.chorus.gossip.encoding;

import io.netty.buffer.ByteBuf;
import io.netty.handler.codec.CorruptedFrameException;

/**
 * Unsigned LEB128 varints as specified by multiformats/unsigned-varint: at most 9 bytes (63 bits) and
 * always minimally encoded; anything else is rejected with {@link CorruptedFrameException}.
 */
public final class Varint {
    /** The spec caps a varint at 9 bytes, i.e. values below 2^63. */
    public static final int MAX_BYTES = 9;

    /** Returned by {@link #tryRead(ByteBuf)} when the buffer does not yet hold a whole varint. */
    public static final long INCOMPLETE = -1;

    private Varint() {}

    /** Number of bytes {@code value} takes when encoded. */
    public static int size(long value) {
        requireUnsigned(value);
        int n = 1;
        while ((value >>>= 7) != 0) {
            n++;
        }
        return n;
    }

    public static byte[] encode(long value) {
        byte[] out = new byte[size(value)];
        int i = 0;
        while ((value & ~0x7FL) != 0) {
            out[i++] = (byte) ((value & 0x7F) | 0x80);
            value >>>= 7;
        }
        out[i] = (byte) value;
        return out;
    }

    public static void write(ByteBuf out, long value) {
        requireUnsigned(value);
        while ((value & ~0x7FL) != 0) {
            out.writeByte((int) ((value & 0x7F) | 0x80));
            value >>>= 7;
        }
        out.writeByte((int) value);
    }

    /**
     * Reads a varint if the buffer holds a complete one, advancing the reader index; otherwise returns
     * {@link #INCOMPLETE} and leaves the reader index untouched.
     *
     * @throws CorruptedFrameException when the varint is longer than 9 bytes or not minimal
     */
    public static long tryRead(ByteBuf in) {
        int start = in.readerIndex();
        int end = in.writerIndex();
        long value = 0;
        for (int i = 0; i < MAX_BYTES; i++) {
            if (start + i >= end) {
                return INCOMPLETE;
            }
            int b = in.getByte(start + i) & 0xFF;
            value |= (long) (b & 0x7F) << (7 * i);
            if ((b & 0x80) == 0) {
                if (b == 0 && i > 0) {
                    throw new CorruptedFrameException("varint is not minimally encoded");
                }
                in.readerIndex(start + i + 1);
                return value;
            }
        }
        throw new CorruptedFrameException("varint longer than " + MAX_BYTES + " bytes");
    }

    /** Reads a complete varint or throws if the buffer ends first. */
    public static long read(ByteBuf in) {
        long v = tryRead(in);
        if (v == INCOMPLETE) {
            throw new CorruptedFrameException("truncated varint");
        }
        return v;
    }

    /**
     * Decodes a varint from {@code bytes} at {@code offset}.
     *
     * @return the value in the low 63 bits; the number of bytes read is given by {@link #size(long)}
     *     since the encoding is minimal
     */
    public static long decode(byte[] bytes, int offset) {
        long value = 0;
        for (int i = 0; i < MAX_BYTES; i++) {
            if (offset + i >= bytes.length) {
                throw new CorruptedFrameException("truncated varint");
            }
            int b = bytes[offset + i] & 0xFF;
            value |= (long) (b & 0x7F) << (7 * i);
            if ((b & 0x80) == 0) {
                if (b == 0 && i > 0) {
                    throw new CorruptedFrameException("varint is not minimally encoded");
                }
                return value;
            }
        }
        throw new CorruptedFrameException("varint longer than " + MAX_BYTES + " bytes");
    }

    private static void requireUnsigned(long value) {
        if (value < 0) {
            throw new IllegalArgumentException("varint value must be in [0, 2^63): " + value);
        }
    }
}
