package dev.chorus.gossip.noise;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.MessageToByteEncoder;
import java.nio.ByteBuffer;

/**
 * Outbound Noise transport: encrypts each write into frames of at most {@link #MAX_PLAINTEXT} plaintext
 * bytes ({@code u16 length ++ ciphertext ++ tag}), all in one output buffer so one write stays one write.
 *
 * <p>The plaintext is read straight from the message's components (a composite of a header and a
 * wrapped payload needs no copy). With libcrypto, which reads and writes heap arrays and direct memory
 * alike, the frames are sealed into a direct buffer, which the socket sends without copying it first.
 * The JDK's cipher is array-based and copies direct buffers through temporary arrays, so with it the
 * output is a heap buffer, and a direct component is copied into it and encrypted in place there. The message is fully consumed when {@code write} returns,
 * so a caller may reuse a wrapped array once its write is issued. The cipher is freed when the encoder
 * leaves the pipeline (the connection closed).
 */
public final class NoiseFrameEncoder extends MessageToByteEncoder<ByteBuf> {
    /** 65535 - 16: the largest plaintext a 2-byte-length frame can carry. */
    public static final int MAX_PLAINTEXT = 65535 - CipherState.TAG_LENGTH;

    private final CipherState sender;

    NoiseFrameEncoder(CipherState sender) {
        super(ByteBuf.class);
        this.sender = sender;
    }

    static int encodedSize(int plaintext) {
        int frames = (plaintext + MAX_PLAINTEXT - 1) / MAX_PLAINTEXT;
        return plaintext + frames * (2 + CipherState.TAG_LENGTH);
    }

    @Override
    protected ByteBuf allocateBuffer(ChannelHandlerContext ctx, ByteBuf msg, boolean preferDirect) {
        int size = encodedSize(msg.readableBytes());
        return sender.directOutput()
                ? ctx.alloc().directBuffer(size)
                : ctx.alloc().heapBuffer(size);
    }

    @Override
    protected void encode(ChannelHandlerContext ctx, ByteBuf msg, ByteBuf out) {
        out.ensureWritable(encodedSize(msg.readableBytes()));
        if (out.hasArray()) {
            encodeToArray(msg, out);
        } else if (out.nioBufferCount() == 1) {
            encodeToDirect(msg, out);
        } else {
            throw new IllegalStateException("the Noise encoder needs a heap or a contiguous direct output buffer");
        }
    }

    private void encodeToArray(ByteBuf msg, ByteBuf out) {
        byte[] dst = out.array();
        while (msg.isReadable()) {
            int n = Math.min(msg.readableBytes(), MAX_PLAINTEXT);
            out.writeShort(n + CipherState.TAG_LENGTH);
            int pos = out.arrayOffset() + out.writerIndex();
            sender.startEncryption();
            if (msg.nioBufferCount() == 1 && msg.hasArray()) {
                sender.encryptUpdate(msg.array(), msg.arrayOffset() + msg.readerIndex(), n, dst, pos);
            } else {
                for (ByteBuffer part : msg.nioBuffers(msg.readerIndex(), n)) {
                    sender.encryptUpdate(part, dst, pos);
                    pos += part.remaining();
                }
                pos -= n;
            }
            sender.finishEncryption(dst, pos + n);
            out.writerIndex(out.writerIndex() + n + CipherState.TAG_LENGTH);
            msg.skipBytes(n);
        }
    }

    /** Seals each frame straight into the direct buffer the socket sends from, so the transport copies nothing. */
    private void encodeToDirect(ByteBuf msg, ByteBuf out) {
        while (msg.isReadable()) {
            int n = Math.min(msg.readableBytes(), MAX_PLAINTEXT);
            out.writeShort(n + CipherState.TAG_LENGTH);
            ByteBuffer dst = out.nioBuffer(out.writerIndex(), n + CipherState.TAG_LENGTH);
            sender.startEncryption();
            int pos = 0;
            for (ByteBuffer part : msg.nioBuffers(msg.readerIndex(), n)) {
                sender.encryptUpdate(part, dst.slice(pos, part.remaining()));
                pos += part.remaining();
            }
            sender.finishEncryption(dst.slice(n, CipherState.TAG_LENGTH));
            out.writerIndex(out.writerIndex() + n + CipherState.TAG_LENGTH);
            msg.skipBytes(n);
        }
    }

    @Override
    public void handlerRemoved(ChannelHandlerContext ctx) throws Exception {
        sender.close();
        super.handlerRemoved(ctx);
    }
}
