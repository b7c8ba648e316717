package dev.chorus.node.averaging;

import static org.assertj.core.api.Assertions.assertThat;

import dev.chorus.aggregation.ModelUpdate;
import dev.chorus.learning.model.Sequential;
import dev.chorus.learning.train.TrainingStep;
import java.time.Instant;
import java.time.InstantSource;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/**
 * A node whose steps are far cheaper than its exchanges starts at most {@code maxExchangesPerSecondPerPeer}
 * exchanges a second with each peer, on the engine's clock: the rounds in between are skipped.
 */
class AveragingEngineRateLimitTest {

    /** A clock the test moves. */
    private static final class ManualClock implements InstantSource {
        final AtomicLong nanos = new AtomicLong();

        @Override
        public Instant instant() {
            return Instant.ofEpochSecond(0, nanos.get());
        }
    }

    /** Two peers; every push completes at once and is counted. */
    private static final class CountingTransport implements ExchangeTransport {
        final Map<String, AtomicLong> pushes = new ConcurrentHashMap<>();

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
            pushes.computeIfAbsent(peer, p -> new AtomicLong()).incrementAndGet();
            return CompletableFuture.completedFuture(null);
        }

        long total() {
            return pushes.values().stream().mapToLong(AtomicLong::get).sum();
        }
    }

    private static AveragingEngine engine(TestModel m, ExchangeTransport t, double rate, InstantSource clock) {
        return new AveragingEngine(
                m.local(),
                new PushBurst(null, 1),
                t,
                new SnapshotBuffer(),
                AveragingEngine.Config.defaults(1).withExchangeEvery(1).withMaxExchangesPerSecondPerPeer(rate),
                clock);
    }

    @Test
    void roundsBeyondEachPeersRateAreSkipped() throws Exception {
        TestModel m = TestModel.logreg(4);
        Sequential model = m.model();
        ManualClock clock = new ManualClock();
        CountingTransport t = new CountingTransport();
        AveragingEngine e = engine(m, t, 2, clock);
        try {
            for (int i = 1; i <= 1000; i++) {
                e.afterStep(new TrainingStep(i, 0, 8, 0.5f, model));
            }
            assertThat(e.stats().rounds()).as("rounds started").isEqualTo(2);
            assertThat(e.stats().outgoing().throttledRounds())
                    .as("two rounds use both peers' burst of two; the other 998 find no token")
                    .isEqualTo(998);
            awaitPushes(t, 4);
            awaitSent(e, 4);
            clock.nanos.addAndGet(500_000_000L); // one token each
            for (int i = 1001; i <= 1100; i++) {
                e.afterStep(new TrainingStep(i, 0, 8, 0.5f, model));
            }
            assertThat(e.stats().outgoing().throttledRounds()).isEqualTo(998 + 99);
            awaitPushes(t, 6);
            assertThat(t.pushes.get("peer-b").get()).isEqualTo(3);
            assertThat(t.pushes.get("peer-c").get()).isEqualTo(3);
        } finally {
            e.close();
            m.close();
        }
    }

    @Test
    void aRateOfZeroSkipsNoRound() throws Exception {
        TestModel m = TestModel.logreg(4);
        Sequential model = m.model();
        CountingTransport t = new CountingTransport();
        AveragingEngine e = engine(m, t, 0, new ManualClock());
        try {
            // Steps spaced out so that exchanges complete and free their slots; the clock never moves.
            for (int i = 1; i <= 2000 && t.total() <= 4; i++) {
                e.afterStep(new TrainingStep(i, 0, 8, 0.5f, model));
                Thread.sleep(1);
            }
            assertThat(e.stats().outgoing().throttledRounds()).isZero();
            assertThat(t.total())
                    .as("more than a bound of 2 a second would let out")
                    .isGreaterThan(4);
        } finally {
            e.close();
            m.close();
        }
    }

    private static void awaitSent(AveragingEngine e, long n) throws InterruptedException {
        long deadline = System.nanoTime() + 10_000_000_000L;
        while (e.stats().outgoing().sent() < n && System.nanoTime() < deadline) {
            Thread.sleep(5);
        }
        assertThat(e.stats().outgoing().sent()).isEqualTo(n);
    }

    private static void awaitPushes(CountingTransport t, long n) throws InterruptedException {
        long deadline = System.nanoTime() + 10_000_000_000L;
        while (t.total() < n && System.nanoTime() < deadline) {
            Thread.sleep(5);
        }
        assertThat(t.total()).isEqualTo(n);
    }
}
