package dev.chorus.gossip.pnet;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelDuplexHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelPromise;
import io.netty.util.ReferenceCountUtil;
import java.security.SecureRandom;
import org.bouncycastle.crypto.engines.XSalsa20Engine;
import org.bouncycastle.crypto.params.KeyParameter;
import org.bouncycastle.crypto.params.ParametersWithIV;

/**
 * The private network layer of one connection (libp2p/specs pnet/Private-Networks-PSK-V1.md, "Algorithm"): the
 * first handler after the socket. Each side sends a random 24-byte nonce in the clear, then XORs everything it
 * writes with the XSalsa20 keystream of (key, its own nonce), and everything it reads after the remote's nonce with
 * the keystream of (key, the remote's nonce).
 *
 * <p>There is no authentication here: with another key (or none) the remote's bytes decrypt to noise, and the
 * negotiation above (multistream-select, Noise) fails and closes the connection.
 *
 * <p>The nonce goes out when the channel becomes active, or before the first write if a handler writes earlier.
 * Inbound bytes are held back until the remote's nonce is complete; the bytes that arrive with it are decrypted
 * and passed on.
 */
public final class PrivateNetworkHandler extends ChannelDuplexHandler {
    public static final int NONCE_BYTES = 24;

    private final byte[] key;
    private final byte[] localNonce;
    private final XSalsa20Engine writer;
    private final byte[] remoteNonce = new byte[NONCE_BYTES];
    private int remoteNonceBytes;
    /** Null until the remote's nonce is in. */
    private XSalsa20Engine reader;

    private boolean nonceSent;
    /** Bytes on their way through the cipher when a buffer has no array to work in; used on the event loop only. */
    private final byte[] scratch = new byte[16 * 1024];

    /** A handler with a random nonce. */
    public PrivateNetworkHandler(PreSharedKey key, SecureRandom random) {
        this(key, randomNonce(random));
    }

    /** A handler with the given nonce: for tests with known keystreams. A nonce must never be used twice. */
    public PrivateNetworkHandler(PreSharedKey key, byte[] localNonce) {
        if (localNonce.length != NONCE_BYTES) {
            throw new IllegalArgumentException("the nonce is " + NONCE_BYTES + " bytes, got " + localNonce.length);
        }
        this.key = key.bytes();
        this.localNonce = localNonce.clone();
        this.writer = xsalsa20(this.key, this.localNonce);
    }

    private static byte[] randomNonce(SecureRandom random) {
        byte[] nonce = new byte[NONCE_BYTES];
        random.nextBytes(nonce);
        return nonce;
    }

    private static XSalsa20Engine xsalsa20(byte[] key, byte[] nonce) {
        XSalsa20Engine engine = new XSalsa20Engine();
        engine.init(true, new ParametersWithIV(new KeyParameter(key), nonce));
        return engine;
    }

    // ---------------------------------------------------------------- outbound

    @Override
    public void handlerAdded(ChannelHandlerContext ctx) {
        if (ctx.channel().isActive()) {
            sendNonce(ctx);
            ctx.flush();
        }
    }

    @Override
    public void channelActive(ChannelHandlerContext ctx) throws Exception {
        if (!nonceSent) {
            sendNonce(ctx);
            ctx.flush();
        }
        super.channelActive(ctx);
    }

    private void sendNonce(ChannelHandlerContext ctx) {
        if (!nonceSent) {
            nonceSent = true;
            ctx.write(Unpooled.wrappedBuffer(localNonce.clone()));
        }
    }

    @Override
    public void write(ChannelHandlerContext ctx, Object msg, ChannelPromise promise) {
        if (!(msg instanceof ByteBuf in)) {
            ReferenceCountUtil.release(msg);
            promise.setFailure(
                    new UnsupportedOperationException("a private network connection carries byte buffers only, not "
                            + msg.getClass().getName()));
            return;
        }
        ByteBuf out;
        try {
            sendNonce(ctx);
            // The keystream advances with every byte, so buffers are encrypted in the order they are written.
            out = xor(writer, ctx.alloc(), in, true, scratch);
        } catch (RuntimeException e) {
            promise.setFailure(e);
            return;
        } finally {
            in.release();
        }
        ctx.write(out, promise);
    }

    // ---------------------------------------------------------------- inbound

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (!(msg instanceof ByteBuf in)) {
            ctx.fireChannelRead(msg);
            return;
        }
        ByteBuf out;
        try {
            if (reader == null) {
                int n = Math.min(NONCE_BYTES - remoteNonceBytes, in.readableBytes());
                in.readBytes(remoteNonce, remoteNonceBytes, n);
                remoteNonceBytes += n;
                if (remoteNonceBytes < NONCE_BYTES) {
                    return;
                }
                reader = xsalsa20(key, remoteNonce);
            }
            if (!in.isReadable()) {
                return;
            }
            out = xor(reader, ctx.alloc(), in, false, scratch);
        } finally {
            in.release();
        }
        ctx.fireChannelRead(out);
    }

    /**
     * The readable bytes of {@code in} XORed with the next bytes of {@code engine}'s keystream, in a new buffer:
     * direct for the socket, heap for the handlers above.
     */
    private static ByteBuf xor(
            XSalsa20Engine engine, ByteBufAllocator alloc, ByteBuf in, boolean direct, byte[] scratch) {
        int length = in.readableBytes();
        ByteBuf heap = direct ? null : alloc.heapBuffer(length);
        if (heap != null && heap.hasArray()) {
            byte[] array = heap.array();
            int offset = heap.arrayOffset() + heap.writerIndex();
            in.readBytes(array, offset, length);
            engine.processBytes(array, offset, length, array, offset);
            heap.writerIndex(heap.writerIndex() + length);
            return heap;
        }
        ByteBuf out = heap != null ? heap : alloc.ioBuffer(length);
        try {
            while (in.isReadable()) {
                int n = Math.min(scratch.length, in.readableBytes());
                in.readBytes(scratch, 0, n);
                engine.processBytes(scratch, 0, n, scratch, 0);
                out.writeBytes(scratch, 0, n);
            }
            return out;
        } catch (RuntimeException e) {
            out.release();
            throw e;
        }
    }
}
