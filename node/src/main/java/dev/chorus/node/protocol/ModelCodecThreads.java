package dev.chorus.node.protocol;

import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/**
 * The threads that encode and decode model bodies for {@link ModelExchange}: quantization, the body's SHA-256 digest,
 * the finiteness check and the egress record's hash. They run here rather than on the I/O thread that carries the
 * stream, because that thread serves every stream of its connections, and a model's codec work, which grows with the
 * model, would delay them all; the I/O thread only moves bytes. One pool for the JVM, since every node in it shares
 * the same cores: one thread per core, at most four, as daemon threads. The work queued here is bounded by the
 * exchanges in flight, which {@link ExchangeLimits} bounds.
 */
final class ModelCodecThreads {

    private static final ExecutorService POOL = Executors.newFixedThreadPool(
            Math.min(4, Runtime.getRuntime().availableProcessors()),
            Thread.ofPlatform().daemon().name("model-codec-", 0).factory());

    private ModelCodecThreads() {}

    static Executor executor() {
        return POOL;
    }
}
