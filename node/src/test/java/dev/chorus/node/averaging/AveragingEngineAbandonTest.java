package dev.chorus.node.averaging;

import static org.assertj.core.api.Assertions.assertThat;

import dev.chorus.aggregation.AveragingMessage;
import dev.chorus.aggregation.AveragingStrategy;
import dev.chorus.aggregation.DeliveryFailure;
import dev.chorus.aggregation.LocalModel;
import dev.chorus.aggregation.ModelUpdate;
import dev.chorus.aggregation.Outbound;
import dev.chorus.aggregation.Receipt;
import dev.chorus.aggregation.async.GossipAveraging;
import dev.chorus.aggregation.weighting.UpdateWeighting;
import dev.chorus.learning.model.Sequential;
import dev.chorus.learning.train.TrainingStep;
import dev.chorus.testsupport.TestLog;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.random.RandomGenerator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A peer that never answers, and a strategy that gives up on it: the engine releases the in-flight slot of each pull
 * the strategy gives up, so with a bound of two exchanges in flight the node keeps exchanging with its other peer
 * instead of waiting for the transport's own timeout.
 */
class AveragingEngineAbandonTest {

    private static final String STALLED = "peer-stalled";
    private static final String FAST = "peer-fast";

    /** Pulls to {@link #STALLED} never complete (unless cancelled); pulls to {@link #FAST} complete at once. */
    private static final class StallingTransport implements ExchangeTransport {
        final int dimension;
        final List<CompletableFuture<ModelUpdate>> stalled = new CopyOnWriteArrayList<>();
        final AtomicInteger fastPulls = new AtomicInteger();
        final AtomicInteger calls = new AtomicInteger();

        StallingTransport(int dimension) {
            this.dimension = dimension;
        }

        @Override
        public List<String> peers() {
            return List.of(STALLED, FAST);
        }

        @Override
        public CompletableFuture<ModelUpdate> pull(String peer, ModelUpdate offer) {
            try {
                if (peer.equals(STALLED)) {
                    CompletableFuture<ModelUpdate> f = new CompletableFuture<>();
                    stalled.add(f);
                    return f;
                }
                fastPulls.incrementAndGet();
                return CompletableFuture.completedFuture(ModelUpdate.full(FAST, 0, 1, new float[dimension]));
            } finally {
                calls.incrementAndGet();
            }
        }

        @Override
        public CompletableFuture<Void> push(String peer, ModelUpdate update) {
            return CompletableFuture.failedFuture(new IllegalStateException("no pushes expected"));
        }
    }

    /** The gossip strategy, counting the messages the engine takes from it (on the training thread). */
    private static final class CountingStrategy implements AveragingStrategy {
        final GossipAveraging inner;
        int handedOut;

        CountingStrategy(GossipAveraging inner) {
            this.inner = inner;
        }

        @Override
        public void configure(LocalModel local, List<String> peers, RandomGenerator random, InstantSource clock) {
            inner.configure(local, peers, random, clock);
        }

        @Override
        public Outbound pollOutbound() {
            Outbound o = inner.pollOutbound();
            if (o != null) {
                handedOut++;
            }
            return o;
        }

        @Override
        public int pendingOutbound() {
            return inner.pendingOutbound();
        }

        @Override
        public AveragingMessage pollAbandoned() {
            return inner.pollAbandoned();
        }

        @Override
        public long patienceDeadlineMillis() {
            return inner.patienceDeadlineMillis();
        }

        @Override
        public boolean exchangesBothWays() {
            return inner.exchangesBothWays();
        }

        @Override
        public Receipt receive(AveragingMessage message, LocalModel local, InstantSource clock) {
            return inner.receive(message, local, clock);
        }

        @Override
        public void onFailure(DeliveryFailure failure, LocalModel local, InstantSource clock) {
            inner.onFailure(failure, local, clock);
        }
    }

    @Test
    void givenUpPullsToAStalledPeerDoNotBlockTheOthers() throws Exception {
        TestModel m = TestModel.logreg(4);
        Sequential model = m.model();
        float[] params = m.params();
        StallingTransport t = new StallingTransport(params.length);
        // The exchange timeout is also the patience until a pull has completed; after that it is 1 s (the floor),
        // since the fast peer answers within a step or two of 100 ms, and at most 2 s after give-ups in a row.
        CountingStrategy strategy = new CountingStrategy(new GossipAveraging(new GossipAveraging.Config(
                GossipAveraging.Mode.PUSH_PULL, UpdateWeighting.uniform(), Duration.ofSeconds(2))));
        AtomicLong millis = new AtomicLong(1_000_000);
        InstantSource clock = () -> Instant.ofEpochMilli(millis.get());
        int maxInFlight = 2;
        AveragingEngine e = new AveragingEngine(
                m.local(),
                strategy,
                t,
                new SnapshotBuffer(),
                AveragingEngine.Config.defaults(3).withExchangeEvery(1).withQueues(maxInFlight, 16),
                clock);
        try {
            int fastAfterBlocked = -1;
            for (int i = 1; i <= 3_000; i++) {
                millis.addAndGet(100);
                e.afterStep(new TrainingStep(i, 0, 8, 0.5f, model));
                awaitDispatched(t, strategy);
                if (fastAfterBlocked < 0 && t.stalled.size() > maxInFlight) {
                    // More pulls to the stalled peer started than the bound allows in flight: the earlier ones were
                    // released. From now on, count the exchanges with the fast peer.
                    fastAfterBlocked = t.fastPulls.get();
                }
                if (fastAfterBlocked >= 0 && t.fastPulls.get() - fastAfterBlocked >= 10) {
                    break;
                }
            }
            TestLog.figures(
                    "pulls to the stalled peer %d, to the fast one %d (%d after the bound was exceeded)%n",
                    t.stalled.size(),
                    t.fastPulls.get(),
                    fastAfterBlocked < 0 ? 0 : t.fastPulls.get() - fastAfterBlocked);
            assertThat(t.stalled.size())
                    .as("pulls to the stalled peer started, more than the %d slots", maxInFlight)
                    .isGreaterThan(maxInFlight);
            assertThat(t.fastPulls.get() - fastAfterBlocked)
                    .as("exchanges with the fast peer after that")
                    .isGreaterThanOrEqualTo(10);
            // Every pull to the stalled peer but the one awaited now was given up and cancelled, none reported as a
            // failure; the fast peer's pulls all completed.
            long cancelled =
                    t.stalled.stream().filter(CompletableFuture::isCancelled).count();
            boolean awaitingStalled = STALLED.equals(strategy.inner.awaitedPeer());
            assertThat(cancelled).isEqualTo(t.stalled.size() - (awaitingStalled ? 1 : 0));
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (e.stats().outgoing().sent() < t.fastPulls.get() && System.nanoTime() < deadline) {
                Thread.sleep(1); // the last completion is counted on the dispatcher thread
            }
            AveragingEngine.Stats st = e.stats();
            assertThat(st.outgoing().abandoned()).isEqualTo(cancelled);
            assertThat(st.outgoing().sendFailures()).isZero();
            assertThat(st.outgoing().sent()).isEqualTo(t.fastPulls.get());
            assertThat(strategy.inner.abandonedExchanges()).isEqualTo(cancelled);
        } finally {
            e.close();
            m.close();
        }
    }

