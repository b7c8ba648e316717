package dev.chorus.cli.bench;

import dev.chorus.gossip.core.Stream;
import dev.chorus.gossip.core.StreamHandler;
import dev.chorus.gossip.core.Streams;
import dev.chorus.gossip.host.Connection;
import dev.chorus.gossip.host.Host;
import dev.chorus.gossip.host.HostConfig;
import dev.chorus.gossip.identity.PrivateKey;
import dev.chorus.gossip.libcrypto.CryptoMode;
import dev.chorus.gossip.multiaddr.Multiaddr;
import dev.chorus.gossip.protocol.Sink;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * One stream over TCP + Noise + yamux between two hosts in this JVM (each with its own I/O threads),
 * using the sink protocol: the client writes the same pseudo-random chunk again and again, each write
 * awaited, half-closes, and waits for the 8-byte count. The server only counts, as the js peer does with
 * {@code --count-only}, so neither side's figure includes hashing.
 */
public final class LibP2pThroughput implements AutoCloseable {
    private final Host server;
    private final Host client;
    private final Connection connection;

    public LibP2pThroughput() {
        this(CryptoMode.AUTO);
    }

    /** Both hosts choose their Noise transport's cipher by {@code crypto}. */
    public LibP2pThroughput(CryptoMode crypto) {
        server = Host.start(HostConfig.defaults(PrivateKey.generate())
                        .withListenAddrs(List.of(Multiaddr.parse("/ip4/127.0.0.1/tcp/0")))
                        .withCrypto(crypto))
                .join();
        server.setHandler(Sink.ID, countingSink());
        client = Host.start(HostConfig.defaults(PrivateKey.generate()).withCrypto(crypto))
                .join();
        connection = client.connect(server.listenAddrs().getFirst()).join();
    }

    /** The sink without the digest: counts until FIN, answers with the count, closes. */
    static StreamHandler countingSink() {
        return stream -> Streams.forEachChunk(stream, chunk -> CompletableFuture.completedFuture(null))
                .thenCompose(total ->
                        stream.write(ByteBuffer.allocate(8).putLong(total).array()))
                .thenCompose(v -> stream.closeWrite())
                .whenComplete((v, err) -> {
                    if (err != null) {
                        stream.reset();
                    }
                });
    }

    /** Seconds from the first write of {@code bytes} (in {@code chunk}-byte writes) to the count. */
    public double run(long bytes, int chunk) throws Exception {
        return send(connection, bytes, chunk);
    }

    /**
     * Seconds from the first write of {@code bytes} (in {@code chunk}-byte writes) on a new sink stream over {@code
     * connection} to the sink's count, whichever implementation serves the sink.
     */
    static double send(Connection connection, long bytes, int chunk) throws Exception {
        Stream s = connection.newStream(Sink.ID).get(30, TimeUnit.SECONDS);
        byte[] data = new byte[chunk];
        new SplittableRandom(7).nextBytes(data);
        byte[] tail = new byte[(int) (bytes % chunk)];
        long[] sent = {0};
        long start = System.nanoTime();
        byte[] reply = Streams.loop(() -> {
                    if (sent[0] == bytes) {
                        return CompletableFuture.completedFuture(false);
                    }
                    // The contract lets a written array be reused once its write completes; it never changes here.
                    byte[] next = bytes - sent[0] >= chunk ? data : tail;
                    sent[0] += next.length;
                    return s.write(next).thenApply(v -> true);
                })
                .thenCompose(v -> s.closeWrite())
                .thenCompose(v -> s.readExactly(8))
                .get(300, TimeUnit.SECONDS);
        double seconds = (System.nanoTime() - start) / 1e9;
        long acknowledged = ByteBuffer.wrap(reply).getLong();
        if (acknowledged != bytes) {
            throw new IOException("the sink acknowledged " + acknowledged + " of " + bytes + " bytes");
        }
        return seconds;
    }

    @Override
    public void close() {
        client.close();
        server.close();
    }
}
