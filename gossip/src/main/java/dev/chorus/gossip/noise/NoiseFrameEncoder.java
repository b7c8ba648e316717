package dev.chorus.gossip.noise;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.MessageToByteEncoder;

/**
 * Outbound Noise transport: encrypts each write into frames of at most {@link #MAX_PLAINTEXT} plaintext
 * bytes ({@code u16 length ++ ciphertext ++ tag}), all in one output buffer so one write stays one write.
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
        return preferDirect ? ctx.alloc().ioBuffer(size) : ctx.alloc().heapBuffer(size);
    }

    @Override
    protected void encode(ChannelHandlerContext ctx, ByteBuf msg, ByteBuf out) {
        out.ensureWritable(encodedSize(msg.readableBytes()));
        while (msg.isReadable()) {
            int n = Math.min(msg.readableBytes(), MAX_PLAINTEXT);
            out.writeShort(n + CipherState.TAG_LENGTH);
            int w = out.writerIndex();
            sender.encrypt(null, msg.nioBuffer(msg.readerIndex(), n), out.nioBuffer(w, n + CipherState.TAG_LENGTH));
            out.writerIndex(w + n + CipherState.TAG_LENGTH);
            msg.skipBytes(n);
        }
    }
}
