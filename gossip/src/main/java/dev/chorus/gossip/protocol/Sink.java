package dev.chorus.gossip.protocol;

import dev.chorus.gossip.core.Stream;
import dev.chorus.gossip.core.StreamHandler;
import dev.chorus.gossip.core.Streams;
import dev.chorus.gossip.identity.PeerId;
import java.nio.ByteBuffer;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.util.HexFormat;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;

/**
 * {@code /chorus/sink/1.0.0}: the server counts bytes until the client's FIN, then writes the count as 8
 * bytes big-endian and closes. The client times the transfer from its first write to the reply.
 */
public final class Sink {
    public static final String ID = "/chorus/sink/1.0.0";
    public static final int CHUNK = 64 * 1024;

    private Sink() {}

    /** What the server saw on one stream. */
    public record Received(PeerId peer, long bytes, String sha256, Duration elapsed) {}

    /** What the client saw: bytes sent, the count the server acknowledged, and the sent data's digest. */
    public record Result(long bytesSent, long bytesAcknowledged, String sha256, Duration elapsed) {
        public double mibPerSecond() {
            return bytesSent / (1024.0 * 1024.0) / Math.max(1e-9, elapsed.toNanos() / 1e9);
        }
    }

    /** Serves the sink; {@code onReceived} (may be null) gets each completed transfer. */
    public static StreamHandler handler(Consumer<Received> onReceived) {
        return stream -> {
            long start = System.nanoTime();
            MessageDigest digest = sha256();
            Streams.forEachChunk(stream, chunk -> {
                        digest.update(chunk);
                        return CompletableFuture.completedFuture(null);
                    })
                    .thenCompose(total -> {
                        if (onReceived != null) {
                            onReceived.accept(new Received(
                                    stream.remotePeer(),
                                    total,
                                    HexFormat.of().formatHex(digest.digest()),
                                    Duration.ofNanos(System.nanoTime() - start)));
                        }
                        return stream.write(
                                ByteBuffer.allocate(8).putLong(total).array());
                    })
                    .thenCompose(v -> stream.closeWrite())
                    .whenComplete((v, err) -> {
                        if (err != null) {
                            stream.reset();
                        }
                    });
        };
    }

    /**
     * Sends {@code bytes} pseudo-random bytes (from {@code seed}) in {@link #CHUNK}-byte writes, each
     * awaited, half-closes, and reads the server's count.
     */
    public static CompletableFuture<Result> send(Stream stream, long bytes, long seed) {
        SplittableRandom random = new SplittableRandom(seed);
        MessageDigest digest = sha256();
        long[] sent = {0};
        long start = System.nanoTime();
        return Streams.loop(() -> {
                    if (sent[0] == bytes) {
                        return CompletableFuture.completedFuture(false);
                    }
                    byte[] chunk = new byte[(int) Math.min(CHUNK, bytes - sent[0])];
                    fill(random, chunk);
                    digest.update(chunk);
                    sent[0] += chunk.length;
                    return stream.write(chunk).thenApply(v -> true);
                })
                .thenCompose(v -> stream.closeWrite())
                .thenCompose(v -> stream.readExactly(8))
                .thenApply(reply -> new Result(
                        sent[0],
                        ByteBuffer.wrap(reply).getLong(),
                        HexFormat.of().formatHex(digest.digest()),
                        Duration.ofNanos(System.nanoTime() - start)));
    }

    private static void fill(SplittableRandom random, byte[] chunk) {
        int i = 0;
        for (; i + 8 <= chunk.length; i += 8) {
            long v = random.nextLong();
            for (int k = 0; k < 8; k++) {
                chunk[i + k] = (byte) (v >>> (8 * k));
            }
        }
        for (; i < chunk.length; i++) {
            chunk[i] = (byte) random.nextInt(256);
        }
    }

    static MessageDigest sha256() {
        try {
            return MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
