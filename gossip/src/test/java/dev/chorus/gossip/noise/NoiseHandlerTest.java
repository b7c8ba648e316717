package dev.chorus.gossip.noise;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.chorus.gossip.identity.PeerId;
import dev.chorus.gossip.identity.PrivateKey;
import io.netty.buffer.AbstractByteBufAllocator;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.embedded.EmbeddedChannel;
import java.io.ByteArrayOutputStream;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** Two embedded channels joined by hand: the handshake, transport framing, and hostile frames. */
class NoiseHandlerTest {
    static final SecureRandom RANDOM = new SecureRandom();

    static final class Sink extends ChannelInboundHandlerAdapter {
        final ByteArrayOutputStream got = new ByteArrayOutputStream();

        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            ByteBuf b = (ByteBuf) msg;
            byte[] a = new byte[b.readableBytes()];
            b.readBytes(a);
            b.release();
            got.writeBytes(a);
        }
    }

    record Pair(
            EmbeddedChannel init,
            EmbeddedChannel resp,
            NoiseHandshakeHandler ih,
            NoiseHandshakeHandler rh,
            Sink iSink,
            Sink rSink) {}

    static Pair handshake(PrivateKey a, PrivateKey b, PeerId expect) {
        return handshake(a, b, expect, NoiseCiphers.jdk(), NoiseCiphers.jdk());
    }

    /** As above, with the initiator's and the responder's transport cipher given. */
    static Pair handshake(PrivateKey a, PrivateKey b, PeerId expect, AeadProvider ip, AeadProvider rp) {
        Sink iSink = new Sink();
        Sink rSink = new Sink();
        NoiseHandshakeHandler ih =
                NoiseHandshakeHandler.create(true, a, List.of(), expect, RANDOM, ip, (ctx, s) -> ctx.pipeline()
                        .addAfter(ctx.name(), "sink", iSink));
        NoiseHandshakeHandler rh =
                NoiseHandshakeHandler.create(false, b, List.of(), null, RANDOM, rp, (ctx, s) -> ctx.pipeline()
                        .addAfter(ctx.name(), "sink", rSink));
        EmbeddedChannel init = new EmbeddedChannel(ih);
        EmbeddedChannel resp = new EmbeddedChannel(rh);
        pump(init, resp);
        return new Pair(init, resp, ih, rh, iSink, rSink);
    }

    /** Moves bytes both ways until neither side has anything to send. */
    static void pump(EmbeddedChannel a, EmbeddedChannel b) {
        boolean moved = true;
        while (moved) {
            moved = move(a, b) | move(b, a);
        }
    }

    static boolean move(EmbeddedChannel from, EmbeddedChannel to) {
        boolean moved = false;
        ByteBuf buf;
        while ((buf = from.readOutbound()) != null) {
            moved = true;
            if (to.isOpen()) {
                to.writeInbound(buf);
            } else {
                buf.release();
            }
        }
        return moved;
    }

    @Test
    void handshakeThenLargeWritesAreSplitAndReassembled() {
        PrivateKey a = PrivateKey.generate();
        PrivateKey b = PrivateKey.generate();
        Pair p = handshake(a, b, b.peerId());
        assertThat(p.ih.result()).isCompleted();
        assertThat(p.rh.result().join().remotePeer()).isEqualTo(a.peerId());
        assertThat(p.init.pipeline().get(NoiseHandshakeHandler.class)).isNull();

        byte[] big = new byte[200_000];
        new Random(1).nextBytes(big);
        p.init.writeOutbound(Unpooled.wrappedBuffer(big));
        ByteBuf wire = p.init.readOutbound();
        // 200000 bytes = 4 frames (3 full, one partial), each with 2-byte length and 16-byte tag.
        assertThat(wire.readableBytes()).isEqualTo(200_000 + 4 * 18);
        assertThat(wire.getUnsignedShort(0)).isEqualTo(65535);
        p.resp.writeInbound(wire);
        assertThat(p.rSink.got.toByteArray()).isEqualTo(big);

        p.resp.writeOutbound(Unpooled.wrappedBuffer("pong".getBytes()));
        pump(p.init, p.resp);
        assertThat(p.iSink.got.toString()).isEqualTo("pong");
        p.init.finishAndReleaseAll();
        p.resp.finishAndReleaseAll();
    }

    @Test
    void compositeOfHeapAndDirectPartsEncryptsAsOneStreamAndDecodesFromDirectBuffers() {
        PrivateKey a = PrivateKey.generate();
        PrivateKey b = PrivateKey.generate();
        Pair p = handshake(a, b, b.peerId());
        byte[] all = new byte[150_000];
        new Random(2).nextBytes(all);
        // Parts of 12, 70000 (direct, crossing the first frame boundary) and 79988 bytes.
        ByteBuf direct = Unpooled.directBuffer(70_000).writeBytes(all, 12, 70_000);
        ByteBuf msg = Unpooled.wrappedBuffer(
                Unpooled.wrappedBuffer(all, 0, 12), direct, Unpooled.wrappedBuffer(all, 70_012, 79_988));
        p.init.writeOutbound(msg);
        ByteBuf wire = p.init.readOutbound();
        assertThat(wire.readableBytes()).isEqualTo(150_000 + 3 * 18);
        // Arrive as a socket would deliver them: direct buffers, split off frame boundaries.
        while (wire.isReadable()) {
            int n = Math.min(wire.readableBytes(), 50_000);
            ByteBuf piece = Unpooled.directBuffer(n);
            wire.readBytes(piece, n);
            p.resp.writeInbound(piece);
        }
        wire.release();
        assertThat(p.rSink.got.toByteArray()).isEqualTo(all);
        p.init.finishAndReleaseAll();
        p.resp.finishAndReleaseAll();
    }

    @Test
    void truncatedFrameIsBufferedUntilComplete() {
        PrivateKey a = PrivateKey.generate();
        PrivateKey b = PrivateKey.generate();
        Pair p = handshake(a, b, null);
        p.init.writeOutbound(Unpooled.wrappedBuffer("split me".getBytes()));
        ByteBuf wire = p.init.readOutbound();
        p.resp.writeInbound(wire.readRetainedSlice(5));
        assertThat(p.rSink.got.size()).isZero();
        p.resp.writeInbound(wire);
        assertThat(p.rSink.got.toString()).isEqualTo("split me");
        p.init.finishAndReleaseAll();
        p.resp.finishAndReleaseAll();
    }

    @Test
    void framesSplitAnywhereEvenInsideTheLengthPrefixAreReassembled() {
        Pair p = handshake(PrivateKey.generate(), PrivateKey.generate(), null);
        byte[] all = new byte[70_000];
        new Random(3).nextBytes(all);
        p.init.writeOutbound(Unpooled.wrappedBuffer(all, 0, 100));
        p.init.writeOutbound(Unpooled.wrappedBuffer(all, 100, 69_900));
        ByteBuf first = p.init.readOutbound();
        ByteBuf second = p.init.readOutbound();
        ByteBuf wire = Unpooled.wrappedBuffer(first, second);
        // Pieces of 1, 2, 3, ... bytes, then the rest: boundaries fall inside prefixes, ciphertexts and tags.
        int piece = 1;
        while (wire.isReadable()) {
            int n = Math.min(wire.readableBytes(), piece < 40 ? piece++ : 20_000);
            ByteBuf d = Unpooled.directBuffer(n);
            wire.readBytes(d, n);
            p.resp.writeInbound(d);
        }
        wire.release();
        assertThat(p.rSink.got.toByteArray()).isEqualTo(all);
        assertThat(p.resp.isOpen()).isTrue();
        p.init.finishAndReleaseAll();
        p.resp.finishAndReleaseAll();
    }

    @Test
    void partialFrameIsReleasedWhenTheConnectionCloses() {
        Pair p = handshake(PrivateKey.generate(), PrivateKey.generate(), null);
        List<ByteBuf> allocated = new ArrayList<>();
        p.resp.config().setAllocator(new AbstractByteBufAllocator(false) {
            @Override
            protected ByteBuf newHeapBuffer(int initialCapacity, int maxCapacity) {
                ByteBuf b = Unpooled.buffer(initialCapacity, maxCapacity);
                allocated.add(b);
                return b;
            }

            @Override
            protected ByteBuf newDirectBuffer(int initialCapacity, int maxCapacity) {
                return Unpooled.directBuffer(initialCapacity, maxCapacity);
            }

            @Override
            public boolean isDirectBufferPooled() {
                return false;
            }
        });
        p.init.writeOutbound(Unpooled.wrappedBuffer(new byte[1000]));
        ByteBuf wire = p.init.readOutbound();
        p.resp.writeInbound(wire.readRetainedSlice(500));
        wire.release();
        assertThat(p.rSink.got.size()).isZero();
        assertThat(allocated).hasSize(1);
        assertThat(allocated.getFirst().refCnt()).isEqualTo(1);
        p.resp.close();
        assertThat(allocated.getFirst().refCnt()).isZero();
        p.init.finishAndReleaseAll();
        p.resp.finishAndReleaseAll();
    }

    @Test
    void tamperedOrShortTransportFrameClosesConnection() {
        Pair p = handshake(PrivateKey.generate(), PrivateKey.generate(), null);
        p.init.writeOutbound(Unpooled.wrappedBuffer("data".getBytes()));
        ByteBuf wire = p.init.readOutbound();
        wire.setByte(5, wire.getByte(5) ^ 1);
        p.resp.writeInbound(wire);
        assertThat(p.resp.isOpen()).isFalse();
        assertThat(p.rSink.got.size()).isZero();

        Pair q = handshake(PrivateKey.generate(), PrivateKey.generate(), null);
        q.resp.writeInbound(Unpooled.wrappedBuffer(new byte[] {0, 3, 1, 2, 3}));
        assertThat(q.resp.isOpen()).isFalse();
        p.init.finishAndReleaseAll();
        p.resp.finishAndReleaseAll();
        q.init.finishAndReleaseAll();
        q.resp.finishAndReleaseAll();
    }

    @Test
    void wrongPeerClosesDuringHandshake() {
        PrivateKey b = PrivateKey.generate();
        Pair p = handshake(PrivateKey.generate(), b, PrivateKey.generate().peerId());
        assertThat(p.ih.result()).isCompletedExceptionally();
        assertThat(p.ih.result().exceptionNow()).hasMessageContaining("but the remote is " + b.peerId());
        assertThat(p.init.isOpen()).isFalse();
        assertThat(p.rh.result()).isNotDone();
        p.resp.close(); // what the TCP close would do to the responder
        assertThat(p.rh.result().exceptionNow()).hasMessageContaining("closed during the Noise handshake");
        p.init.finishAndReleaseAll();
        p.resp.finishAndReleaseAll();
    }

    @Test
    void badSignatureIsRefused() {
        PrivateKey b = PrivateKey.generate();
        NoiseHandshake forger = new NoiseHandshake(
                false, b, X25519KeyPair.generate(RANDOM), X25519KeyPair.generate(RANDOM), List.of(), null);
        // A valid signature by b, but over some other static key than the one in the handshake.
        byte[] otherStatic = X25519KeyPair.generate(RANDOM).publicKey();
        byte[] wrongSig = b.sign(NoiseHandshake.concat(NoiseHandshake.SIGNATURE_PREFIX, otherStatic));
        forger.filterPayloadForTest(
                payload -> new HandshakePayload(b.publicKey().toProtobuf(), wrongSig, List.of()).encode());
        NoiseHandshake victim = new NoiseHandshake(
                true,
                PrivateKey.generate(),
                X25519KeyPair.generate(RANDOM),
                X25519KeyPair.generate(RANDOM),
                List.of(),
                null);
        forger.readMessage(victim.writeMessage());
        byte[] forged = forger.writeMessage();
        assertThatThrownBy(() -> victim.readMessage(forged))
                .isInstanceOf(NoiseException.class)
                .hasMessageContaining("signature");
    }

    @Test
    void payloadWithoutKeyIsRefused() {
        PrivateKey b = PrivateKey.generate();
        NoiseHandshake forger = new NoiseHandshake(
                false, b, X25519KeyPair.generate(RANDOM), X25519KeyPair.generate(RANDOM), List.of(), null);
        forger.filterPayloadForTest(payload -> new byte[] {0x12, 0x01, 0x00});
        NoiseHandshake victim = new NoiseHandshake(
                true,
                PrivateKey.generate(),
                X25519KeyPair.generate(RANDOM),
                X25519KeyPair.generate(RANDOM),
                List.of(),
                null);
        forger.readMessage(victim.writeMessage());
        byte[] forged = forger.writeMessage();
        assertThatThrownBy(() -> victim.readMessage(forged)).hasMessageContaining("identity_key");
    }

    @Test
    void garbageHandshakeClosesWithoutLeaking() {
        Random rnd = new Random(11);
        for (int i = 0; i < 50; i++) {
            NoiseHandshakeHandler rh =
                    NoiseHandshakeHandler.create(false, PrivateKey.generate(), List.of(), null, RANDOM, (c, s) -> {});
            EmbeddedChannel ch = new EmbeddedChannel(rh);
            byte[] junk = new byte[rnd.nextInt(300)];
            rnd.nextBytes(junk);
            ch.writeInbound(Unpooled.wrappedBuffer(junk));
            ch.writeInbound(Unpooled.wrappedBuffer(junk));
            ch.finishAndReleaseAll();
            assertThat(rh.result()).isDone();
        }
    }
}
