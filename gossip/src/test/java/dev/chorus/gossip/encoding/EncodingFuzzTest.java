package dev.chorus.gossip.encoding;

import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.junit.FuzzTest;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.handler.codec.CorruptedFrameException;
import io.netty.handler.codec.TooLongFrameException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Coverage-guided fuzz tests of the wire primitives every libp2p decoder is built on. Each target states what the
 * decoder promises: only its documented exception, never a value or allocation beyond the limit it was given, and
 * the same bytes back through the encoder. Regression mode runs the committed inputs under
 * {@code EncodingFuzzTestInputs/}; {@code ./build fuzz} runs them in fuzzing mode.
 */
class EncodingFuzzTest {
    private static final int MAX_LENGTH = 1024;
    private static final int MAX_DEPTH = 8;

    @FuzzTest
    void varint(byte[] data) {
        long value;
        try {
            value = Varint.decode(data, 0);
        } catch (CorruptedFrameException e) {
            assertThatBufferRejects(data);
            return;
        }
        assertThat(value).isNotNegative();
        byte[] encoded = Varint.encode(value);
        assertThat(Arrays.copyOf(data, encoded.length)).isEqualTo(encoded);
        ByteBuf buf = Unpooled.wrappedBuffer(data);
        try {
            assertThat(Varint.tryRead(buf)).isEqualTo(value);
            assertThat(buf.readerIndex()).isEqualTo(encoded.length);
        } finally {
            buf.release();
        }
    }

    /** A byte array {@link Varint#decode} rejects is either incomplete or rejected by the buffer reader too. */
    private static void assertThatBufferRejects(byte[] data) {
        ByteBuf buf = Unpooled.wrappedBuffer(data);
        try {
            long v = Varint.tryRead(buf);
            assertThat(v).isEqualTo(Varint.INCOMPLETE);
            assertThat(buf.readerIndex()).isZero();
        } catch (CorruptedFrameException expected) {
            // the same rule, reported by the buffer reader
        } finally {
            buf.release();
        }
    }

    @FuzzTest
    void lengthPrefixed(byte[] data) {
        try {
            byte[] payload = LengthPrefixed.decodeOne(data, MAX_LENGTH);
            assertThat(payload.length).isLessThanOrEqualTo(MAX_LENGTH);
            assertThat(LengthPrefixed.encode(payload)).isEqualTo(data);
        } catch (IllegalArgumentException rejected) {
            // decodeOne's documented rejection
        }
        ByteBuf buf = Unpooled.wrappedBuffer(data);
        try {
            byte[] one = LengthPrefixed.tryRead(buf, MAX_LENGTH);
            if (one == null) {
                assertThat(buf.readerIndex()).isZero();
            } else {
                assertThat(one.length).isLessThanOrEqualTo(MAX_LENGTH);
                assertThat(buf.readerIndex()).isEqualTo(Varint.size(one.length) + one.length);
            }
        } catch (TooLongFrameException | CorruptedFrameException rejected) {
            assertThat(buf.readerIndex()).isZero();
        } finally {
            buf.release();
        }
    }

    @FuzzTest
    void protobufReader(byte[] data) {
        List<Field> fields;
        try {
            fields = read(new ProtobufReader(data), 0);
        } catch (CorruptedFrameException rejected) {
            return;
        }
        // Re-encoding what was read (fixed-width fields aside, which the writer does not produce) and reading it back
        // gives the same fields: the reader and the writer agree on every value the reader accepts.
        ProtobufWriter w = new ProtobufWriter();
        List<Field> written = new ArrayList<>();
        for (Field f : fields) {
            if (f.wireType == ProtobufWriter.WIRE_VARINT) {
                w.varint(f.number, f.value);
                written.add(f);
            } else if (f.wireType == ProtobufWriter.WIRE_LENGTH_DELIMITED) {
                w.bytes(f.number, f.bytes);
                written.add(f);
            }
        }
        assertThat(read(new ProtobufReader(w.toByteArray()), MAX_DEPTH)).isEqualTo(written);
    }

    /** Every field of a message; length-delimited ones are also read as nested messages. */
    private static List<Field> read(ProtobufReader r, int depth) {
        List<Field> out = new ArrayList<>();
        while (r.next()) {
            int number = r.field();
            int wireType = r.wireType();
            switch (wireType) {
                case ProtobufWriter.WIRE_VARINT -> out.add(new Field(number, wireType, r.varint(), null));
                case ProtobufWriter.WIRE_LENGTH_DELIMITED -> {
                    byte[] b = r.bytes();
                    out.add(new Field(number, wireType, 0, b));
                    probe(b, depth);
                }
                default -> {
                    r.skip();
                    out.add(new Field(number, wireType, 0, null));
                }
            }
        }
        return out;
    }

    /** Reads a length-delimited value as a nested message, which it may be. */
    private static void probe(byte[] b, int depth) {
        if (depth < MAX_DEPTH) {
            try {
                read(new ProtobufReader(b), depth + 1);
            } catch (CorruptedFrameException notAMessage) {
                // bytes that are not a message
            }
        }
    }

    private record Field(int number, int wireType, long value, byte[] bytes) {
        @Override
        public boolean equals(Object o) {
            return o instanceof Field f
                    && f.number == number
                    && f.wireType == wireType
                    && f.value == value
                    && Arrays.equals(f.bytes, bytes);
        }

        @Override
        public int hashCode() {
            return 31 * (31 * number + wireType) + Long.hashCode(value) + Arrays.hashCode(bytes);
        }
    }
}
