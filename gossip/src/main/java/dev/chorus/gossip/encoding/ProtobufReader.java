package dev.chorus.gossip.encoding;

import io.netty.handler.codec.CorruptedFrameException;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * Pull reader over protobuf wire format. Accepts fields in any order and lets the caller skip unknown
 * ones; groups (wire types 3 and 4) are rejected since no libp2p message uses them. Every malformed
 * input ends in {@link CorruptedFrameException}, never an index exception.
 *
 * <pre>
 * ProtobufReader r = new ProtobufReader(bytes);
 * while (r.next()) {
 *     switch (r.field()) {
 *         case 1 -&gt; key = r.bytes();
 *         default -&gt; r.skip();
 *     }
 * }
 * </pre>
 */
public final class ProtobufReader {
    private final byte[] buf;
    private int pos;
    private final int limit;
    private int field;
    private int wireType;

    public ProtobufReader(byte[] buf) {
        this(buf, 0, buf.length);
    }

    public ProtobufReader(byte[] buf, int offset, int length) {
        this.buf = buf;
        this.pos = offset;
        this.limit = offset + length;
    }

    /** Advances to the next field; false at the end of the message. */
    public boolean next() {
        if (pos >= limit) {
            return false;
        }
        long tag = rawVarint();
        field = (int) (tag >>> 3);
        wireType = (int) (tag & 7);
        if (field <= 0 || (tag >>> 3) > 0x1FFFFFFF) {
            throw new CorruptedFrameException("bad protobuf field number " + (tag >>> 3));
        }
        if (wireType != ProtobufWriter.WIRE_VARINT
                && wireType != ProtobufWriter.WIRE_FIXED64
                && wireType != ProtobufWriter.WIRE_LENGTH_DELIMITED
                && wireType != ProtobufWriter.WIRE_FIXED32) {
            throw new CorruptedFrameException("unsupported protobuf wire type " + wireType + " (field " + field + ")");
        }
        return true;
    }

    public int field() {
        return field;
    }

    public int wireType() {
        return wireType;
    }

    public long varint() {
        expect(ProtobufWriter.WIRE_VARINT);
        return rawVarint();
    }

    public boolean bool() {
        return varint() != 0;
    }

    public byte[] bytes() {
        expect(ProtobufWriter.WIRE_LENGTH_DELIMITED);
        int len = length();
        byte[] out = Arrays.copyOfRange(buf, pos, pos + len);
        pos += len;
        return out;
    }

    /** A UTF-8 string field; malformed UTF-8 is rejected rather than replaced. */
    public String string() {
        byte[] b = bytes();
        try {
            return StandardCharsets.UTF_8
                    .newDecoder()
                    .onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT)
                    .decode(java.nio.ByteBuffer.wrap(b))
                    .toString();
        } catch (CharacterCodingException e) {
            throw new CorruptedFrameException("field " + field + " is not valid UTF-8");
        }
    }

    /** A reader over an embedded message field. */
    public ProtobufReader message() {
        expect(ProtobufWriter.WIRE_LENGTH_DELIMITED);
        int len = length();
        ProtobufReader nested = new ProtobufReader(buf, pos, len);
        pos += len;
        return nested;
    }

    /** Skips the current field's value, whatever its wire type. */
    public void skip() {
        switch (wireType) {
            case ProtobufWriter.WIRE_VARINT -> rawVarint();
            case ProtobufWriter.WIRE_FIXED64 -> advance(8);
            case ProtobufWriter.WIRE_FIXED32 -> advance(4);
            case ProtobufWriter.WIRE_LENGTH_DELIMITED -> advance(length());
            default -> throw new IllegalStateException("wire type " + wireType);
        }
    }

    private void expect(int type) {
        if (wireType != type) {
            throw new CorruptedFrameException(
                    "protobuf field " + field + " has wire type " + wireType + ", expected " + type);
        }
    }

    /**
     * A length prefix, within what is left of the message. A 10-byte varint can set bit 63, which reads as a negative
     * long; it is refused like any length that overruns, since it would otherwise pass the bound and index before
     * the field.
     */
    private int length() {
        long len = rawVarint();
        if (len < 0 || len > limit - pos) {
            throw new CorruptedFrameException("protobuf field " + field + " of " + len + " bytes overruns the message");
        }
        return (int) len;
    }

    private void advance(int n) {
        if (n > limit - pos) {
            throw new CorruptedFrameException("truncated protobuf field " + field);
        }
        pos += n;
    }

    private long rawVarint() {
        long value = 0;
        for (int i = 0; i < 10; i++) {
            if (pos >= limit) {
                throw new CorruptedFrameException("truncated protobuf varint");
            }
            int b = buf[pos++] & 0xFF;
            value |= (long) (b & 0x7F) << (7 * i);
            if ((b & 0x80) == 0) {
                return value;
            }
        }
        throw new CorruptedFrameException("protobuf varint longer than 10 bytes");
    }
}
