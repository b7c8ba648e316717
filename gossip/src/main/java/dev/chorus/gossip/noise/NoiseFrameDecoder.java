package dev.chorus.gossip.noise;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.ByteToMessageDecoder;
import java.util.List;

/**
 * Inbound Noise transport: splits {@code u16 length ++ ciphertext} frames and decrypts them. A frame
 * too short to hold a tag, or one that fails authentication, closes the connection. At most one
 * partial frame (65537 bytes) is ever buffered here.
 */
public final class NoiseFrameDecoder extends ByteToMessageDecoder {
    private static final System.Logger LOG = System.getLogger(NoiseFrameDecoder.class.getName());

    private final CipherState receiver;
    private boolean failed;

    NoiseFrameDecoder(CipherState receiver) {
        this.receiver = receiver;
    }

    @Override
    protected void decode(ChannelHandlerContext ctx, ByteBuf in, List<Object> out) {
        while (!failed && in.readableBytes() >= 2) {
            int len = in.getUnsignedShort(in.readerIndex());
            if (in.readableBytes() < 2 + len) {
                return;
            }
            if (len < CipherState.TAG_LENGTH) {
                fail(ctx, in, new NoiseException("noise frame of " + len + " bytes is shorter than its tag"));
                return;
            }
            in.skipBytes(2);
            int plainLen = len - CipherState.TAG_LENGTH;
            // Heap arrays in and out: the JDK cipher copies direct buffers through temporary arrays.
            ByteBuf plain = ctx.alloc().heapBuffer(len);
            boolean ok = false;
            try {
                byte[] dst = plain.array();
                int off = plain.arrayOffset();
                if (in.hasArray()) {
                    receiver.decrypt(in.array(), in.arrayOffset() + in.readerIndex(), len, dst, off);
                } else {
                    // One copy off the socket's direct buffer, then decryption in place.
                    in.getBytes(in.readerIndex(), dst, off, len);
                    receiver.decrypt(dst, off, len, dst, off);
                }
                plain.writerIndex(plainLen);
                in.skipBytes(len);
                ok = true;
            } catch (NoiseException e) {
                fail(ctx, in, e);
                return;
            } finally {
                if (!ok) {
                    plain.release();
                }
            }
            if (plainLen > 0) {
                out.add(plain);
            } else {
                plain.release();
            }
        }
    }

    private void fail(ChannelHandlerContext ctx, ByteBuf in, NoiseException e) {
        failed = true;
        in.skipBytes(in.readableBytes());
        LOG.log(System.Logger.Level.WARNING, "closing {0}: {1}", ctx.channel(), e.getMessage());
        ctx.close();
    }
}
