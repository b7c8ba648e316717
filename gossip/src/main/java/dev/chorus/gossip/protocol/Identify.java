package dev.chorus.gossip.protocol;

import dev.chorus.gossip.core.Stream;
import dev.chorus.gossip.core.StreamHandler;
import dev.chorus.gossip.encoding.LengthPrefixed;
import dev.chorus.gossip.encoding.Varint;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.handler.codec.CorruptedFrameException;
import java.io.IOException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.function.BiConsumer;
import java.util.function.Function;

/**
 * Identify: the identified peer writes one uvarint length-prefixed {@code Identify} message and closes
 * its write side. Push is the same message sent unasked by the peer whose record changed.
 */
public final class Identify {
    public static final String ID = "/ipfs/id/1.0.0";
    public static final String PUSH_ID = "/ipfs/id/push/1.0.0";
    public static final String PROTOCOL_VERSION = "ipfs/0.1.0";
    /** What js-libp2p reads at most ({@code MAX_IDENTIFY_MESSAGE_SIZE}); also this node's bound. */
    public static final int MAX_MESSAGE_SIZE = 8192;

    private Identify() {}

    /** Serves identify: {@code localInfo} builds the record for the asking stream (observed address). */
    public static StreamHandler handler(Function<Stream, IdentifyInfo> localInfo) {
        return stream -> send(stream, localInfo.apply(stream));
    }

    /** Serves identify push: each valid record received is passed to {@code onPush}. */
    public static StreamHandler pushHandler(BiConsumer<Stream, IdentifyInfo> onPush) {
        return stream -> receive(stream).thenAccept(info -> onPush.accept(stream, info));
    }

    /** Writes {@code info} and half-closes; used by the responder and by push. */
    public static CompletableFuture<Void> send(Stream stream, IdentifyInfo info) {
        byte[] msg = info.encode();
        if (msg.length > MAX_MESSAGE_SIZE) {
            stream.reset();
            return CompletableFuture.failedFuture(
                    new IOException("identify record of " + msg.length + " bytes is too large"));
        }
        return stream.write(LengthPrefixed.encode(msg)).thenCompose(v -> stream.closeWrite());
    }

    /**
     * Reads the remote's record; fails if it is malformed, too large, or its key is not the stream's
     * remote peer.
     */
    public static CompletableFuture<IdentifyInfo> receive(Stream stream) {
        CompletableFuture<IdentifyInfo> info = parse(stream);
        // The asking side has nothing to send: close its write side so the stream ends on both.
        info.whenComplete((v, e) -> {
            if (e == null) {
                stream.closeWrite();
            } else {
                stream.reset();
            }
        });
        return info;
    }

    private static CompletableFuture<IdentifyInfo> parse(Stream stream) {
        return stream.readToEnd(MAX_MESSAGE_SIZE + Varint.MAX_BYTES).thenApply(bytes -> {
            ByteBuf buf = Unpooled.wrappedBuffer(bytes);
            byte[] msg;
            try {
                msg = LengthPrefixed.tryRead(buf, MAX_MESSAGE_SIZE);
            } catch (CorruptedFrameException e) {
                throw new CompletionException(new IOException("malformed identify framing: " + e.getMessage()));
            } finally {
                buf.release();
            }
            if (msg == null) {
                throw new CompletionException(new IOException("truncated identify message"));
            }
            IdentifyInfo info;
            try {
                info = IdentifyInfo.decode(msg);
            } catch (IllegalArgumentException e) {
                throw new CompletionException(new IOException(e.getMessage(), e));
            }
            if (info.publicKey() != null && !info.publicKey().toPeerId().equals(stream.remotePeer())) {
                throw new CompletionException(
                        new IOException("identify key of " + info.publicKey().toPeerId()
                                + " does not match the connection's peer " + stream.remotePeer()));
            }
            return info;
        });
    }
}
