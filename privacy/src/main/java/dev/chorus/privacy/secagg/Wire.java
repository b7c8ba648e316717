package dev.chorus.privacy.secagg;

import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;

/**
 * The binary layout of round messages: big-endian integers, byte strings and vectors prefixed by their length. The
 * reader checks every declared length against a limit and against the bytes left before it allocates, so a short or
 * hostile message costs no more memory than its own size.
 */
final class Wire {

    private Wire() {}

    /** Appends fields to a growing buffer. */
    static final class Writer {
        private final ByteArrayOutputStream out = new ByteArrayOutputStream();

        Writer u8(int value) {
            out.write(value);
            return this;
        }

        Writer u32(int value) {
            out.write(value >>> 24);
            out.write(value >>> 16);
            out.write(value >>> 8);
            out.write(value);
            return this;
        }

        Writer bytes(byte[] value) {
            u32(value.length);
            out.writeBytes(value);
            return this;
        }

        Writer words(int[] value) {
            u32(value.length);
            ByteBuffer buffer = ByteBuffer.allocate(4 * value.length);
            buffer.asIntBuffer().put(value);
            out.writeBytes(buffer.array());
            return this;
        }

        /**
         * A vector whose words but the last are 16-bit (their low halves are written), the last 32-bit: its length,
         * then 2 bytes a word, then 4.
         */
        Writer narrowWords(int[] value) {
            if (value.length == 0) {
                throw new SecAggException("a vector of narrow words ends with a 32-bit word; it cannot be empty");
            }
            u32(value.length);
            ByteBuffer buffer = ByteBuffer.allocate(2 * (value.length - 1) + 4);
            for (int i = 0; i < value.length - 1; i++) {
                buffer.putShort((short) value[i]);
            }
            buffer.putInt(value[value.length - 1]);
            out.writeBytes(buffer.array());
            return this;
        }

        Writer text(String value) {
            return bytes(value.getBytes(StandardCharsets.UTF_8));
        }

        byte[] toBytes() {
            return out.toByteArray();
        }
    }

    /** Reads fields back, refusing any length above its limit or beyond the end of the input. */
    static final class Reader {
        private final ByteBuffer in;

        Reader(byte[] message) {
            this.in = ByteBuffer.wrap(message);
        }

        int u8() {
            need(1, "a byte");
            return in.get() & 0xFF;
        }

        int u32() {
            need(4, "an integer");
            return in.getInt();
        }

        /** A non-negative integer below {@code limit}, such as a member index. */
        int index(int limit, String what) {
            int value = u32();
            if (value < 0 || value >= limit) {
                throw new SecAggException(what + " " + value + " is outside 0.." + (limit - 1));
            }
            return value;
        }

        byte[] bytes(int maxLength, String what) {
            int length = count(maxLength, 1, what);
            byte[] out = new byte[length];
            in.get(out);
            return out;
        }

        /** A byte string of exactly {@code length} bytes. */
        byte[] exact(int length, String what) {
            byte[] out = bytes(length, what);
            if (out.length != length) {
                throw new SecAggException(what + " is " + out.length + " bytes, not " + length);
            }
            return out;
        }

        int[] words(int maxLength, String what) {
            int length = count(maxLength, 4, what);
            int[] out = new int[length];
            in.asIntBuffer().get(out);
            in.position(in.position() + 4 * length);
            return out;
        }

        /** What {@link Writer#narrowWords} wrote: every word but the last in 0..65535. */
        int[] narrowWords(int maxLength, String what) {
            int length = count(maxLength, 2, what);
            if (length == 0) {
                throw new SecAggException(what + " is empty; it ends with a 32-bit word");
            }
            need(2L * (length - 1) + 4, what);
            int[] out = new int[length];
            for (int i = 0; i < length - 1; i++) {
                out[i] = Short.toUnsignedInt(in.getShort());
            }
            out[length - 1] = in.getInt();
            return out;
        }

        String text(int maxLength, String what) {
            return new String(bytes(maxLength, what), StandardCharsets.UTF_8);
        }

        /** A declared element count, checked against its limit and the bytes left (each element at least
         * {@code unit} bytes) before anything is allocated. */
        int count(int max, int unit, String what) {
            int count = u32();
            if (count < 0 || count > max) {
                throw new SecAggException(what + " declares " + Integer.toUnsignedString(count) + " elements; at most "
                        + max + " are allowed");
            }
            need((long) count * unit, what);
            return count;
        }

        void end() {
            if (in.hasRemaining()) {
                throw new SecAggException(in.remaining() + " bytes follow the end of the message");
            }
        }

        private void need(long bytes, String what) {
            if (bytes > in.remaining()) {
                throw new SecAggException("the message ends inside " + what + ": " + bytes + " bytes declared, "
                        + in.remaining() + " left");
            }
        }
    }
}
