package dev.chorus.node.protocol;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * The threads that encode and decode model bodies for {@link ModelExchange}: quantization, the body's SHA-256 digest,
 * the finiteness check and the egress record's hash. They run here rather than on the I/O thread that carries the
 * stream, because that thread serves every stream of its connections, and a model's codec work (hundreds of
 * microseconds for 100 KB) would delay them all; the I/O thread only moves bytes. One pool for the JVM, since every
 * node in it shares the same cores: one thread per core, at most four, as daemon threads. The work queued
 * here is bounded by the exchanges in flight, which {@link ExchangeLimits} bounds.
 */
final class ModelCodecThreads {

    private static final ExecutorService POOL = Executors.newFixedThreadPool(
            Math.min(4, Runtime.getRuntime().availableProcessors()),
            Thread.ofPlatform().daemon().name("model-codec-", 0).factory());

    /**
     * The exchanges' timeouts. {@code CompletableFuture.orTimeout} schedules on the common fork-join pool, which
     * wakes a thread for each; here an exchange's timeout is one entry in a queue whose thread sleeps until the
     * earliest deadline, and a new entry, later than those queued, wakes nobody. Cancelled entries leave the queue.
     */
    private static final ScheduledThreadPoolExecutor TIMEOUTS = timeouts();

    private ModelCodecThreads() {}

    private static ScheduledThreadPoolExecutor timeouts() {
        ScheduledThreadPoolExecutor t = new ScheduledThreadPoolExecutor(
                1, Thread.ofPlatform().daemon().name("model-exchange-timeouts").factory());
        t.setRemoveOnCancelPolicy(true);
        return t;
    }

    /**
     * As {@code f.orTimeout(limit)}: {@code f} fails with a {@link TimeoutException} unless it completes within
     * {@code limit}.
     *
     * @return {@code f}
     */
    static <T> CompletableFuture<T> orTimeout(CompletableFuture<T> f, Duration limit) {
        if (f.isDone()) {
            return f;
        }
        ScheduledFuture<?> timer = TIMEOUTS.schedule(
                () -> f.completeExceptionally(new TimeoutException("no completion within " + limit.toMillis() + " ms")),
                limit.toMillis(),
                TimeUnit.MILLISECONDS);
        f.whenComplete((v, e) -> timer.cancel(false));
        return f;
    }

    static Executor executor() {
        return POOL;
    }
}
