package dev.chorus.gossip.host;

import dev.chorus.gossip.core.Streams;
import dev.chorus.gossip.multistream.MultistreamSelect;
import dev.chorus.gossip.yamux.YamuxStream;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.io.ByteArrayOutputStream;
import java.io.EOFException;
import java.util.concurrent.CompletableFuture;

/** Runs multistream-select on a yamux stream; bytes read past the agreement go back to the stream. */
final class StreamNegotiation {
    private StreamNegotiation() {}

    static CompletableFuture<String> run(YamuxStream stream, MultistreamSelect.Negotiator negotiator) {
        CompletableFuture<String> result = new CompletableFuture<>();
        ByteBuf cumulation = Unpooled.buffer();
        String[] selected = {null};
        stream.write(negotiator.start()).exceptionally(e -> {
            result.completeExceptionally(e);
            return null;
        });
        Streams.loop(() -> stream.read().thenCompose(chunk -> {
                    if (chunk.length == 0) {
                        return CompletableFuture.failedFuture(
                                new EOFException("stream closed during protocol negotiation"));
                    }
                    cumulation.writeBytes(chunk);
                    ByteArrayOutputStream replies = new ByteArrayOutputStream();
                    selected[0] = negotiator.onInput(cumulation, replies);
                    cumulation.discardReadBytes();
                    CompletableFuture<Void> w = replies.size() > 0
                            ? stream.write(replies.toByteArray())
                            : CompletableFuture.completedFuture(null);
                    return w.thenApply(v -> selected[0] == null);
                }))
                .whenComplete((v, err) -> {
                    try {
                        if (err != null) {
                            result.completeExceptionally(err);
                        } else {
                            if (cumulation.isReadable()) {
                                byte[] rest = new byte[cumulation.readableBytes()];
                                cumulation.readBytes(rest);
                                stream.unread(rest);
                            }
                            stream.setProtocol(selected[0]);
                            result.complete(selected[0]);
                        }
                    } finally {
                        cumulation.release();
                    }
                });
        return result;
    }
}