    /**
     * With a drift bound, training waits for this node's own exchange, but no longer than the strategy waits for it:
     * once the awaited pull to the stalled peer is past the strategy's patience, the steps go on without waiting
     * (before, each waited MAX_DRIFT_WAIT, 2 s), and the next round gives the pull up and starts another.
     */
    @Test
    @Timeout(120)
    void theDriftBoundWaitsNoLongerThanTheStrategysPatience() throws Exception {
        TestModel m = TestModel.logreg(4);
        Sequential model = m.model();
        float[] params = m.params();
        StallingTransport t = new StallingTransport(params.length);
        CountingStrategy strategy = new CountingStrategy(new GossipAveraging(new GossipAveraging.Config(
                GossipAveraging.Mode.PUSH_PULL, UpdateWeighting.uniform(), Duration.ofSeconds(30))));
        AtomicLong millis = new AtomicLong(1_000_000);
        InstantSource clock = () -> Instant.ofEpochMilli(millis.get());
        int drift = 3;
        int k = 4;
        AveragingEngine e = new AveragingEngine(
                m.local(),
                strategy,
                t,
                new SnapshotBuffer(),
                AveragingEngine.Config.defaults(5)
                        .withExchangeEvery(k)
                        .withQueues(4, 16)
                        .withMaxDriftSteps(drift),
                clock);
        try {
            // Until a pull to the fast peer has completed (so that the patience is the 1 s floor) and the pull awaited
            // goes to the stalled peer. Before any pull has completed the patience is the exchange timeout: a pull to
            // the stalled peer then is let run out on the clock, and given up at the next round.
            int step = 0;
            while (step < 1_000) {
                boolean awaitingStalled = STALLED.equals(strategy.inner.awaitedPeer());
                if (awaitingStalled && t.fastPulls.get() > 0) {
                    break;
                }
                if (awaitingStalled) {
                    millis.addAndGet(31_000);
                }
                step++;
                millis.addAndGet(10);
                e.afterStep(new TrainingStep(step, 0, 8, 0.5f, model));
                awaitDispatched(t, strategy);
            }
            assertThat(strategy.inner.awaitedPeer())
                    .as("awaiting the stalled peer")
                    .isEqualTo(STALLED);
            assertThat(strategy.inner.patienceMillis()).isEqualTo(GossipAveraging.MIN_PATIENCE_MILLIS);
            int stalledBefore = t.stalled.size();
            long waitedBefore = e.stats().driftWaitNanos();

            // The patience runs out; the next steps pass the drift bound while the pull is still in flight.
            millis.addAndGet(GossipAveraging.MIN_PATIENCE_MILLIS + 1);
            // Up to and including the step that begins the next round (which waits first, then gives the pull up).
            do {
                step++;
                e.afterStep(new TrainingStep(step, 0, 8, 0.5f, model));
                awaitDispatched(t, strategy);
            } while (step % k != 0);
            long waited = e.stats().driftWaitNanos() - waitedBefore;
            TestLog.figures("waited %.3f s at the drift bound past the patience%n", waited / 1e9);
            assertThat(waited)
                    .as(
                            "waited at the drift bound after the patience ran out (MAX_DRIFT_WAIT is %s)",
                            AveragingEngine.Config.MAX_DRIFT_WAIT)
                    .isLessThan(TimeUnit.MILLISECONDS.toNanos(500));
            // The round that followed gave the stalled pull up (cancelled) and started another.
            assertThat(t.stalled.get(stalledBefore - 1)).isCancelled();
            assertThat(strategy.inner.abandonedExchanges()).isPositive();
            assertThat(strategy.handedOut).isGreaterThan(stalledBefore + t.fastPulls.get() - 1);
        } finally {
            e.close();
            m.close();
        }
    }

    /** Exchanges start on the engine's dispatcher thread: waits until every message taken has reached the transport. */
    private static void awaitDispatched(StallingTransport t, CountingStrategy s) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (t.calls.get() < s.handedOut && System.nanoTime() < deadline) {
            Thread.sleep(1);
        }
        assertThat(t.calls.get()).as("exchanges started").isEqualTo(s.handedOut);
    }
}
