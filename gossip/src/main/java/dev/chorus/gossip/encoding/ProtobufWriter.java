package dev.chorus.gossip.encoding;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * Writes protobuf wire format (varint and length-delimited fields only, which is all libp2p uses).
 * Fields are written in call order, so callers control determinism by calling in tag order.
 *
 * <p>A writer sized for what it will hold ({@link #ProtobufWriter(int)}, with {@link #sizeOfBytes}) writes each
 * byte once and hands its array over without a copy: what a 100 KiB gossipsub message needs.
 */
public final class ProtobufWriter {
    static final int WIRE_VARINT = 0;
    static final int WIRE_FIXED64 = 1;
    static final int WIRE_LENGTH_DELIMITED = 2;
    static final int WIRE_FIXED32 = 5;

    private byte[] buf;
    private int count;
    /** Whether {@link #toByteArray} handed {@link #buf} out: a later write must not change it. */
    private boolean handedOut;

    public ProtobufWriter() {
        this(32);
    }

    /** A writer with room for {@code capacity} bytes before it grows. */
    public ProtobufWriter(int capacity) {
        if (capacity < 0) {
            throw new IllegalArgumentException("negative capacity " + capacity);
        }
        buf = new byte[capacity];
    }

    /** The bytes a varint of {@code value} takes (1 to 10). */
    public static int sizeOfVarint(long value) {
        return value == 0 ? 1 : (63 - Long.numberOfLeadingZeros(value)) / 7 + 1;
    }

    /** The bytes a length-delimited field {@code field} of {@code length} bytes takes, tag and length included. */
    public static int sizeOfBytes(int field, int length) {
        return sizeOfVarint(((long) field << 3) | WIRE_LENGTH_DELIMITED) + sizeOfVarint(length) + length;
    }

    public ProtobufWriter varint(int field, long value) {
        tag(field, WIRE_VARINT);
        rawVarint(value);
        return this;
    }

    public ProtobufWriter bool(int field, boolean value) {
        return varint(field, value ? 1 : 0);
    }

    public ProtobufWriter bytes(int field, byte[] value) {
        header(field, value.length);
        raw(value);
        return this;
    }

    public ProtobufWriter string(int field, String value) {
        return bytes(field, value.getBytes(StandardCharsets.UTF_8));
    }

    /** An embedded message: its encoded bytes as a length-delimited field. */
    public ProtobufWriter message(int field, ProtobufWriter nested) {
        header(field, nested.count);
        ensure(nested.count);
        System.arraycopy(nested.buf, 0, buf, count, nested.count);
        count += nested.count;
        return this;
    }

    /**
     * The tag and length of a length-delimited field whose {@code length} bytes the caller writes next, e.g. an
     * embedded message written field by field into this writer rather than encoded apart and copied.
     */
    public ProtobufWriter header(int field, int length) {
        if (length < 0) {
            throw new IllegalArgumentException("negative length " + length);
        }
        tag(field, WIRE_LENGTH_DELIMITED);
        rawVarint(length);
        return this;
    }

    /** An unsigned varint with no tag: e.g. the length prefix of a frame. */
    public ProtobufWriter unsignedVarint(long value) {
        rawVarint(value);
        return this;
    }

    /** {@code bytes} as they are, with no tag or length. */
    public ProtobufWriter raw(byte[] bytes) {
        ensure(bytes.length);
        System.arraycopy(bytes, 0, buf, count, bytes.length);
        count += bytes.length;
        return this;
    }

    /** The bytes written: the writer's own array when it is exactly full, else a copy. */
    public byte[] toByteArray() {
        if (count == buf.length && !handedOut) {
            handedOut = true;
            return buf;
        }
        return Arrays.copyOf(buf, count);
    }

    /** Bytes written so far. */
    public int size() {
        return count;
    }

    private void ensure(int more) {
        int needed = count + more;
        if (needed < 0) {
            throw new IllegalStateException("a protobuf encoding over 2 GiB");
        }
        if (needed > buf.length) {
            buf = Arrays.copyOf(buf, Math.max(needed, Math.max(64, buf.length * 2)));
        } else if (handedOut) {
            buf = buf.clone();
        }
        handedOut = false;
    }

    private void tag(int field, int wireType) {
        if (field <= 0 || field > 0x1FFFFFFF) {
            throw new IllegalArgumentException("bad protobuf field number " + field);
        }
        rawVarint(((long) field << 3) | wireType);
    }

    /** Protobuf varints are plain LEB128 of the 64-bit value (negative numbers take 10 bytes). */
    private void rawVarint(long value) {
        ensure(sizeOfVarint(value));
        while ((value & ~0x7FL) != 0) {
            buf[count++] = (byte) ((value & 0x7F) | 0x80);
            value >>>= 7;
        }
        buf[count++] = (byte) value;
    }
}
