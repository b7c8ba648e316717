package dev.chorus.node.averaging;

import dev.chorus.aggregation.Barrier;
import dev.chorus.learning.train.StepListener;
import dev.chorus.learning.train.TrainingStep;
import java.time.Duration;
import java.util.function.BooleanSupplier;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The training loop's wait at a strategy's {@link Barrier} (synchronous averaging), for the daemon and the testnet: a
 * step listener, run after the averaging engine's, that holds the training thread while this node's contribution to
 * the current round is sent and the round is incomplete, applying arrivals meanwhile ({@link Waiter}), so that every
 * participant starts the next round from the same average (FedAvg).
 *
 * <p>A participant that stopped, crashed or finished its {@code training.epochs} would hold the others for good,
 * so the daemon bounds the wait per round by {@code averaging.round_timeout_seconds}: past it the node logs who is
 * missing and trains on; the round still completes, on the training thread between steps, when the missing
 * models arrive, and the node does not wait for that round again.
 */
public final class RoundBarrier implements StepListener {

    private static final Logger log = LoggerFactory.getLogger(RoundBarrier.class);

    /** Longest single park: the stop flag and the timeout are checked at least this often. */
    public static final Duration POLL = Duration.ofMillis(50);

    /**
     * A round timeout that never passes, for a run that stops every participant together (the in-process testnet),
     * where no participant can be gone while the others wait.
     */
    public static final Duration NO_TIMEOUT = Duration.ofNanos(Long.MAX_VALUE);

    /** Parks until an update arrives or {@code timeout} passes, then applies what arrived. */
    @FunctionalInterface
    public interface Waiter {
        void awaitArrivals(Duration timeout);
    }

    private final Barrier sync;
    private final Waiter waiter;
    private final Duration timeout;
    private final BooleanSupplier stopping;
    private final LongSupplier nanoTime;
    private long abandonedRound = -1;
    // Written by the training thread only; read by the API.
    private volatile long waitedNanos;
    private volatile long timeouts;

    /**
     * @param sync the strategy's barrier
     * @param waiter how the training thread waits for arrivals (the engine's {@code awaitArrivals})
     * @param timeout the longest wait for one round
     * @param stopping true once training is to stop: the wait ends then
     * @param nanoTime the clock of the waits
     */
    public RoundBarrier(
            Barrier sync, Waiter waiter, Duration timeout, BooleanSupplier stopping, LongSupplier nanoTime) {
        if (timeout.isNegative() || timeout.isZero()) {
            throw new IllegalArgumentException("round timeout must be positive, got " + timeout);
        }
        this.sync = sync;
        this.waiter = waiter;
        this.timeout = timeout;
        this.stopping = stopping;
        this.nanoTime = nanoTime;
    }

    @Override
    public void afterStep(TrainingStep step) {
        if (!sync.atBarrier() || sync.round() == abandonedRound) {
            return;
        }
        long round = sync.round();
        long start = nanoTime.getAsLong();
        long limit = timeout.toNanos();
        try {
            while (sync.atBarrier() && sync.round() == round && !stopping.getAsBoolean()) {
                long left = limit - (nanoTime.getAsLong() - start);
                if (left <= 0) {
                    abandonedRound = round;
                    timeouts++;
                    log.warn(
                            "round {}: waited {} s for {} participant(s) {}; training on without them (the round"
                                    + " completes when their models arrive)",
                            round,
                            timeout.toMillis() / 1000.0,
                            sync.missing().size(),
                            sync.missing());
                    return;
                }
                waiter.awaitArrivals(Duration.ofNanos(Math.min(left, POLL.toNanos())));
            }
        } finally {
            waitedNanos += nanoTime.getAsLong() - start;
        }
    }

    /** Time the training thread spent at the barrier. Any thread. */
    public Duration waited() {
        return Duration.ofNanos(waitedNanos);
    }

    /** {@link #waited()} in nanoseconds, without allocating: read after every step. Any thread. */
    public long waitedNanos() {
        return waitedNanos;
    }

    /** Rounds this node stopped waiting for. Any thread. */
    public long timeouts() {
        return timeouts;
    }
}
