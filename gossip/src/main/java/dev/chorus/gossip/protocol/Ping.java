package dev.chorus.gossip.protocol;

import dev.chorus.gossip.core.Stream;
import dev.chorus.gossip.core.StreamHandler;
import dev.chorus.gossip.core.Streams;
import java.io.IOException;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;

/**
 * Ping (libp2p/specs ping/ping.md): the dialer writes 32 random bytes, the listener echoes them, as often
 * as the dialer likes on one stream; the dialer half-closes when done.
 */
public final class Ping {
    public static final String ID = "/ipfs/ping/1.0.0";
    public static final int PAYLOAD_BYTES = 32;

    private static final SecureRandom RANDOM = new SecureRandom();

    private Ping() {}

    /** Echoes whatever arrives until the dialer half-closes, then closes. */
    public static StreamHandler handler() {
        return stream -> Streams.forEachChunk(stream, stream::write).whenComplete((n, err) -> {
            if (err == null) {
                stream.closeWrite();
            } else {
                stream.reset();
            }
        });
    }

    /** Sends {@code count} pings on {@code stream}, one after the other, then half-closes. */
    public static CompletableFuture<List<Duration>> ping(Stream stream, int count) {
        List<Duration> rtts = new ArrayList<>();
        return Streams.loop(() -> {
                    if (rtts.size() == count) {
                        return CompletableFuture.completedFuture(false);
                    }
                    return once(stream).thenApply(rtt -> {
                        rtts.add(rtt);
                        return true;
                    });
                })
                .thenCompose(v -> stream.closeWrite())
                .thenApply(v -> List.copyOf(rtts));
    }

    private static CompletionStage<Duration> once(Stream stream) {
        byte[] payload = new byte[PAYLOAD_BYTES];
        RANDOM.nextBytes(payload);
        long start = System.nanoTime();
        return stream.write(payload)
                .thenCompose(v -> stream.readExactly(PAYLOAD_BYTES))
                .thenApply(echo -> {
                    long rtt = System.nanoTime() - start;
                    if (!MessageDigest.isEqual(echo, payload)) {
                        throw new CompletionException(new IOException("ping echo does not match what was sent"));
                    }
                    return Duration.ofNanos(rtt);
                });
    }
}
