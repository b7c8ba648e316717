package dev.chorus.gossip.encoding;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.handler.codec.TooLongFrameException;

/** uvarint(length) ++ bytes, the framing of multistream-select, identify and pubsub RPCs. */
public final class LengthPrefixed {
    private LengthPrefixed() {}

    public static byte[] encode(byte[] payload) {
        byte[] prefix = Varint.encode(payload.length);
        byte[] out = new byte[prefix.length + payload.length];
        System.arraycopy(prefix, 0, out, 0, prefix.length);
        System.arraycopy(payload, 0, out, prefix.length, payload.length);
        return out;
    }

    /**
     * The one message that {@code framed} holds, nothing before or after it: for a protocol whose side sends one
     * message and closes.
     *
     * @throws IllegalArgumentException naming what is wrong: a bad or truncated prefix, a length over {@code
     *     maxLength} (checked before anything is copied), or bytes after the message
     */
    public static byte[] decodeOne(byte[] framed, int maxLength) {
        long length;
        try {
            length = Varint.decode(framed, 0);
        } catch (RuntimeException e) {
            throw new IllegalArgumentException("bad length prefix: " + e.getMessage(), e);
        }
        if (length > maxLength) {
            throw new IllegalArgumentException("message of " + length + " bytes exceeds " + maxLength);
        }
        int start = Varint.size(length);
        long rest = framed.length - start;
        if (rest < length) {
            throw new IllegalArgumentException("truncated: " + rest + " of " + length + " bytes");
        }
        if (rest > length) {
            throw new IllegalArgumentException((rest - length) + " bytes after the message");
        }
        return java.util.Arrays.copyOfRange(framed, start, framed.length);
    }

    public static ByteBuf encode(ByteBufAllocator alloc, byte[] payload) {
        ByteBuf out = alloc.buffer(Varint.size(payload.length) + payload.length);
        Varint.write(out, payload.length);
        out.writeBytes(payload);
        return out;
    }

    /**
     * Reads one message if the buffer holds all of it, else returns null and leaves the reader index
     * untouched.
     *
     * @throws TooLongFrameException when the announced length exceeds {@code maxLength}; the
     *     remote controls it, so it is checked before anything is buffered
     */
    public static byte[] tryRead(ByteBuf in, int maxLength) {
        int start = in.readerIndex();
        long length = Varint.tryRead(in);
        if (length == Varint.INCOMPLETE) {
            return null;
        }
        if (length > maxLength) {
            in.readerIndex(start);
            throw new TooLongFrameException("length-prefixed message of " + length + " bytes exceeds " + maxLength);
        }
        if (in.readableBytes() < length) {
            in.readerIndex(start);
            return null;
        }
        byte[] out = new byte[(int) length];
        in.readBytes(out);
        return out;
    }
}
