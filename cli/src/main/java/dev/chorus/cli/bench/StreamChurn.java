package dev.chorus.cli.bench;

import dev.chorus.gossip.core.Streams;
import dev.chorus.gossip.host.Connection;
import dev.chorus.gossip.host.Host;
import dev.chorus.gossip.host.HostConfig;
import dev.chorus.gossip.identity.PrivateKey;
import dev.chorus.gossip.multiaddr.Multiaddr;
import dev.chorus.gossip.protocol.Echo;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Streams opened and closed on one connection: each stream is opened (yamux SYN/ACK), negotiated
 * ({@code /chorus/echo/1.0.0} with multistream-select), half-closed by this side, and read to the end
 * after the server's FIN, so it is fully closed in both directions and forgotten by both sessions.
 */
public final class StreamChurn implements AutoCloseable {
    private final Host server;
    private final Host client;
    private final Connection connection;

    public StreamChurn() {
        server = Host.start(HostConfig.defaults(PrivateKey.generate())
                        .withListenAddrs(List.of(Multiaddr.parse("/ip4/127.0.0.1/tcp/0"))))
                .join();
        server.setHandler(Echo.ID, Echo.handler());
        client = Host.start(HostConfig.defaults(PrivateKey.generate())).join();
        connection = client.connect(server.listenAddrs().getFirst()).join();
    }

    /**
     * Opens and closes {@code streams} streams, {@code concurrency} at a time (at most 32, the server's
     * per-protocol inbound limit); returns streams per second.
     */
    public double run(int streams, int concurrency) throws Exception {
        if (concurrency < 1 || concurrency > 32) {
            throw new IllegalArgumentException("concurrency must be 1..32");
        }
        AtomicInteger left = new AtomicInteger(streams);
        long start = System.nanoTime();
        List<CompletableFuture<Void>> loops = new ArrayList<>();
        for (int i = 0; i < concurrency; i++) {
            loops.add(Streams.loop(() -> left.getAndDecrement() <= 0
                    ? CompletableFuture.completedFuture(false)
                    : openAndClose().thenApply(v -> true)));
        }
        CompletableFuture.allOf(loops.toArray(CompletableFuture[]::new)).get(600, TimeUnit.SECONDS);
        double seconds = (System.nanoTime() - start) / 1e9;
        long settle = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        while (connection.openStreams() != 0 && System.nanoTime() < settle) {
            Thread.sleep(10); // the count drops in a close callback that may run just after ours
        }
        if (connection.openStreams() != 0 || !connection.isOpen()) {
            throw new IOException("after the churn " + connection.openStreams() + " streams are still open");
        }
        return streams / seconds;
    }

    private CompletableFuture<Void> openAndClose() {
        return connection.newStream(Echo.ID).thenCompose(s -> s.closeWrite()
                .thenCompose(v -> s.read())
                .thenCompose(chunk -> chunk.length == 0
                        ? s.closeFuture()
                        : CompletableFuture.failedFuture(new IOException("echo sent data on an empty stream"))));
    }

    @Override
    public void close() {
        client.close();
        server.close();
    }
}
