package dev.chorus.node.averaging;

import static org.assertj.core.api.Assertions.assertThat;

import dev.chorus.aggregation.LocalModel;
import dev.chorus.aggregation.ModelUpdate;
import dev.chorus.aggregation.sync.SynchronousAveraging;
import dev.chorus.learning.train.TrainingStep;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.List;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The barrier of synchronous averaging, on a controlled clock: the waiter advances it. */
class RoundBarrierTest {

    private static final InstantSource CLOCK = InstantSource.fixed(Instant.EPOCH);
    private static final TrainingStep STEP = new TrainingStep(1, 1, 4, 0.5f, null);

    private final SynchronousAveraging sync =
            new SynchronousAveraging(SynchronousAveraging.Config.of(Set.of("a", "b")), "a");
    private final LocalModel local = new LocalModel("a", new float[] {0, 0}, 0, 10);
    private final AtomicBoolean stopping = new AtomicBoolean();
    private long now;
    private int waits;
    /** On which wait the other participant's contribution arrives; 0 for never. */
    private int arrivesOnWait;

    private final RoundBarrier barrier = new RoundBarrier(
            sync,
            timeout -> {
                waits++;
                now += timeout.toNanos();
                if (waits == arrivesOnWait) {
                    contribute("b", sync.round());
                }
            },
            Duration.ofSeconds(1),
            stopping::get,
            () -> now);

    @BeforeEach
    void enterRound() {
        sync.configure(local, List.of(), new SplittableRandom(1), CLOCK); // a's contribution sent: at the barrier
        assertThat(sync.atBarrier()).isTrue();
    }

    private void contribute(String sender, long round) {
        sync.receive(ModelUpdate.full(sender, round, 10, new float[] {2, 4}), local, CLOCK);
    }

    @Test
    void holdsTrainingUntilTheRoundCompletes() {
        arrivesOnWait = 3;
        barrier.afterStep(STEP);
        assertThat(waits).isEqualTo(3);
        assertThat(sync.atBarrier()).isFalse();
        assertThat(sync.round()).isEqualTo(1);
        assertThat(local.params()).containsExactly(1, 2); // the average of a's zeros and b's model
        assertThat(barrier.waited()).isEqualTo(RoundBarrier.POLL.multipliedBy(3));
        assertThat(barrier.timeouts()).isZero();
    }

    @Test
    void doesNotWaitWhenTheRoundIsAlreadyComplete() {
        contribute("b", 0);
        barrier.afterStep(STEP);
        assertThat(waits).isZero();
    }

    @Test
    void givesUpOnARoundAfterTheTimeoutAndDoesNotWaitForItAgain() {
        barrier.afterStep(STEP);
        assertThat(barrier.timeouts()).isEqualTo(1);
        assertThat(barrier.waited()).isEqualTo(Duration.ofSeconds(1)); // 20 parks of 50 ms, none past the limit
        assertThat(waits).isEqualTo(20);
        assertThat(sync.atBarrier()).isTrue();

        barrier.afterStep(STEP); // the same round: training goes on
        assertThat(waits).isEqualTo(20);

        contribute("b", 0); // the late model completes the round
        assertThat(sync.round()).isEqualTo(1);
        sync.configure(local, List.of(), new SplittableRandom(1), CLOCK);
        arrivesOnWait = 22;
        barrier.afterStep(STEP); // a new round is waited for again
        assertThat(waits).isEqualTo(22);
        assertThat(sync.round()).isEqualTo(2);
        assertThat(barrier.timeouts()).isEqualTo(1);
    }

    /** Without a round timeout (the testnet's) the wait lasts until the round completes, however long. */
    @Test
    void withoutATimeoutTheRoundIsAwaitedToItsEnd() {
        RoundBarrier unbounded = new RoundBarrier(
                sync,
                timeout -> {
                    waits++;
                    now += timeout.toNanos();
                    if (waits == arrivesOnWait) {
                        contribute("b", sync.round());
                    }
                },
                RoundBarrier.NO_TIMEOUT,
                stopping::get,
                () -> now);
        arrivesOnWait = 1000; // 50 s of parks, far past the other barrier's 1 s
        unbounded.afterStep(STEP);
        assertThat(waits).isEqualTo(1000);
        assertThat(sync.atBarrier()).isFalse();
        assertThat(unbounded.timeouts()).isZero();
        assertThat(unbounded.waitedNanos())
                .isEqualTo(RoundBarrier.POLL.multipliedBy(1000).toNanos());
        assertThat(unbounded.waited()).isEqualTo(RoundBarrier.POLL.multipliedBy(1000));
    }

    @Test
    void aStopRequestEndsTheWait() {
        stopping.set(true);
        barrier.afterStep(STEP);
        assertThat(waits).isZero();
        assertThat(barrier.timeouts()).isZero();
    }
}
