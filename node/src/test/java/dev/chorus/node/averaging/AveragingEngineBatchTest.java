package dev.chorus.node.averaging;

import static org.assertj.core.api.Assertions.assertThat;

import dev.chorus.aggregation.DeliveryFailure;
import dev.chorus.aggregation.ModelUpdate;
import dev.chorus.learning.model.Sequential;
import dev.chorus.learning.train.TrainingStep;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * Pushes to one peer that share a slot ({@link ExchangeSlots}) reach the transport together ({@link
 * ExchangeTransport#pushAll}), which carries them on one stream; each still completes, or fails to the strategy, on
 * its own.
 */
class AveragingEngineBatchTest {

    /** Two peers; records each {@code pushAll} (peer and size) and each lone push; fails the pushes it is told to. */
    private static final class BatchingTransport implements ExchangeTransport {
        final List<String> batches = new CopyOnWriteArrayList<>();
        final List<String> lone = new CopyOnWriteArrayList<>();
        volatile int failFrom = Integer.MAX_VALUE;

        @Override
        public List<String> peers() {
            return List.of("peer-b", "peer-c");
        }

        @Override
        public CompletableFuture<ModelUpdate> pull(String peer, ModelUpdate offer) {
            return CompletableFuture.failedFuture(new IllegalStateException("no pulls expected"));
        }

        @Override
        public CompletableFuture<Void> push(String peer, ModelUpdate update) {
            lone.add(peer);
            return CompletableFuture.completedFuture(null);
        }

        @Override
        public int maxBatch() {
            return 12;
        }

        @Override
        public List<CompletableFuture<Void>> pushAll(String peer, List<ModelUpdate> updates) {
            batches.add(peer + " x" + updates.size());
            List<CompletableFuture<Void>> out = new ArrayList<>();
            for (int i = 0; i < updates.size(); i++) {
                out.add(
                        i < failFrom
                                ? CompletableFuture.completedFuture(null)
                                : CompletableFuture.failedFuture(new IllegalStateException("refused body " + i)));
            }
            return out;
        }
    }

    private static AveragingEngine engine(
            TestModel m, ExchangeTransport t, PushBurst strategy, int window, int perPeer) {
        return new AveragingEngine(
                m.local(),
                strategy,
                t,
                new SnapshotBuffer(),
                AveragingEngine.Config.defaults(1)
                        .withExchangeEvery(1)
                        .withQueues(window, 16)
                        .withMaxInFlightPerPeer(perPeer),
                InstantSource.system());
    }

    /**
     * Fragments for one peer share one slot of its own and of the node's window: with one slot a peer and two in
     * the window, a round's three fragments for each of two peers all go, a batch each; before, one a peer went.
     */
    @Test
    void aRoundsFragmentsForOnePeerGoTogetherInOneSlotAndEachIsAccountedForOnItsOwn() throws Exception {
        TestModel m = TestModel.logreg(40);
        Sequential model = m.model();
        BatchingTransport t = new BatchingTransport();
        PushBurst strategy = new PushBurst(null, 3);
        strategy.parts = 10;
        AveragingEngine e = engine(m, t, strategy, 2, 1);
        try {
            e.afterStep(new TrainingStep(1, 0, 8, 0.5f, model));
            awaitTrue(
                    () -> e.stats().outgoing().sent() == 6,
                    () -> "sent " + e.stats().outgoing().sent());
            assertThat(t.batches).containsExactlyInAnyOrder("peer-b x3", "peer-c x3");
            assertThat(t.lone).isEmpty();
            assertThat(strategy.failures).isEmpty();

            // the transport fails the last of each peer's three: two failures reach the strategy, four were sent
            // (failures reach the strategy at step boundaries: the steps go on until both have)
            t.failFrom = 2;
            for (int i = 2; i < 2000 && (t.batches.size() < 4 || strategy.failures.size() < 2); i++) {
                if (t.batches.size() == 4) {
                    strategy.count = 0;
                }
                e.afterStep(new TrainingStep(i, 0, 8, 0.5f, model));
                Thread.sleep(5);
            }
            assertThat(t.batches).hasSize(4);
            assertThat(strategy.failures)
                    .extracting(DeliveryFailure::peer)
                    .containsExactlyInAnyOrder("peer-b", "peer-c");
            assertThat(strategy.failures).allSatisfy(f -> assertThat(f.detail()).contains("refused body 2"));
            awaitTrue(
                    () -> e.stats().outgoing().sent() == 10,
                    () -> "sent " + e.stats().outgoing().sent());
        } finally {
            e.close();
            m.close();
        }
    }

    /** Whole models never share a slot, and fragments share one only up to one model's values. */
    @Test
    void aSlotHoldsAtMostOneModelsValues() throws Exception {
        TestModel m = TestModel.logreg(40);
        Sequential model = m.model();
        BatchingTransport t = new BatchingTransport();
        PushBurst strategy = new PushBurst(List.of("peer-b"), 2);
        AveragingEngine e = engine(m, t, strategy, 4, 3);
        try {
            e.afterStep(new TrainingStep(1, 0, 8, 0.5f, model));
            awaitTrue(() -> t.lone.size() == 2, () -> "lone " + t.lone);
            assertThat(t.batches).isEmpty();

            // halves: two fill a slot, the third needs another, and one slot a peer leaves it refused here
            PushBurst halves = new PushBurst(List.of("peer-b"), 3);
            halves.parts = 2;
            BatchingTransport t2 = new BatchingTransport();
            AveragingEngine e2 = engine(m, t2, halves, 4, 1);
            try {
                for (int i = 1; i < 2000 && halves.failures.isEmpty(); i++) {
                    e2.afterStep(new TrainingStep(i, 0, 8, 0.5f, model));
                    halves.count = 0;
                    Thread.sleep(5);
                }
                assertThat(t2.batches).containsExactly("peer-b x2");
                assertThat(halves.failures).singleElement().satisfies(f -> assertThat(f.detail())
                        .contains("every exchange slot with this peer is taken"));
            } finally {
                e2.close();
            }
        } finally {
            e.close();
            m.close();
        }
    }

    private static void awaitTrue(
            java.util.function.BooleanSupplier condition, java.util.function.Supplier<String> what)
            throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (!condition.getAsBoolean()) {
            assertThat(System.nanoTime()).as(what).isLessThan(deadline);
            Thread.sleep(5);
        }
    }
}
