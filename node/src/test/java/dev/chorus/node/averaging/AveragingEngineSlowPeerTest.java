package dev.chorus.node.averaging;

import static org.assertj.core.api.Assertions.assertThat;

import dev.chorus.aggregation.ModelUpdate;
import dev.chorus.learning.model.Sequential;
import dev.chorus.learning.train.TrainingStep;
import java.time.InstantSource;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Peers behind slow links do not hold the node's window of exchanges: each has one exchange at a time, outside the
 * window, and the fast peers keep every slot of it. Before, two slow peers with two slots each took a window of 4
 * and a node next to them sent at a fraction of the rate of one without.
 */
class AveragingEngineSlowPeerTest {

    private static final List<String> PEERS = List.of("peer-b", "peer-c", "peer-d", "peer-e", "peer-f", "peer-g");
    private static final Set<String> SLOW = Set.of("peer-b", "peer-c");
    private static final int WINDOW = 4;

    /** Pushes held until the test completes them. */
    private static final class Transport implements ExchangeTransport {
        final Map<String, List<CompletableFuture<Void>>> held = new ConcurrentHashMap<>();

        @Override
        public List<String> peers() {
            return PEERS;
        }

        @Override
        public CompletableFuture<ModelUpdate> pull(String peer, ModelUpdate offer) {
            return CompletableFuture.failedFuture(new IllegalStateException("no pulls expected"));
        }

        @Override
        public CompletableFuture<Void> push(String peer, ModelUpdate update) {
            CompletableFuture<Void> f = new CompletableFuture<>();
            held.computeIfAbsent(peer, p -> new CopyOnWriteArrayList<>()).add(f);
            return f;
        }

        /** Pushes to each peer not yet completed. */
        Map<String, Long> open() {
            return held.entrySet().stream().collect(Collectors.toMap(Map.Entry::getKey, e -> e.getValue().stream()
                    .filter(f -> !f.isDone())
                    .count()));
        }

        long openTotal() {
            return open().values().stream().mapToLong(Long::longValue).sum();
        }

        void complete(Set<String> peers) {
            for (String p : peers) {
                held.getOrDefault(p, List.of()).forEach(f -> f.complete(null));
            }
        }
    }

    private final TestModel m = TestModel.logreg(4);
    private final Sequential model = m.model();
    private final Transport t = new Transport();
    private PushBurst strategy;
    private AveragingEngine e;

    /** Builds the engine, its strategy a barrier one with {@code everyRecipient}, and measures the peers. */
    private void start(boolean everyRecipient) throws InterruptedException {
        strategy = new PushBurst(List.of(), 1, everyRecipient);
        e = new AveragingEngine(
                m.local(),
                strategy,
                t,
                new SnapshotBuffer(),
                AveragingEngine.Config.defaults(1)
                        .withExchangeEvery(1)
                        .withQueues(WINDOW, 16)
                        .withMaxInFlightPerPeer(2),
                InstantSource.system());
        measure();
    }

    @AfterEach
    void close() {
        if (e != null) {
            e.close();
        }
        m.close();
    }

    /** Three fast peers that answer at once, then the two slow ones, which take 200 ms: steps 1 to 3. */
    private void measure() throws InterruptedException {
        strategy.to = List.of("peer-d", "peer-e", "peer-f");
        e.afterStep(new TrainingStep(1, 0, 8, 0.5f, model));
        awaitOpen(t, 3, false);
        t.complete(Set.of("peer-d", "peer-e", "peer-f"));
        awaitSent(e, 3);
        strategy.to = List.copyOf(SLOW);
        e.afterStep(new TrainingStep(2, 0, 8, 0.5f, model));
        awaitOpen(t, 2, false);
        Thread.sleep(200);
        t.complete(SLOW);
        awaitSent(e, 5);
        assertThat(e.timings(PEERS).get("peer-b").exchangeSeconds()).isGreaterThan(0.15);
        // A round takes the limit from the times known when it begins: one more, with all five measured.
        strategy.to = List.of();
        e.afterStep(new TrainingStep(3, 0, 8, 0.5f, model));
    }

