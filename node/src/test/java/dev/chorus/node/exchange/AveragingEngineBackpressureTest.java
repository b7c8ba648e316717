package dev.chorus.node.exchange;

import static org.assertj.core.api.Assertions.assertThat;

import dev.chorus.aggregation.LocalModel;
import dev.chorus.aggregation.ModelUpdate;
import dev.chorus.aggregation.async.FragmentedGossip;
import dev.chorus.aggregation.weighting.UpdateWeighting;
import dev.chorus.learning.model.ModelSpec;
import dev.chorus.learning.model.Sequential;
import dev.chorus.learning.tensor.TensorBackend;
import dev.chorus.learning.tensor.TensorBackends;
import dev.chorus.learning.train.TrainingStep;
import java.time.InstantSource;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * A node that produces messages faster than its links carry them: the fragmented strategy queues F x s fragments
 * every round while no push completes. The engine starts at most {@code maxInFlight} exchanges and leaves the rest
 * to the strategy, which drops a round's unsent fragments when the next round begins; nothing piles up in between.
 */
class AveragingEngineBackpressureTest {

    /** A transport whose pushes complete when the test completes them. */
    private static final class HeldTransport implements ExchangeTransport {
        final LinkedBlockingQueue<CompletableFuture<Void>> pushes = new LinkedBlockingQueue<>();

        @Override
        public List<String> peers() {
            return List.of("peer-b", "peer-c", "peer-d", "peer-e");
        }

        @Override
        public CompletableFuture<ModelUpdate> pull(String peer, ModelUpdate offer) {
            return CompletableFuture.failedFuture(new IllegalStateException("no pulls expected"));
        }

        @Override
        public CompletableFuture<Void> push(String peer, ModelUpdate update) {
            CompletableFuture<Void> f = new CompletableFuture<>();
            pushes.add(f);
            return f;
        }
    }

    @Test
    void exchangesBeyondTheInFlightBoundStayWithTheStrategy() throws Exception {
        TensorBackend backend = TensorBackends.create("reference", 1);
        Sequential model = ModelSpec.parse("logreg").build(backend, 40, 2, 7);
        float[] params = new float[model.parameterCount()];
        model.copyParametersTo(params);
        HeldTransport t = new HeldTransport();
        FragmentedGossip strategy =
                new FragmentedGossip(new FragmentedGossip.Config(10, 3, 1, UpdateWeighting.uniform()), params.length);
        int maxInFlight = 4;
        AveragingEngine e = new AveragingEngine(
                new LocalModel("peer-a", params, 0, 100),
                strategy,
                t,
                new SnapshotBuffer(),
                AveragingEngine.Config.defaults(1).withExchangeEvery(1).withQueues(maxInFlight, 16),
                InstantSource.system());
        try {
            for (int i = 1; i <= 200; i++) {
                e.afterStep(new TrainingStep(i, 0, 8, 0.5f, model));
            }
            awaitPushes(t, maxInFlight);
            assertThat(t.pushes).as("exchanges started").hasSize(maxInFlight);
            assertThat(e.stats().sendFailures())
                    .as("nothing refused locally: the rest waited in the strategy's queue")
                    .isZero();
            assertThat(strategy.pendingOutbound())
                    .as("one round's fragments at most (F x s)")
                    .isLessThanOrEqualTo(30);

            // As exchanges complete, the next ones start, never more than the bound at once.
            for (CompletableFuture<Void> f : List.copyOf(t.pushes)) {
                f.complete(null);
            }
            t.pushes.clear();
            for (int i = 201; i <= 210; i++) {
                e.afterStep(new TrainingStep(i, 0, 8, 0.5f, model));
            }
            awaitPushes(t, maxInFlight);
            assertThat(t.pushes).hasSize(maxInFlight);
            assertThat(e.stats().sent()).isEqualTo(maxInFlight);
            assertThat(e.stats().sendFailures()).isZero();
        } finally {
            e.close();
            model.close();
            backend.close();
        }
    }

    /** Pushes start on the engine's dispatcher thread: waits until {@code n} have, or 10 s. */
    private static void awaitPushes(HeldTransport t, int n) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (t.pushes.size() < n && System.nanoTime() < deadline) {
            Thread.sleep(5);
        }
        Thread.sleep(50); // and that no more follow
    }
}
