package dev.chorus.gossip.noise;

import dev.chorus.gossip.identity.PeerId;
import dev.chorus.gossip.identity.PrivateKey;
import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.ByteToMessageDecoder;
import java.security.SecureRandom;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.BiConsumer;

/**
 * Runs the Noise XX handshake on a channel with 2-byte length framing. On success it installs {@link
 * NoiseFrameDecoder} and {@link NoiseFrameEncoder} in its place, calls {@code onSecured} (to install
 * the next layer after them), completes {@link #result()}, and passes any bytes that followed the last
 * handshake message on to the decoder. Any failure fails the result and closes the channel.
 */
public final class NoiseHandshakeHandler extends ByteToMessageDecoder {
    private static final System.Logger LOG = System.getLogger(NoiseHandshakeHandler.class.getName());
    public static final String DECODER_NAME = "noise-decoder";
    public static final String ENCODER_NAME = "noise-encoder";

    private final NoiseHandshake handshake;
    private final BiConsumer<ChannelHandlerContext, SecureSession> onSecured;
    private final CompletableFuture<SecureSession> result = new CompletableFuture<>();
    private boolean started;

    public NoiseHandshakeHandler(NoiseHandshake handshake, BiConsumer<ChannelHandlerContext, SecureSession> onSecured) {
        this.handshake = handshake;
        this.onSecured = onSecured;
    }

    /** A handshake with a fresh static and ephemeral key, and the JDK's cipher on the transport. */
    public static NoiseHandshakeHandler create(
            boolean initiator,
            PrivateKey identity,
            List<String> inlineMuxers,
            PeerId expectedRemote,
            SecureRandom random,
            BiConsumer<ChannelHandlerContext, SecureSession> onSecured) {
        return create(initiator, identity, inlineMuxers, expectedRemote, random, NoiseCiphers.jdk(), onSecured);
    }

    /** A handshake with a fresh static and ephemeral key, and {@code transportCipher} on the transport. */
    public static NoiseHandshakeHandler create(
            boolean initiator,
            PrivateKey identity,
            List<String> inlineMuxers,
            PeerId expectedRemote,
            SecureRandom random,
            AeadProvider transportCipher,
            BiConsumer<ChannelHandlerContext, SecureSession> onSecured) {
        NoiseHandshake hs = new NoiseHandshake(
                initiator,
                identity,
                X25519KeyPair.generate(random),
                X25519KeyPair.generate(random),
                inlineMuxers,
                expectedRemote,
                transportCipher);
        return new NoiseHandshakeHandler(hs, onSecured);
    }

    public CompletableFuture<SecureSession> result() {
        return result;
    }

    @Override
    public void handlerAdded(ChannelHandlerContext ctx) {
        if (ctx.channel().isActive()) {
            start(ctx);
        }
    }

    @Override
    public void channelActive(ChannelHandlerContext ctx) throws Exception {
        start(ctx);
        super.channelActive(ctx);
    }

    private void start(ChannelHandlerContext ctx) {
        if (!started) {
            started = true;
            if (handshake.isInitiator()) {
                send(ctx, handshake.writeMessage());
            }
        }
    }

    @Override
    protected void decode(ChannelHandlerContext ctx, ByteBuf in, List<Object> out) {
        while (!result.isDone() && in.readableBytes() >= 2) {
            int len = in.getUnsignedShort(in.readerIndex());
            if (in.readableBytes() < 2 + len) {
                return;
            }
            in.skipBytes(2);
            byte[] msg = new byte[len];
            in.readBytes(msg);
            try {
                handshake.readMessage(msg);
                if (!handshake.isComplete()) {
                    send(ctx, handshake.writeMessage());
                }
                if (handshake.isComplete()) {
                    finish(ctx);
                    return;
                }
            } catch (RuntimeException e) {
                in.skipBytes(in.readableBytes());
                fail(ctx, e);
                return;
            }
        }
    }

    private void finish(ChannelHandlerContext ctx) {
        SecureSession session = handshake.session();
        String name = ctx.name();
        ctx.pipeline().addAfter(name, DECODER_NAME, new NoiseFrameDecoder(session.receiver));
        ctx.pipeline().addAfter(name, ENCODER_NAME, new NoiseFrameEncoder(session.sender));
        onSecured.accept(ctx.pipeline().context(DECODER_NAME), session);
        result.complete(session);
        ctx.pipeline().remove(this);
    }

    private void send(ChannelHandlerContext ctx, byte[] msg) {
        if (msg.length > 65535) {
            throw new NoiseException("handshake message of " + msg.length + " bytes does not fit a frame");
        }
        ByteBuf b = ctx.alloc().buffer(2 + msg.length);
        b.writeShort(msg.length);
        b.writeBytes(msg);
        ctx.writeAndFlush(b);
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) throws Exception {
        result.completeExceptionally(new NoiseException("connection closed during the Noise handshake"));
        super.channelInactive(ctx);
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        fail(ctx, cause);
    }

    private void fail(ChannelHandlerContext ctx, Throwable cause) {
        if (result.completeExceptionally(cause)) {
            LOG.log(System.Logger.Level.DEBUG, "noise handshake failed on {0}: {1}", ctx.channel(), cause.toString());
        }
        ctx.close();
    }
}
