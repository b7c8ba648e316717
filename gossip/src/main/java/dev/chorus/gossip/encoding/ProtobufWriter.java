package dev.chorus.gossip.encoding;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;

/**
 * Writes protobuf wire format (varint and length-delimited fields only, which is all libp2p uses).
 * Fields are written in call order, so callers control determinism by calling in tag order.
 */
public final class ProtobufWriter {
    static final int WIRE_VARINT = 0;
    static final int WIRE_FIXED64 = 1;
    static final int WIRE_LENGTH_DELIMITED = 2;
    static final int WIRE_FIXED32 = 5;

    private final ByteArrayOutputStream out = new ByteArrayOutputStream();

    public ProtobufWriter varint(int field, long value) {
        tag(field, WIRE_VARINT);
        rawVarint(value);
        return this;
    }

    public ProtobufWriter bool(int field, boolean value) {
        return varint(field, value ? 1 : 0);
    }

    public ProtobufWriter bytes(int field, byte[] value) {
        tag(field, WIRE_LENGTH_DELIMITED);
        rawVarint(value.length);
        out.writeBytes(value);
        return this;
    }

    public ProtobufWriter string(int field, String value) {
        return bytes(field, value.getBytes(StandardCharsets.UTF_8));
    }

    /** An embedded message: its encoded bytes as a length-delimited field. */
    public ProtobufWriter message(int field, ProtobufWriter nested) {
        return bytes(field, nested.toByteArray());
    }

    public byte[] toByteArray() {
        return out.toByteArray();
    }

    private void tag(int field, int wireType) {
        if (field <= 0 || field > 0x1FFFFFFF) {
            throw new IllegalArgumentException("bad protobuf field number " + field);
        }
        rawVarint(((long) field << 3) | wireType);
    }

    /** Protobuf varints are plain LEB128 of the 64-bit value (negative numbers take 10 bytes). */
    private void rawVarint(long value) {
        while ((value & ~0x7FL) != 0) {
            out.write((int) ((value & 0x7F) | 0x80));
            value >>>= 7;
        }
        out.write((int) value);
    }
}
