package dev.chorus.node.averaging;

import static org.assertj.core.api.Assertions.assertThat;

import dev.chorus.aggregation.ModelUpdate;
import dev.chorus.aggregation.async.GossipAveraging;
import dev.chorus.aggregation.weighting.UpdateWeighting;
import dev.chorus.learning.model.Sequential;
import dev.chorus.learning.train.TrainingStep;
import java.time.Duration;
import java.time.InstantSource;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/**
 * The drift bound: with exchanges that complete only when the test says so, training runs at most {@code H} steps
 * past the last completed exchange, then waits for its own exchange (never longer than the bound's cap).
 */
class AveragingEngineDriftTest {

    /** A transport whose pulls complete when the test completes them. */
    private static final class HeldTransport implements ExchangeTransport {
        final LinkedBlockingQueue<CompletableFuture<ModelUpdate>> pulls = new LinkedBlockingQueue<>();

        @Override
        public List<String> peers() {
            return List.of("peer-b");
        }

        @Override
        public CompletableFuture<ModelUpdate> pull(String peer, ModelUpdate offer) {
            CompletableFuture<ModelUpdate> f = new CompletableFuture<>();
            pulls.add(f);
            return f;
        }

        @Override
        public CompletableFuture<Void> push(String peer, ModelUpdate update) {
            return CompletableFuture.completedFuture(null);
        }
    }

    private record Setup(AveragingEngine engine, HeldTransport transport, TestModel m) {
        Sequential model() {
            return m.model();
        }

        void close() {
            engine.close();
            m.close();
        }
    }

    private static Setup setup(int maxDrift) {
        TestModel m = TestModel.logreg(4);
        HeldTransport t = new HeldTransport();
        AveragingEngine e = new AveragingEngine(
                m.local(),
                new GossipAveraging(new GossipAveraging.Config(
                        GossipAveraging.Mode.PUSH_PULL, UpdateWeighting.uniform(), Duration.ofSeconds(30))),
                t,
                new SnapshotBuffer(),
                AveragingEngine.Config.defaults(1).withExchangeEvery(2).withMaxDriftSteps(maxDrift),
                InstantSource.system());
        return new Setup(e, t, m);
    }

    @Test
    void trainingWaitsForItsOwnExchangeOnlyPastTheBound() throws Exception {
        Setup s = setup(5);
        AtomicLong done = new AtomicLong();
        Thread training = Thread.ofPlatform().start(() -> {
            for (int i = 1; i <= 20; i++) {
                s.engine().afterStep(new TrainingStep(i, 0, 8, 0.5f, s.model()));
                done.set(i);
            }
        });
        // Step 2 starts an exchange that does not complete; steps 3 to 5 run on, step 6 is past the bound.
        CompletableFuture<ModelUpdate> first = s.transport().pulls.poll(10, TimeUnit.SECONDS);
        assertThat(first).isNotNull();
        Thread.sleep(300);
        assertThat(done.get()).isEqualTo(5);
        assertThat(training.getState()).isEqualTo(Thread.State.TIMED_WAITING);
        // The peer answers: training goes on at once.
        float[] theirs = new float[s.model().parameterCount()];
        first.complete(ModelUpdate.full("peer-b", 3, 100, theirs));
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (done.get() < 7 && System.nanoTime() < deadline) {
            Thread.sleep(5);
        }
        assertThat(done.get()).isGreaterThanOrEqualTo(7);
        // Later exchanges never complete either: each wait is capped, so training still finishes.
        training.join(Duration.ofSeconds(60));
        assertThat(training.isAlive()).isFalse();
        AveragingEngine.Stats st = s.engine().stats();
        assertThat(st.steps()).isEqualTo(20);
        assertThat(st.driftWaitNanos()).isGreaterThan(TimeUnit.MILLISECONDS.toNanos(250));
        s.transport().pulls.forEach(f -> f.completeExceptionally(new java.io.IOException("test over")));
        s.close();
    }

    @Test
    void withoutABoundTrainingNeverWaits() throws Exception {
        Setup s = setup(0);
        for (int i = 1; i <= 40; i++) {
            s.engine().afterStep(new TrainingStep(i, 0, 8, 0.5f, s.model()));
        }
        assertThat(s.transport().pulls.poll(10, TimeUnit.SECONDS)).isNotNull();
        assertThat(s.engine().stats().driftWaitNanos()).isZero();
        s.close();
    }
}
