package dev.chorus.node.averaging;

import static org.assertj.core.api.Assertions.assertThat;

import dev.chorus.aggregation.DeliveryFailure;
import dev.chorus.aggregation.ModelUpdate;
import dev.chorus.aggregation.async.FragmentedGossip;
import dev.chorus.aggregation.weighting.UpdateWeighting;
import dev.chorus.learning.model.Sequential;
import dev.chorus.learning.train.TrainingStep;
import dev.chorus.node.protocol.ErrorCode;
import dev.chorus.node.protocol.ExchangeException;
import dev.chorus.node.protocol.ExchangeLimits;
import dev.chorus.node.protocol.ModelExchange;
import java.time.InstantSource;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
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
    private static class HeldTransport implements ExchangeTransport {
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
        TestModel m = TestModel.logreg(40);
        Sequential model = m.model();
        float[] params = m.params();
        HeldTransport t = new HeldTransport();
        FragmentedGossip strategy =
                new FragmentedGossip(new FragmentedGossip.Config(10, 3, 1, UpdateWeighting.uniform()), params.length);
        int maxInFlight = 4;
        AveragingEngine e = new AveragingEngine(
                m.local(),
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
            assertThat(e.stats().outgoing().sendFailures())
                    .as("refused locally only for a peer with both its slots taken; the rest waited in the"
                            + " strategy's queue")
                    .isEqualTo(e.stats().outgoing().peerBusy());
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
            assertThat(e.stats().outgoing().sent()).isEqualTo(maxInFlight);
            assertThat(e.stats().outgoing().sendFailures())
                    .isEqualTo(e.stats().outgoing().peerBusy());
        } finally {
            e.close();
            m.close();
        }
    }

    /**
     * A push the transport refuses before sending anything, because every exchange slot with the peer is taken, is
     * a refusal (as the engine's own in-flight bound is), not an unreachable peer.
     */
    @Test
    void aSendRefusedHereForABusyPeerIsReportedAsRefused() throws Exception {
        TestModel m = TestModel.logreg(4);
        Sequential model = m.model();
        float[] params = m.params();
        ExchangeTransport busy = new HeldTransport() {
            @Override
            public CompletableFuture<Void> push(String peer, ModelUpdate update) {
                return CompletableFuture.failedFuture(
                        ExchangeException.refusedHere(ErrorCode.BUSY, "too many exchanges in flight with " + peer));
            }

            @Override
            public DeliveryFailure.Kind failureKind(Throwable cause) {
                return ModelExchange.failureKindOf(cause);
            }
        };
        PushBurst strategy = new PushBurst(List.of("peer-b"), 1);
        AveragingEngine e = new AveragingEngine(
                m.local(),
                strategy,
                busy,
                new SnapshotBuffer(),
                AveragingEngine.Config.defaults(1).withExchangeEvery(1),
                InstantSource.system());
        try {
            DeliveryFailure f = null;
            for (int i = 1; i <= 1000 && f == null; i++) {
                e.afterStep(new TrainingStep(i, 0, 8, 0.5f, model));
                f = strategy.failures.poll(10, TimeUnit.MILLISECONDS);
            }
            assertThat(f).as("a failure reached the strategy").isNotNull();
            assertThat(f.kind()).isEqualTo(DeliveryFailure.Kind.REFUSED);
            assertThat(f.peer()).isEqualTo("peer-b");
        } finally {
            e.close();
            m.close();
        }
    }

    /**
     * Messages for a peer that already has every exchange slot of this node taken are refused as they leave the
     * strategy's queue: the transport never sees them, and the strategy hears a refusal for each. Those for other
     * peers still start, up to the node's own bound.
     */
    @Test
    void messagesForAPeerWithEverySlotTakenAreRefusedBeforeTheyStart() throws Exception {
        TestModel m = TestModel.logreg(4);
        Sequential model = m.model();
        ConcurrentLinkedQueue<String> recipients = new ConcurrentLinkedQueue<>();
        HeldTransport t = new HeldTransport() {
            @Override
            public CompletableFuture<Void> push(String peer, ModelUpdate update) {
                recipients.add(peer);
                return super.push(peer, update);
            }
        };
        PushBurst strategy = new PushBurst(List.of("peer-b", "peer-c"), 5);
        AveragingEngine e = new AveragingEngine(
                m.local(),
                strategy,
                t,
                new SnapshotBuffer(),
                AveragingEngine.Config.defaults(1)
                        .withExchangeEvery(5)
                        .withQueues(16, 16)
                        .withMaxInFlightPerPeer(2),
                InstantSource.system());
        try {
            for (int i = 1; i <= 5; i++) {
                e.afterStep(new TrainingStep(i, 0, 8, 0.5f, model)); // the round begins at step 5
            }
            awaitPushes(t, 4);
            assertThat(recipients).containsExactlyInAnyOrder("peer-b", "peer-b", "peer-c", "peer-c");
            assertThat(strategy.pendingOutbound())
                    .as("the whole round was taken from the queue")
                    .isZero();
            for (int i = 6; i <= 9; i++) {
                e.afterStep(new TrainingStep(i, 0, 8, 0.5f, model)); // hands the failures to the strategy
            }
            assertThat(e.stats().outgoing().peerBusy()).isEqualTo(6);
            assertThat(e.stats().outgoing().sendFailures()).isEqualTo(6);
            assertThat(strategy.failures).hasSize(6).allSatisfy(f -> assertThat(f.kind())
                    .isEqualTo(DeliveryFailure.Kind.REFUSED));

            // Completed pushes free their peers' slots: the next round starts two per peer again.
            for (CompletableFuture<Void> f : List.copyOf(t.pushes)) {
                f.complete(null);
            }
            t.pushes.clear();
            recipients.clear();
            awaitSent(e, 4);
            e.afterStep(new TrainingStep(10, 0, 8, 0.5f, model));
            awaitPushes(t, 4);
            assertThat(recipients).containsExactlyInAnyOrder("peer-b", "peer-b", "peer-c", "peer-c");
        } finally {
            e.close();
            m.close();
        }
    }

    /** The engine takes no more exchanges with one peer than the transport would start. */
    @Test
    void theBoundPerPeerIsNoMoreThanTheTransports() {
        AveragingEngine.Config config = AveragingEngine.Config.defaults(1).withMaxInFlightPerPeer(5);
        int transport = ExchangeLimits.defaults().maxConcurrentPerPeer();
        assertThat(AveragingEngine.perPeer(config, transport)).isEqualTo(transport);
        assertThat(AveragingEngine.perPeer(config.withMaxInFlightPerPeer(1), transport))
                .isEqualTo(1);
    }

    /** Completions are counted on the transport's threads: waits until {@code n} pushes have completed, or 10 s. */
    private static void awaitSent(AveragingEngine e, long n) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (e.stats().outgoing().sent() < n && System.nanoTime() < deadline) {
            Thread.sleep(5);
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
