package dev.chorus.node.averaging;

import static org.assertj.core.api.Assertions.assertThat;

import dev.chorus.aggregation.AveragingMessage;
import dev.chorus.aggregation.AveragingStrategy;
import dev.chorus.aggregation.Barrier;
import dev.chorus.aggregation.DeliveryFailure;
import dev.chorus.aggregation.LocalModel;
import dev.chorus.aggregation.ModelUpdate;
import dev.chorus.aggregation.Outbound;
import dev.chorus.aggregation.Receipt;
import dev.chorus.aggregation.async.GossipAveraging;
import dev.chorus.aggregation.weighting.UpdateWeighting;
import dev.chorus.learning.model.Sequential;
import dev.chorus.learning.train.TrainingStep;
import java.time.Duration;
import java.time.InstantSource;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.random.RandomGenerator;
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
        return setup(maxDrift, gossip());
    }

    private static GossipAveraging gossip() {
        return new GossipAveraging(new GossipAveraging.Config(
                GossipAveraging.Mode.PUSH_PULL, UpdateWeighting.uniform(), Duration.ofSeconds(30)));
    }

    private static Setup setup(int maxDrift, AveragingStrategy strategy) {
        TestModel m = TestModel.logreg(4);
        HeldTransport t = new HeldTransport();
        AveragingEngine e = new AveragingEngine(
                m.local(),
                strategy,
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

    /** A barrier that never holds the trainer: what matters here is only that the strategy has one. */
    private static final class OpenBarrier implements Barrier {
        @Override
        public long round() {
            return 0;
        }

        @Override
        public boolean atBarrier() {
            return false;
        }

        @Override
        public Set<String> missing() {
            return Set.of();
        }

        @Override
        public void retire() {}

        @Override
        public boolean peerBeganRound() {
            return false;
        }
    }

    /**
     * Under a strategy with a round barrier the drift bound does not apply: the barrier holds every node to the round
     * already, and a second wait on the same exchanges would only add to it.
     */
    @Test
    void aStrategyWithABarrierIsNotHeldByTheDriftBound() throws Exception {
        GossipAveraging gossip = gossip();
        AveragingStrategy withBarrier = new AveragingStrategy() {
            private final Barrier barrier = new OpenBarrier();

            @Override
            public void configure(LocalModel local, List<String> peers, RandomGenerator random, InstantSource clock) {
                gossip.configure(local, peers, random, clock);
            }

            @Override
            public Outbound pollOutbound() {
                return gossip.pollOutbound();
            }

            @Override
            public int pendingOutbound() {
                return gossip.pendingOutbound();
            }

            @Override
            public Optional<Barrier> barrier() {
                return Optional.of(barrier);
            }

            @Override
            public Receipt receive(AveragingMessage message, LocalModel local, InstantSource clock) {
                return gossip.receive(message, local, clock);
            }

            @Override
            public void onFailure(DeliveryFailure failure, LocalModel local, InstantSource clock) {
                gossip.onFailure(failure, local, clock);
            }
        };
        Setup s = setup(5, withBarrier);
        for (int i = 1; i <= 20; i++) {
            s.engine().afterStep(new TrainingStep(i, 0, 8, 0.5f, s.model()));
        }
        // The exchange begun at step 2 never completes, yet no step waited for it.
        assertThat(s.transport().pulls.poll(10, TimeUnit.SECONDS)).isNotNull();
        assertThat(s.engine().stats().steps()).isEqualTo(20);
        assertThat(s.engine().stats().driftWaitNanos()).isZero();
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
