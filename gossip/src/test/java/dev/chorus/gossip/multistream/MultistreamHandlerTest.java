package dev.chorus.gossip.multistream;

import static org.assertj.core.api.Assertions.assertThat;

import dev.chorus.gossip.Vectors;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.embedded.EmbeddedChannel;
import java.io.ByteArrayOutputStream;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class MultistreamHandlerTest {
    private static final byte[] HEADER = Vectors.hex("multistreamSelect.header.bytes");

    /** Collects what reaches the handler after negotiation. */
    static final class Tail extends ChannelInboundHandlerAdapter {
        final ByteArrayOutputStream received = new ByteArrayOutputStream();

        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            ByteBuf b = (ByteBuf) msg;
            try {
                b.readBytes(received, b.readableBytes());
            } catch (java.io.IOException e) {
                throw new IllegalStateException(e);
            } finally {
                b.release();
            }
        }
    }

    @Test
    void listenerAcceptsJsFirstWriteAndPassesTrailingBytes() {
        Tail tail = new Tail();
        List<String> selected = new ArrayList<>();
        MultistreamHandler h = MultistreamHandler.listener(List.of("/p2pl/echo/1.0.0"), (ctx, p) -> {
            selected.add(p);
            ctx.pipeline().addAfter(ctx.name(), "tail", tail);
        });
        EmbeddedChannel ch = new EmbeddedChannel(h);
        assertThat(readAll(ch)).isEqualTo(HEADER);
        byte[] first = Vectors.hex("multistreamSelect.dialerFirstWrite.bytes");
        ByteBuf in = Unpooled.buffer();
        in.writeBytes(first);
        in.writeBytes("payload".getBytes());
        ch.writeInbound(in);
        assertThat(selected).containsExactly("/p2pl/echo/1.0.0");
        assertThat(h.result()).isCompletedWithValue("/p2pl/echo/1.0.0");
        assertThat(readAll(ch)).isEqualTo(MultistreamSelect.encode("/p2pl/echo/1.0.0"));
        assertThat(tail.received.toString()).isEqualTo("payload");
        assertThat(ch.pipeline().get(MultistreamHandler.class)).isNull();
        ch.writeInbound(Unpooled.wrappedBuffer("more".getBytes()));
        assertThat(tail.received.toString()).isEqualTo("payloadmore");
        assertThat(ch.finish()).isFalse();
    }

    @Test
    void listenerAnswersNaThenAcceptsNextAndHandlesByteByByte() {
        MultistreamHandler h = MultistreamHandler.listener(List.of("/meshsub/1.1.0"), (ctx, p) -> {});
        EmbeddedChannel ch = new EmbeddedChannel(h);
        readAll(ch);
        ByteArrayOutputStream in = new ByteArrayOutputStream();
        in.writeBytes(HEADER);
        in.writeBytes(MultistreamSelect.encode("/meshsub/1.2.0"));
        in.writeBytes(MultistreamSelect.encode("/meshsub/1.1.0"));
        for (byte b : in.toByteArray()) {
            ch.writeInbound(Unpooled.wrappedBuffer(new byte[] {b}));
        }
        ByteArrayOutputStream expected = new ByteArrayOutputStream();
        expected.writeBytes(Vectors.hex("multistreamSelect.na.bytes"));
        expected.writeBytes(MultistreamSelect.encode("/meshsub/1.1.0"));
        assertThat(readAll(ch)).isEqualTo(expected.toByteArray());
        assertThat(h.result()).isCompletedWithValue("/meshsub/1.1.0");
        ch.finish();
    }

    @Test
    void listenerAnswersLs() {
        MultistreamHandler h = MultistreamHandler.listener(List.of("/a", "/b"), (ctx, p) -> {});
        EmbeddedChannel ch = new EmbeddedChannel(h);
        readAll(ch);
        ByteArrayOutputStream in = new ByteArrayOutputStream();
        in.writeBytes(HEADER);
        in.writeBytes(MultistreamSelect.encode("ls"));
        ch.writeInbound(Unpooled.wrappedBuffer(in.toByteArray()));
        ByteBuf out = Unpooled.wrappedBuffer(readAll(ch));
        long len = dev.chorus.gossip.encoding.Varint.read(out);
        assertThat(len).isEqualTo(out.readableBytes());
        assertThat(MultistreamSelect.parseListing(out)).containsExactly("/a", "/b");
        assertThat(h.result()).isNotDone();
        ch.finishAndReleaseAll();
    }

    @Test
    void dialerPipelinesAndFallsBackOnNa() {
        List<String> selected = new ArrayList<>();
        MultistreamHandler h =
                MultistreamHandler.dialer(List.of("/yamux/1.0.0", "/mplex/6.7.0"), (ctx, p) -> selected.add(p));
        EmbeddedChannel ch = new EmbeddedChannel(h);
        ByteArrayOutputStream first = new ByteArrayOutputStream();
        first.writeBytes(HEADER);
        first.writeBytes(Vectors.hex("multistreamSelect.yamux.bytes"));
        assertThat(readAll(ch)).isEqualTo(first.toByteArray());
        ByteArrayOutputStream in = new ByteArrayOutputStream();
        in.writeBytes(HEADER);
        in.writeBytes(Vectors.hex("multistreamSelect.na.bytes"));
        ch.writeInbound(Unpooled.wrappedBuffer(in.toByteArray()));
        assertThat(readAll(ch)).isEqualTo(Vectors.hex("multistreamSelect.mplex.bytes"));
        ch.writeInbound(Unpooled.wrappedBuffer(Vectors.hex("multistreamSelect.mplex.bytes")));
        assertThat(selected).containsExactly("/mplex/6.7.0");
        assertThat(h.result()).isCompletedWithValue("/mplex/6.7.0");
        ch.finish();
    }

    @Test
    void dialerFailsWhenEverythingRefused() {
        MultistreamHandler h = MultistreamHandler.dialer(List.of("/noise"), (ctx, p) -> {});
        EmbeddedChannel ch = new EmbeddedChannel(h);
        readAll(ch);
        ByteArrayOutputStream in = new ByteArrayOutputStream();
        in.writeBytes(HEADER);
        in.writeBytes(Vectors.hex("multistreamSelect.na.bytes"));
        ch.writeInbound(Unpooled.wrappedBuffer(in.toByteArray()));
        assertThat(h.result()).isCompletedExceptionally();
        assertThat(h.result().exceptionNow()).isInstanceOf(UnsupportedProtocolException.class);
        assertThat(ch.isOpen()).isFalse();
        ch.finishAndReleaseAll();
    }

    static byte[] readAll(EmbeddedChannel ch) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteBuf b;
        while ((b = ch.readOutbound()) != null) {
            byte[] a = new byte[b.readableBytes()];
            b.readBytes(a);
            b.release();
            out.writeBytes(a);
        }
        return out.toByteArray();
    }
}
