package dev.chorus.gossip.encoding;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.handler.codec.CorruptedFrameException;
import io.netty.handler.codec.TooLongFrameException;
import java.util.HexFormat;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class VarintTest {
    private static final HexFormat HEX = HexFormat.of();

    /** Examples from multiformats/unsigned-varint README. */
    @ParameterizedTest
    @CsvSource({
        "1,01",
        "127,7f",
        "128,8001",
        "255,ff01",
        "300,ac02",
        "16384,808001",
        "9223372036854775807,ffffffffffffffff7f"
    })
    void encodesSpecExamples(long value, String hex) {
        assertThat(HEX.formatHex(Varint.encode(value))).isEqualTo(hex);
        assertThat(Varint.size(value)).isEqualTo(hex.length() / 2);
        assertThat(Varint.decode(HEX.parseHex(hex), 0)).isEqualTo(value);
        ByteBuf buf = Unpooled.wrappedBuffer(HEX.parseHex(hex));
        try {
            assertThat(Varint.tryRead(buf)).isEqualTo(value);
            assertThat(buf.isReadable()).isFalse();
        } finally {
            buf.release();
        }
    }

    @Test
    void rejectsNonMinimalAndOverlong() {
        assertThatThrownBy(() -> Varint.decode(HEX.parseHex("8100"), 0))
                .isInstanceOf(CorruptedFrameException.class)
                .hasMessageContaining("minimal");
        assertThatThrownBy(() -> Varint.decode(HEX.parseHex("ffffffffffffffffff01"), 0))
                .isInstanceOf(CorruptedFrameException.class)
                .hasMessageContaining("9 bytes");
        ByteBuf buf = Unpooled.wrappedBuffer(HEX.parseHex("808080808080808080"));
        try {
            assertThatThrownBy(() -> Varint.tryRead(buf)).isInstanceOf(CorruptedFrameException.class);
        } finally {
            buf.release();
        }
        assertThatThrownBy(() -> Varint.encode(-1)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void incompleteVarintLeavesReaderIndex() {
        ByteBuf buf = Unpooled.wrappedBuffer(new byte[] {(byte) 0x80, (byte) 0x80});
        try {
            assertThat(Varint.tryRead(buf)).isEqualTo(Varint.INCOMPLETE);
            assertThat(buf.readerIndex()).isZero();
        } finally {
            buf.release();
        }
    }

    @Test
    void lengthPrefixedRoundTripAndLimit() {
        byte[] msg = LengthPrefixed.encode("hello".getBytes());
        assertThat(HEX.formatHex(msg)).isEqualTo("0568656c6c6f");
        ByteBuf buf = Unpooled.buffer();
        try {
            buf.writeBytes(msg, 0, 3);
            assertThat(LengthPrefixed.tryRead(buf, 100)).isNull();
            assertThat(buf.readerIndex()).isZero();
            buf.writeBytes(msg, 3, msg.length - 3);
            assertThat(new String(LengthPrefixed.tryRead(buf, 100))).isEqualTo("hello");
            buf.writeBytes(LengthPrefixed.encode(new byte[200]));
            assertThatThrownBy(() -> LengthPrefixed.tryRead(buf, 100)).isInstanceOf(TooLongFrameException.class);
        } finally {
            buf.release();
        }
    }
}
