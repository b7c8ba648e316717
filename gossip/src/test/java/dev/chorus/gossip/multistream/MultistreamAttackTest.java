package dev.chorus.gossip.multistream;

import static org.assertj.core.api.Assertions.assertThat;

import dev.chorus.gossip.encoding.Varint;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.HexFormat;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** Malformed and hostile input must fail the negotiation and close the channel, never buffer without bound. */
class MultistreamAttackTest {
    private static final byte[] HEADER = MultistreamSelect.encode(MultistreamSelect.PROTOCOL_ID);

    private static MultistreamHandler feed(byte[] input) {
        MultistreamHandler h = MultistreamHandler.listener(List.of("/a"), (ctx, p) -> {});
        EmbeddedChannel ch = new EmbeddedChannel(h);
        ch.writeInbound(Unpooled.wrappedBuffer(input));
        ch.finishAndReleaseAll();
        return h;
    }

    private static byte[] concat(byte[]... parts) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        for (byte[] p : parts) {
            out.writeBytes(p);
        }
        return out.toByteArray();
    }

    @ParameterizedTest
    @ValueSource(
            strings = {
                "132f6d756c746973747265616d2f322e302e300a", // wrong header version
                "132f6d756c746973747265616d2f312e302e3020", // header without newline
                "ffffffffffffffffff01", // varint over 9 bytes
                "8000", // non-minimal varint
                "00", // empty message
                "0361610a0a" // garbage instead of header
            })
    void rejectsMalformedFirstMessage(String hex) {
        MultistreamHandler h = feed(HexFormat.of().parseHex(hex));
        assertThat(h.result()).isCompletedExceptionally();
        assertThat(h.result().exceptionNow()).isInstanceOf(NegotiationException.class);
    }

    @Test
    void rejectsOversizeLineBeforeItArrives() {
        // Announce a 1 MiB line but send only its length: the handler must refuse at once.
        byte[] len = Varint.encode(1 << 20);
        MultistreamHandler h = feed(concat(HEADER, len));
        assertThat(h.result().exceptionNow()).hasMessageContaining("exceeds");
    }

    @Test
    void acceptsLongestAllowedProtocolButNotLonger() {
        String ok = "/" + "x".repeat(MultistreamSelect.MAX_PROTOCOL_LENGTH - 1);
        MultistreamHandler h = MultistreamHandler.listener(List.of(ok), (ctx, p) -> {});
        EmbeddedChannel ch = new EmbeddedChannel(h);
        ch.writeInbound(Unpooled.wrappedBuffer(concat(HEADER, MultistreamSelect.encode(ok))));
        assertThat(h.result()).isCompletedWithValue(ok);
        ch.finishAndReleaseAll();

        byte[] tooLong =
                ("/" + "x".repeat(MultistreamSelect.MAX_PROTOCOL_LENGTH) + "\n").getBytes(StandardCharsets.UTF_8);
        assertThat(feed(concat(HEADER, Varint.encode(tooLong.length), tooLong)).result())
                .isCompletedExceptionally();
    }

    @Test
    void rejectsEmbeddedNewlineAndBadUtf8() {
        byte[] embedded = "/a\n/b\n".getBytes(StandardCharsets.UTF_8);
        assertThat(feed(concat(HEADER, Varint.encode(embedded.length), embedded))
                        .result()
                        .exceptionNow())
                .hasMessageContaining("embedded newline");
        byte[] bad = {'/', (byte) 0xC3, (byte) 0x28, '\n'};
        assertThat(feed(concat(HEADER, Varint.encode(bad.length), bad)).result().exceptionNow())
                .hasMessageContaining("UTF-8");
    }

    @Test
    void givesUpAfterTooManyRefusals() {
        ByteArrayOutputStream in = new ByteArrayOutputStream();
        in.writeBytes(HEADER);
        for (int i = 0; i < 1000; i++) {
            in.writeBytes(MultistreamSelect.encode("/nope/" + i));
        }
        MultistreamHandler h = MultistreamHandler.listener(List.of("/a"), (ctx, p) -> {});
        EmbeddedChannel ch = new EmbeddedChannel(h);
        ch.writeInbound(Unpooled.wrappedBuffer(in.toByteArray()));
        assertThat(h.result().exceptionNow()).hasMessageContaining("gave up");
        assertThat(ch.isOpen()).isFalse();
        // It answered at most MAX_ATTEMPTS times, not once per proposal.
        byte[] out = MultistreamHandlerTest.readAll(ch);
        assertThat(out.length).isLessThanOrEqualTo(HEADER.length + 4 * MultistreamSelect.MAX_ATTEMPTS);
        ch.finishAndReleaseAll();
    }

    @Test
    void dialerRejectsUnexpectedAnswer() {
        MultistreamHandler h = MultistreamHandler.dialer(List.of("/noise"), (ctx, p) -> {});
        EmbeddedChannel ch = new EmbeddedChannel(h);
        ch.writeInbound(Unpooled.wrappedBuffer(concat(HEADER, MultistreamSelect.encode("/tls/1.0.0"))));
        assertThat(h.result().exceptionNow()).hasMessageContaining("/tls/1.0.0");
        ch.finishAndReleaseAll();
    }
}
