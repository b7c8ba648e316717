package dev.chorus.node.protocol;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * The model exchanges' timeouts, on one timer thread for the JVM. {@code CompletableFuture.orTimeout} schedules on the
 * common fork-join pool, which wakes a thread for each; here an exchange's timeout is one entry in a queue whose thread
 * sleeps until the earliest deadline, and a new entry, later than those queued, wakes nobody. Cancelled entries leave
 * the queue.
 */
final class ExchangeTimeouts {

    private static final ScheduledThreadPoolExecutor TIMER = timer();

    private ExchangeTimeouts() {}

    private static ScheduledThreadPoolExecutor timer() {
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
        ScheduledFuture<?> timer = TIMER.schedule(
                () -> f.completeExceptionally(new TimeoutException("no completion within " + limit.toMillis() + " ms")),
                limit.toMillis(),
                TimeUnit.MILLISECONDS);
        f.whenComplete((v, e) -> timer.cancel(false));
        return f;
    }
}
