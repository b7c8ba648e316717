package dev.chorus.gossip.noise;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;

/**
 * Inbound Noise transport: splits {@code u16 length ++ ciphertext} frames and decrypts them. A frame
 * too short to hold a tag, or one that fails authentication, closes the connection. At most one
 * partial frame (65535 bytes) is ever buffered here.
 *
 * <p>Each frame's ciphertext is copied once, straight from the socket's buffer into the heap buffer
 * that is then decrypted in place and passed on: a frame may straddle reads, and no plaintext may pass
 * before the whole frame's tag verifies, so one copy off the socket buffer is needed anyway. A
 * frame that straddles two reads is assembled in its own buffer, so no read is ever merged into a
 * cumulation buffer (as a {@code ByteToMessageDecoder} would do with every read that follows a
 * partial frame, copying all of it once more).
 */
public final class NoiseFrameDecoder extends ChannelInboundHandlerAdapter {
    private static final System.Logger LOG = System.getLogger(NoiseFrameDecoder.class.getName());

    private final CipherState receiver;
    /** The first byte of a length prefix that was split between reads, or -1. */
    private int lengthHigh = -1;
    /** The ciphertext of the frame being assembled, or null between frames. */
    private ByteBuf frame;

    private int frameLength;
    private boolean failed;

    NoiseFrameDecoder(CipherState receiver) {
        this.receiver = receiver;
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (!(msg instanceof ByteBuf in)) {
            ctx.fireChannelRead(msg);
            return;
        }
        try {
            while (!failed && in.isReadable()) {
                if (frame == null && !startFrame(ctx, in)) {
                    return;
                }
                int n = Math.min(in.readableBytes(), frameLength - frame.writerIndex());
                in.readBytes(frame, n);
                if (frame.writerIndex() == frameLength) {
                    ByteBuf complete = frame;
                    frame = null;
                    decryptAndPass(ctx, complete);
                }
            }
        } finally {
            in.release();
        }
    }

    /** Reads a length prefix and allocates the frame's buffer; false when the prefix is incomplete or bad. */
    private boolean startFrame(ChannelHandlerContext ctx, ByteBuf in) {
        int len;
        if (lengthHigh >= 0) {
            len = (lengthHigh << 8) | in.readUnsignedByte();
            lengthHigh = -1;
        } else if (in.readableBytes() >= 2) {
            len = in.readUnsignedShort();
        } else {
            lengthHigh = in.readUnsignedByte();
            return false;
        }
        if (len < CipherState.TAG_LENGTH) {
            fail(ctx, in, new NoiseException("noise frame of " + len + " bytes is shorter than its tag"));
            return false;
        }
        frameLength = len;
        frame = ctx.alloc().heapBuffer(len, len);
        return true;
    }

    private void decryptAndPass(ChannelHandlerContext ctx, ByteBuf f) {
        int plainLen;
        try {
            byte[] a = f.array();
            int off = f.arrayOffset();
            plainLen = receiver.decrypt(a, off, frameLength, a, off);
        } catch (NoiseException e) {
            f.release();
            fail(ctx, null, e);
            return;
        }
        if (plainLen == 0) {
            f.release();
            return;
        }
        f.writerIndex(plainLen);
        ctx.fireChannelRead(f);
    }

    private void fail(ChannelHandlerContext ctx, ByteBuf in, NoiseException e) {
        failed = true;
        if (in != null) {
            in.skipBytes(in.readableBytes());
        }
        LOG.log(System.Logger.Level.WARNING, "closing {0}: {1}", ctx.channel(), e.getMessage());
        ctx.close();
    }

    @Override
    public void handlerRemoved(ChannelHandlerContext ctx) {
        receiver.close();
        if (frame != null) {
            frame.release();
            frame = null;
        }
    }
}