    @Test
    void slowPeersGetOneExchangeEachOutsideTheWindowAndTheFastOnesKeepIt() throws Exception {
        start(false);

        // Three messages for every peer each round, slow ones first in the queue.
        strategy.to = PEERS;
        strategy.count = 3;
        for (int round = 4; round <= 7; round++) {
            e.afterStep(new TrainingStep(round, 0, 8, 0.5f, model));
            awaitOpen(t, WINDOW + SLOW.size(), true);
            Map<String, Long> open = t.open();
            for (String slow : SLOW) {
                assertThat(open.getOrDefault(slow, 0L))
                        .as("round %d: %s, slow, has one exchange at a time: %s", round, slow, open)
                        .isEqualTo(1);
            }
            long fast = open.entrySet().stream()
                    .filter(x -> !SLOW.contains(x.getKey()))
                    .mapToLong(Map.Entry::getValue)
                    .sum();
            assertThat(fast)
                    .as("round %d: the fast peers hold the whole window: %s", round, open)
                    .isEqualTo(WINDOW);
            // The fast peers answer; the slow ones go on holding their exchange.
            long before = e.stats().outgoing().sent();
            t.complete(Set.of("peer-d", "peer-e", "peer-f", "peer-g"));
            awaitSent(e, before + WINDOW);
        }
    }

    @Test
    void aStrategyThatAwaitsEveryRecipientKeepsBothSlotsWithASlowPeer() throws Exception {
        start(true);

        // Two messages for each slow peer: both start, as for a fast one, and they count in the window.
        strategy.to = List.copyOf(SLOW);
        strategy.count = 2;
        e.afterStep(new TrainingStep(4, 0, 8, 0.5f, model));
        awaitOpen(t, 4, true);
        Map<String, Long> open = t.open();
        for (String slow : SLOW) {
            assertThat(open.getOrDefault(slow, 0L))
                    .as("%s, slow, has both its slots: %s", slow, open)
                    .isEqualTo(2);
        }
        // The window is full with them: a message for a fast peer waits in the strategy's queue.
        strategy.to = List.of("peer-d");
        strategy.count = 1;
        e.afterStep(new TrainingStep(5, 0, 8, 0.5f, model));
        Thread.sleep(50);
        assertThat(t.open().getOrDefault("peer-d", 0L)).isZero();
        assertThat(strategy.pendingOutbound()).isEqualTo(1);
        assertThat(strategy.failures).noneMatch(f -> f.detail().contains("every exchange slot"));
    }

    @Test
    void repliesToArrivalsAreHeldToTheSameSlotsPerPeer() throws Exception {
        start(false);
        strategy.replies = 3;
        float[] params = m.local().params().clone();
        assertThat(e.offer(ModelUpdate.full("peer-b", 2, 8, params))).isTrue();
        assertThat(e.offer(ModelUpdate.full("peer-d", 2, 8, params))).isTrue();
        e.afterStep(new TrainingStep(4, 0, 8, 0.5f, model));
        awaitOpen(t, 3, true);
        Map<String, Long> open = t.open();
        assertThat(open.getOrDefault("peer-b", 0L))
                .as("slow: one reply at a time: %s", open)
                .isEqualTo(1);
        assertThat(open.getOrDefault("peer-d", 0L))
                .as("fast: its two slots: %s", open)
                .isEqualTo(2);
        e.afterStep(new TrainingStep(5, 0, 8, 0.5f, model)); // hands the strategy the refusals
        List<String> refused = strategy.failures.stream()
                .filter(f -> f.detail().contains("every exchange slot"))
                .map(f -> f.peer())
                .sorted()
                .toList();
        assertThat(refused).containsExactly("peer-b", "peer-b", "peer-d");
    }

    private static void awaitSent(AveragingEngine e, long n) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (e.stats().outgoing().sent() < n && System.nanoTime() < deadline) {
            Thread.sleep(2);
        }
        assertThat(e.stats().outgoing().sent()).as("pushes completed").isGreaterThanOrEqualTo(n);
    }

    /**
     * Pushes start on the dispatcher thread: waits until {@code n} are open, or 10 s, and with {@code settle} 50 ms
     * more, for any that should not follow.
     */
    private static void awaitOpen(Transport t, long n, boolean settle) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (t.openTotal() < n && System.nanoTime() < deadline) {
            Thread.sleep(1);
        }
        if (settle) {
            Thread.sleep(50);
        }
    }
}
