package dev.chorus.gossip.protocol;

import dev.chorus.gossip.core.Stream;
import dev.chorus.gossip.core.StreamHandler;
import dev.chorus.gossip.core.Streams;
import java.util.concurrent.CompletableFuture;

/** {@code /chorus/echo/1.0.0}: the server writes back every byte it reads, and closes after the client's FIN. */
public final class Echo {
    public static final String ID = "/chorus/echo/1.0.0";
    static final int CHUNK = 64 * 1024;

    private Echo() {}

    public static StreamHandler handler() {
        return stream -> Streams.forEachChunk(stream, stream::write).whenComplete((n, err) -> {
            if (err == null) {
                stream.closeWrite();
            } else {
                stream.reset();
            }
        });
    }

    /** Sends {@code data}, half-closes, and returns everything echoed back (at most {@code data.length} bytes). */
    public static CompletableFuture<byte[]> echo(Stream stream, byte[] data) {
        CompletableFuture<byte[]> reply = stream.readToEnd(data.length);
        int[] offset = {0};
        CompletableFuture<Void> sent = Streams.loop(() -> {
                    if (offset[0] == data.length) {
                        return CompletableFuture.completedFuture(false);
                    }
                    int n = Math.min(CHUNK, data.length - offset[0]);
                    byte[] chunk = java.util.Arrays.copyOfRange(data, offset[0], offset[0] + n);
                    offset[0] += n;
                    return stream.write(chunk).thenApply(v -> true);
                })
                .thenCompose(v -> stream.closeWrite());
        return sent.thenCombine(reply, (v, r) -> r);
    }
}
