package dev.chorus.cli.bench;

import dev.chorus.aggregation.ModelUpdate;
import dev.chorus.gossip.host.Connection;
import dev.chorus.gossip.host.Host;
import dev.chorus.gossip.host.HostConfig;
import dev.chorus.gossip.identity.PrivateKey;
import dev.chorus.gossip.multiaddr.Multiaddr;
import dev.chorus.node.averaging.SnapshotBuffer;
import dev.chorus.node.protocol.ArchitectureHash;
import dev.chorus.node.protocol.FragmentCatalog;
import dev.chorus.node.protocol.ModelExchange;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * What one model exchange costs the threads that carry it: a client and a server host in this process, each with one
 * I/O thread, connected on loopback and identified, and a {@link ModelExchange} on each. One exchange is what the
 * asynchronous strategy does with a peer: a push-pull, the client's model (as F32) out and the server's back; or a
 * push, the model out and an acknowledgement back. The figure per exchange is the CPU time of each host's I/O
 * thread (the socket, Noise, yamux, multistream-select and the exchange's framing run there), of the whole process,
 * and the wall time, over exchanges run one after the other.
 */
public final class ExchangeCost implements AutoCloseable {

    /** 25,000 parameters: a 100 KB model as F32. */
    public static final int PARAMETERS = 25_000;

    private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();

    private final Host server;
    private final Host client;
    private final ModelExchange serverExchange;
    private final ModelExchange clientExchange;
    private final long serverThread;
    private final long clientThread;
    private final ModelUpdate offer;
    private final List<ModelUpdate> fragments;

    /** What a run of exchanges cost, per exchange, in microseconds. */
    public record Cost(double clientIoMicros, double serverIoMicros, double processMicros, double wallMicros) {}

    /** @param lazy whether the hosts propose the exchange's protocol lazily (see {@link HostConfig.Upgrade}) */
    public ExchangeCost(boolean lazy) throws Exception {
        if (!THREADS.isThreadCpuTimeSupported()) {
            throw new IllegalStateException("this JVM does not measure a thread's CPU time");
        }
        THREADS.setThreadCpuTimeEnabled(true);
        byte[] architecture = ArchitectureHash.of("bench-exchange", 100, 10, PARAMETERS);
        server = Host.start(HostConfig.defaults(PrivateKey.generate())
                        .withListenAddrs(List.of(Multiaddr.parse("/ip4/127.0.0.1/tcp/0")))
                        .withIoThreads(1)
                        .withLazyNegotiation(lazy))
                .get(30, TimeUnit.SECONDS);
        client = Host.start(HostConfig.defaults(PrivateKey.generate())
                        .withIoThreads(1)
                        .withLazyNegotiation(lazy))
                .get(30, TimeUnit.SECONDS);
        SnapshotBuffer served = new SnapshotBuffer();
        served.publish(values(1), 1, 100);
        serverExchange = new ModelExchange(
                server, architecture, PARAMETERS, ModelExchange.Config.defaults(), served, new FragmentCatalog());
        serverExchange.start(update -> true);
        clientExchange = new ModelExchange(
                client,
                architecture,
                PARAMETERS,
                ModelExchange.Config.defaults(),
                new SnapshotBuffer(),
                new FragmentCatalog());
        clientExchange.start(update -> true);
        offer = ModelUpdate.full(client.peerId().toBase58(), 1, 100, values(2));
        fragments = fragments(offer);
        Connection c = client.connect(server.listenAddrs().getFirst()).get(30, TimeUnit.SECONDS);
        c.identify().get(30, TimeUnit.SECONDS);
        clientThread = ioThread(c);
        Connection atServer = server.connection(client.peerId());
        if (atServer == null) {
            throw new IllegalStateException("the server has no connection to the client");
        }
        serverThread = ioThread(atServer);
    }

    private static float[] values(long seed) {
        SplittableRandom r = new SplittableRandom(seed);
        float[] v = new float[PARAMETERS];
        for (int i = 0; i < v.length; i++) {
            v[i] = (float) r.nextGaussian() * 0.1f;
        }
        return v;
    }

    /** The first {@link #ROUND_FRAGMENTS} tenths of {@code model}, each its own contiguous range of coordinates. */
    private static List<ModelUpdate> fragments(ModelUpdate model) {
        int size = PARAMETERS / 10;
        List<ModelUpdate> out = new java.util.ArrayList<>();
        for (int k = 0; k < ROUND_FRAGMENTS; k++) {
            int[] indices = new int[size];
            float[] values = new float[size];
            for (int i = 0; i < size; i++) {
                indices[i] = k * size + i;
                values[i] = model.values()[k * size + i];
            }
            out.add(ModelUpdate.fragment(
                    model.sender(), model.version(), model.sampleCount(), PARAMETERS, indices, values));
        }
        return out;
    }

    private static long ioThread(Connection c) throws Exception {
        CompletableFuture<Long> id = new CompletableFuture<>();
        c.executeOnIoThread(() -> id.complete(Thread.currentThread().threadId()));
        return id.get(10, TimeUnit.SECONDS);
    }

    /** What one exchange is. */
    public enum Kind {
        /** The client's model out and the server's back, as the asynchronous strategy exchanges. */
        PUSH_PULL,
        /** The client's model out, an acknowledgement back. */
        PUSH,
        /**
         * {@link #ROUND_FRAGMENTS} fragments of a tenth of the model each, pushed one after another, each on a stream
         * of its own: what the fragmented strategy sent one peer in a round before batches.
         */
        FRAGMENTS_APART,
        /** The same fragments in one batch, on one stream ({@link ModelExchange#pushAll}). */
        FRAGMENTS_BATCHED;

        /** What the benchmark's table calls it. */
        public String label() {
            return switch (this) {
                case PUSH_PULL -> "push-pull of 100 KB";
                case PUSH -> "push of 100 KB";
                case FRAGMENTS_APART -> ROUND_FRAGMENTS + " fragments of 10 KB, a stream each";
                case FRAGMENTS_BATCHED -> ROUND_FRAGMENTS + " fragments of 10 KB, one batch";
            };
        }
    }

    /**
     * Fragments one peer gets in a round of the fragmented strategy's defaults with 8 nodes: 10 fragments, each to 3
     * of the 7 peers, so about 4 a peer.
     */
    public static final int ROUND_FRAGMENTS = 4;

    /** Runs {@code exchanges} exchanges of {@code kind} one after the other; the cost of each, averaged. */
    public Cost run(Kind kind, int exchanges) throws Exception {
        long client0 = THREADS.getThreadCpuTime(clientThread);
        long server0 = THREADS.getThreadCpuTime(serverThread);
        long process0 = processCpuNanos();
        long wall0 = System.nanoTime();
        String to = server.peerId().toBase58();
        for (int i = 0; i < exchanges; i++) {
            if (kind == Kind.PUSH) {
                clientExchange.push(to, offer).get(30, TimeUnit.SECONDS);
                continue;
            }
            if (kind == Kind.FRAGMENTS_APART) {
                for (ModelUpdate f : fragments) {
                    clientExchange.push(to, f).get(30, TimeUnit.SECONDS);
                }
                continue;
            }
            if (kind == Kind.FRAGMENTS_BATCHED) {
                for (CompletableFuture<Void> f : clientExchange.pushAll(to, fragments)) {
                    f.get(30, TimeUnit.SECONDS);
                }
                continue;
            }
            ModelUpdate got = clientExchange.pull(to, offer).get(30, TimeUnit.SECONDS);
            if (got.values().length != PARAMETERS) {
                throw new IllegalStateException("the server answered with " + got.values().length + " values");
            }
        }
        double n = exchanges * 1000.0;
        return new Cost(
                (THREADS.getThreadCpuTime(clientThread) - client0) / n,
                (THREADS.getThreadCpuTime(serverThread) - server0) / n,
                (processCpuNanos() - process0) / n,
                (System.nanoTime() - wall0) / n);
    }

    private static long processCpuNanos() {
        return ManagementFactory.getOperatingSystemMXBean() instanceof com.sun.management.OperatingSystemMXBean os
                ? os.getProcessCpuTime()
                : -1;
    }

    @Override
    public void close() {
        clientExchange.close();
        serverExchange.close();
        client.close();
        server.close();
    }
}
