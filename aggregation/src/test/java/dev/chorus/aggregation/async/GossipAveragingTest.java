package dev.chorus.aggregation.async;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import dev.chorus.aggregation.AllocationMeter;
import dev.chorus.aggregation.AveragingMessage;
import dev.chorus.aggregation.DeliveryFailure;
import dev.chorus.aggregation.InvalidUpdateException;
import dev.chorus.aggregation.LocalModel;
import dev.chorus.aggregation.ManualClock;
import dev.chorus.aggregation.ModelUpdate;
import dev.chorus.aggregation.Outbound;
import dev.chorus.aggregation.PullRequest;
import dev.chorus.aggregation.Receipt;
import dev.chorus.aggregation.async.GossipAveraging.Mode;
import dev.chorus.aggregation.weighting.StalenessWeighting;
import dev.chorus.aggregation.weighting.UpdateWeighting;
import java.time.Duration;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class GossipAveragingTest {

    private final ManualClock clock = new ManualClock(1_000);
    private final SplittableRandom random = new SplittableRandom(7);

    private static GossipAveraging gossip(Mode mode) {
        return new GossipAveraging(GossipAveraging.Config.defaults().withMode(mode));
    }

    @Test
    void onlyPushPullExchangesBringAModelBack() {
        for (Mode m : Mode.values()) {
            GossipAveraging g = new GossipAveraging(
                    new GossipAveraging.Config(m, UpdateWeighting.uniform(), Duration.ofMillis(500)));
            assertThat(g.exchangesBothWays()).as(m.name()).isEqualTo(m == Mode.PUSH_PULL);
        }
    }

    @Test
    void aPeersOwnOfferCrossingTheAwaitedReplyIsMergedButNotTakenForTheReply() {
        LocalModel a = new LocalModel("a", new float[] {0, 0}, 1, 1);
        GossipAveraging ga = gossip(Mode.PUSH_PULL);
        ga.configure(a, List.of("b"), random, clock);
        Outbound request = ga.pollOutbound();
        assertThat(request.recipient()).isEqualTo("b");

        // b pulled a at the same time, with its own model: it arrives while a awaits b's reply.
        clock.advance(Duration.ofMillis(5));
        ModelUpdate offer = ModelUpdate.full("b", 3, 1, new float[] {2, 2});
        assertThat(ga.receiveUnsolicited(offer, a, clock).outcome()).isEqualTo(Receipt.Outcome.MERGED);
        assertThat(a.params()).containsExactly(1, 1);
        assertThat(ga.awaitedPeer()).as("still awaiting b's reply").isEqualTo("b");
        ga.configure(a, List.of("b", "c"), random, clock);
        assertThat(ga.pollOutbound())
                .as("no second pull while the first is awaited")
                .isNull();

        // The reply itself ends the pull.
        clock.advance(Duration.ofMillis(195));
        ModelUpdate reply = ModelUpdate.full("b", 3, 1, new float[] {3, 3});
        assertThat(ga.receive(reply, a, clock).outcome()).isEqualTo(Receipt.Outcome.MERGED);
        assertThat(a.params()).containsExactly(2, 2);
        assertThat(ga.awaitedPeer()).isNull();
        assertThat(ga.merges()).isEqualTo(2);
    }

    @Test
    void pushPullLeavesBothSidesWithTheAverage() {
        LocalModel a = new LocalModel("a", new float[] {0, 2, 4}, 5, 1);
        LocalModel b = new LocalModel("b", new float[] {2, 6, -4}, 9, 1);
        GossipAveraging ga = gossip(Mode.PUSH_PULL);
        GossipAveraging gb = gossip(Mode.PUSH_PULL);

        ga.configure(a, List.of("b"), random, clock);
        Outbound request = ga.pollOutbound();
        assertThat(request.recipient()).isEqualTo("b");
        assertThat(request.message()).isInstanceOf(PullRequest.class);
        assertThat(ga.awaitedPeer()).isEqualTo("b");

        Receipt atB = gb.receive(request.message(), b, clock);
        assertThat(atB.outcome()).isEqualTo(Receipt.Outcome.MERGED);
        assertThat(atB.replies()).hasSize(1);
        Outbound reply = atB.replies().getFirst();
        assertThat(reply.recipient()).isEqualTo("a");
        // The reply carries b's model from before the merge.
        assertThat(((ModelUpdate) reply.message()).values()).containsExactly(2, 6, -4);

        assertThat(ga.receive(reply.message(), a, clock).outcome()).isEqualTo(Receipt.Outcome.MERGED);
        assertThat(a.params()).containsExactly(1, 4, 0);
        assertThat(b.params()).containsExactly(1, 4, 0);
        assertThat(a.version()).isEqualTo(9);
        assertThat(b.version()).isEqualTo(9);
        assertThat(ga.awaitedPeer()).isNull();
    }

    @Test
    void sampleCountWeightingMovesTowardsTheLargerNode() {
        GossipAveraging.Config config = GossipAveraging.Config.defaults()
                .withWeighting(new UpdateWeighting(StalenessWeighting.constant(), true));
        LocalModel a = new LocalModel("a", new float[] {0}, 0, 10);
        LocalModel b = new LocalModel("b", new float[] {4}, 0, 30);
        GossipAveraging ga = new GossipAveraging(config);
        GossipAveraging gb = new GossipAveraging(config);
        ga.configure(a, List.of("b"), random, clock);
        Receipt atB = gb.receive(ga.pollOutbound().message(), b, clock);
        ga.receive(atB.replies().getFirst().message(), a, clock);
        // (10 * 0 + 30 * 4) / 40 = 3 on both sides; 10 * a + 30 * b is unchanged.
        assertThat(a.params()[0]).isEqualTo(3f);
        assertThat(b.params()[0]).isEqualTo(3f);
    }

    /**
     * A model that travelled rounded (int8, one step per chunk) moves the receiver only where its own parameter lies
     * outside the values that round alike: a rounded copy of the receiver's own model leaves it as it is, where
     * mixing the rounded values would add up to half a step of noise at every merge.
     */
    @Test
    void aRoundedCopyOfTheReceiversOwnModelLeavesItAsItIsAndAFarOneMixesFromTheNearerEnd() {
        float[] own = new float[64];
        for (int i = 0; i < own.length; i++) {
            own[i] = (float) (random.nextDouble() * 2 - 1);
        }
        LocalModel local = new LocalModel("a", own.clone(), 0, 1);
        ModelUpdate copy = Int8.rounded("b", own, 16);
        assertThat(copy.values()).isNotEqualTo(own);
        gossip(Mode.PUSH).receive(copy, local, clock);
        assertThat(local.params()).containsExactly(own);

        float[] far = new float[64];
        java.util.Arrays.fill(far, 10);
        far[0] = 0; // each chunk's step is 10 / 127
        ModelUpdate farUpdate = Int8.rounded("c", far, 16);
        gossip(Mode.PUSH).receive(farUpdate, local, clock);
        for (int i = 1; i < 64; i++) {
            float lower = farUpdate.values()[i] - farUpdate.rounding().halfSteps()[i / 16];
            assertThat(local.params()[i]).isCloseTo((float) (own[i] + 0.5 * ((double) lower - own[i])), within(1e-5f));
        }
    }

    @Test
    void stalerModelCountsLess() {
        GossipAveraging g = new GossipAveraging(GossipAveraging.Config.defaults()
                .withMode(Mode.PUSH)
                .withWeighting(new UpdateWeighting(StalenessWeighting.polynomial(1), false)));
        LocalModel local = new LocalModel("a", new float[] {0}, 3, 1);
        // The remote is at version 0, 3 behind: weight 1/4 against 1, so the rate is 1/5.
        g.receive(ModelUpdate.full("b", 0, 1, new float[] {10}), local, clock);
        assertThat(local.params()[0]).isCloseTo(2f, within(1e-6f));
        assertThat(local.version()).isEqualTo(3);
    }

    @Test
    void pullMergesOnlyAtTheRequester() {
        LocalModel a = new LocalModel("a", new float[] {0}, 0, 1);
        LocalModel b = new LocalModel("b", new float[] {8}, 0, 1);
        GossipAveraging ga = gossip(Mode.PULL);
        GossipAveraging gb = gossip(Mode.PULL);
        ga.configure(a, List.of("b"), random, clock);
        PullRequest request = (PullRequest) ga.pollOutbound().message();
        assertThat(request.offer()).isNull();
        Receipt atB = gb.receive(request, b, clock);
        assertThat(atB.outcome()).isEqualTo(Receipt.Outcome.ANSWERED);
        assertThat(b.params()[0]).isEqualTo(8f);
        ga.receive(atB.replies().getFirst().message(), a, clock);
        assertThat(a.params()[0]).isEqualTo(4f);
    }

    @Test
    void pushMergesOnlyAtTheReceiverAndNeverWaits() {
        LocalModel a = new LocalModel("a", new float[] {0}, 0, 1);
        LocalModel b = new LocalModel("b", new float[] {8}, 0, 1);
        GossipAveraging ga = gossip(Mode.PUSH);
        ga.configure(a, List.of("b"), random, clock);
        assertThat(ga.awaitedPeer()).isNull();
        ModelUpdate pushed = (ModelUpdate) ga.pollOutbound().message();
        gossip(Mode.PUSH).receive(pushed, b, clock);
        assertThat(b.params()[0]).isEqualTo(4f);
        assertThat(a.params()[0]).isEqualTo(0f);
    }

    @Test
    void anUnsentSnapshotIsReplacedByAFreshOne() {
        LocalModel a = new LocalModel("a", new float[] {0}, 0, 1);
        GossipAveraging ga = gossip(Mode.PUSH);
        ga.configure(a, List.of("b", "c"), random, clock);
        a.params()[0] = 5;
        a.advance();
        ga.configure(a, List.of("b", "c"), random, clock);
        assertThat(ga.pendingOutbound()).isEqualTo(1);
        ModelUpdate sent = (ModelUpdate) ga.pollOutbound().message();
        assertThat(sent.version()).isEqualTo(1);
        assertThat(sent.values()).containsExactly(5f);
        assertThat(ga.pollOutbound()).isNull();
    }

    @Test
    void anUnansweredPullIsAbandonedAfterTheTimeout() {
        LocalModel a = new LocalModel("a", new float[] {0}, 0, 1);
        GossipAveraging ga = new GossipAveraging(
                new GossipAveraging.Config(Mode.PUSH_PULL, UpdateWeighting.uniform(), Duration.ofMillis(500)));
        ga.configure(a, List.of("b"), random, clock);
        ga.pollOutbound();
        clock.advanceMillis(499);
        ga.configure(a, List.of("b"), random, clock);
        assertThat(ga.pendingOutbound()).as("still waiting for b").isZero();
        clock.advanceMillis(1);
        ga.configure(a, List.of("b"), random, clock);
        assertThat(ga.pendingOutbound()).isEqualTo(1);
        assertThat(ga.abandonedExchanges()).isEqualTo(1);
    }

    /** One pull to {@code peer}, answered by it {@code millis} later (its reply is the model {0}). */
    private void pullAnsweredAfter(GossipAveraging g, LocalModel local, String peer, long millis) {
        g.configure(local, List.of(peer), random, clock);
        assertThat(g.pollOutbound().recipient()).isEqualTo(peer);
        clock.advanceMillis(millis);
        g.receive(ModelUpdate.full(peer, 0, 1, new float[] {0}), local, clock);
        assertThat(g.awaitedPeer()).isNull();
    }

    @Test
    void aPullFarSlowerThanTheRecentOnesIsGivenUpLongBeforeTheTimeout() {
        LocalModel a = new LocalModel("a", new float[] {0}, 0, 1);
        GossipAveraging ga = gossip(Mode.PUSH_PULL); // 30 s exchange timeout
        assertThat(ga.patienceMillis()).as("nothing measured yet").isEqualTo(30_000);
        for (long ms : new long[] {300, 500, 400}) {
            pullAnsweredAfter(ga, a, "fast", ms);
        }
        assertThat(ga.patienceMillis()).as("4 x the median of 300, 400, 500").isEqualTo(1_600);

        ga.configure(a, List.of("slow"), random, clock);
        ga.pollOutbound();
        clock.advanceMillis(1_599);
        ga.configure(a, List.of("fast"), random, clock);
        assertThat(ga.pendingOutbound()).as("still waiting for slow").isZero();
        clock.advanceMillis(1);
        ga.configure(a, List.of("fast"), random, clock);
        assertThat(ga.abandonedExchanges()).isEqualTo(1);
        assertThat(ga.pollOutbound().recipient()).isEqualTo("fast");
        assertThat(ga.awaitedPeer()).isEqualTo("fast");

        // One pull given up in a row: the next one gets four times the patience.
        assertThat(ga.patienceMillis()).isEqualTo(6_400);

        // The slow peer's reply still arrives (a transport that did not cancel the pull), is merged, and leaves the
        // awaited pull alone. Its time is not counted: the pull was given up, and what raises the patience of a
        // node whose pulls are slow is the run of give-ups, not the times of late replies.
        long merges = ga.merges();
        clock.advanceMillis(6_000);
        assertThat(ga.receive(ModelUpdate.full("slow", 0, 1, new float[] {0}), a, clock)
                        .outcome())
                .isEqualTo(Receipt.Outcome.MERGED);
        assertThat(ga.merges()).isEqualTo(merges + 1);
        assertThat(ga.awaitedPeer()).isEqualTo("fast");
        assertThat(ga.patienceMillis()).isEqualTo(6_400);
        // The fast peer answers: the run ends, and 300, 400, 500 and 6,000 ms give a median of 500.
        ga.receive(ModelUpdate.full("fast", 0, 1, new float[] {0}), a, clock);
        assertThat(ga.awaitedPeer()).isNull();
        assertThat(ga.patienceMillis()).isEqualTo(2_000);
    }

    @Test
    void aGivenUpPullIsReportedOnceAsTheRequestThatWasHandedOut() {
        LocalModel a = new LocalModel("a", new float[] {0}, 0, 1);
        GossipAveraging ga = gossip(Mode.PUSH_PULL);
        pullAnsweredAfter(ga, a, "fast", 100);
        assertThat(ga.pollAbandoned()).as("a completed pull is not given up").isNull();
        assertThat(ga.patienceDeadlineMillis()).as("no pull awaited").isEqualTo(Long.MAX_VALUE);

        ga.configure(a, List.of("slow"), random, clock);
        assertThat(ga.patienceDeadlineMillis()).as("not handed out yet").isEqualTo(Long.MAX_VALUE);
        Outbound request = ga.pollOutbound();
        assertThat(ga.patienceDeadlineMillis()).isEqualTo(clock.millis() + 1_000);
        clock.advanceMillis(999);
        ga.configure(a, List.of("fast"), random, clock);
        assertThat(ga.pollAbandoned()).as("still within the patience").isNull();
        clock.advanceMillis(1);
        ga.configure(a, List.of("fast"), random, clock);
        assertThat(ga.pollAbandoned()).isSameAs(request.message());
        assertThat(ga.pollAbandoned()).as("reported once").isNull();
        assertThat(ga.awaitedPeer()).isEqualTo("fast");
    }

    @Test
    void aPullThatWasNeverHandedOutIsNeitherReportedNorTimed() {
        LocalModel a = new LocalModel("a", new float[] {0}, 0, 1);
        GossipAveraging ga = gossip(Mode.PUSH_PULL);
        pullAnsweredAfter(ga, a, "fast", 100);
        ga.configure(a, List.of("b"), random, clock); // the transport takes nothing: its slots are busy
        clock.advanceMillis(5_000);
        ga.configure(a, List.of("c"), random, clock);
        assertThat(ga.abandonedExchanges()).isEqualTo(1);
        assertThat(ga.pollAbandoned()).isNull();
        assertThat(ga.pollOutbound().recipient())
                .as("the unsent request was replaced")
                .isEqualTo("c");
        assertThat(ga.patienceMillis())
                .as("the 5 s it sat in the queue is no pull's time")
                .isEqualTo(GossipAveraging.MIN_PATIENCE_MILLIS);
    }

    @Test
    void aFailureOfAnEarlierExchangeWithTheAwaitedPeerLeavesTheAwaitedPullAlone() {
        LocalModel a = new LocalModel("a", new float[] {0}, 0, 1);
        GossipAveraging ga = gossip(Mode.PUSH_PULL);
        ga.configure(a, List.of("b"), random, clock);
        Outbound earlier = ga.pollOutbound();
        ga.onFailure(new DeliveryFailure("b", DeliveryFailure.Kind.TIMED_OUT, "x", earlier.message()), a, clock);
        ga.configure(a, List.of("b"), random, clock);
        Outbound awaited = ga.pollOutbound();
        ga.onFailure(new DeliveryFailure("b", DeliveryFailure.Kind.TIMED_OUT, "late", earlier.message()), a, clock);
        assertThat(ga.awaitedPeer()).isEqualTo("b");
        ga.onFailure(new DeliveryFailure("b", DeliveryFailure.Kind.TIMED_OUT, "now", awaited.message()), a, clock);
        assertThat(ga.awaitedPeer()).isNull();
        assertThat(ga.pollAbandoned()).as("the transport ended it already").isNull();
    }

    @Test
    void aNodeWhosePullsAreAllSlowLearnsAPatienceToMatch() {
        LocalModel a = new LocalModel("a", new float[] {0}, 0, 1);
        GossipAveraging ga = gossip(Mode.PUSH_PULL);
        pullAnsweredAfter(ga, a, "b", 100);
        assertThat(ga.patienceMillis()).as("never under the floor").isEqualTo(GossipAveraging.MIN_PATIENCE_MILLIS);
        // Its link slows down: from now on every reply takes 3 s, three times the patience. Pulls are given up at
        // first, but each give-up in a row quadruples the patience until a pull completes, and then the completed
        // pulls' times make it 4 x 3 s: the node waits for its pulls again. Here the given-up pulls' replies still
        // arrive (a transport that does not cancel them); they are merged, not timed.
        SlowReplies link = new SlowReplies(ga, a, 3_000, true);
        link.run(100_000);
        assertThat(ga.patienceMillis()).isEqualTo(12_000);
        long abandoned = ga.abandonedExchanges();
        assertThat(abandoned).as("pulls given up before the patience caught up").isPositive();
        link.run(50_000);
        assertThat(ga.abandonedExchanges())
                .as("none given up once the patience matches")
                .isEqualTo(abandoned);
    }

    @Test
    void aNodeWhosePullsAreAllSlowLearnsAPatienceToMatchWhenGivenUpPullsAreCancelled() {
        LocalModel a = new LocalModel("a", new float[] {0}, 0, 1);
        GossipAveraging ga = gossip(Mode.PUSH_PULL);
        pullAnsweredAfter(ga, a, "b", 100);
        // As above, but every pull the node gives up is cancelled, as the averaging engine does: no late reply
        // ever arrives, and the run of give-ups alone raises the patience until pulls complete.
        SlowReplies link = new SlowReplies(ga, a, 3_000, false);
        link.run(100_000);
        assertThat(link.cancelled).as("pulls given up and cancelled").isPositive();
        assertThat(ga.patienceMillis()).isEqualTo(12_000);
        long abandoned = ga.abandonedExchanges();
        link.run(50_000);
        assertThat(ga.abandonedExchanges())
                .as("none given up once the patience matches")
                .isEqualTo(abandoned);
    }

    @Test
    void oneDeadPeerAmongFastOnesLeavesThePatienceAtTheirPace() {
        LocalModel a = new LocalModel("a", new float[] {0}, 0, 1);
        GossipAveraging ga = gossip(Mode.PUSH_PULL);
        for (int i = 0; i < 9; i++) {
            pullAnsweredAfter(ga, a, "fast", 200);
        }
        assertThat(ga.patienceMillis()).isEqualTo(GossipAveraging.MIN_PATIENCE_MILLIS);
        // Every third pull goes to a dead peer and is given up; the pulls in between complete, so each run of
        // give-ups ends at one and the patience stays at the live peer's pace.
        for (int round = 0; round < 10; round++) {
            ga.configure(a, List.of("dead"), random, clock);
            ga.pollOutbound();
            clock.advanceMillis(GossipAveraging.MIN_PATIENCE_MILLIS);
            ga.configure(a, List.of("fast"), random, clock);
            assertThat(ga.pollAbandoned()).isNotNull();
            ga.pollOutbound();
            clock.advanceMillis(200);
            ga.receive(ModelUpdate.full("fast", 0, 1, new float[] {0}), a, clock);
            pullAnsweredAfter(ga, a, "fast", 200);
            assertThat(ga.patienceMillis()).isEqualTo(GossipAveraging.MIN_PATIENCE_MILLIS);
        }
        assertThat(ga.abandonedExchanges()).isEqualTo(10);
    }

    /**
     * Runs a node's {@code configure} every 500 ms, each of its pulls to a new peer answered after a delay; the pulls
     * it gives up are answered too when {@code givenUpReplies}, else cancelled.
     */
    private final class SlowReplies {
        private final GossipAveraging strategy;
        private final LocalModel local;
        private final long delayMillis;
        private final boolean givenUpReplies;
        private final Map<String, Long> replyDue = new HashMap<>();
        private final Map<AveragingMessage, String> recipients = new IdentityHashMap<>();
        private int pulls;
        private int cancelled;

        SlowReplies(GossipAveraging strategy, LocalModel local, long delayMillis, boolean givenUpReplies) {
            this.strategy = strategy;
            this.local = local;
            this.delayMillis = delayMillis;
            this.givenUpReplies = givenUpReplies;
        }

        void run(long millis) {
            for (long end = clock.millis() + millis; clock.millis() < end; clock.advanceMillis(500)) {
                long now = clock.millis();
                for (var due : List.copyOf(replyDue.entrySet())) {
                    if (due.getValue() <= now) {
                        strategy.receive(ModelUpdate.full(due.getKey(), 0, 1, new float[] {0}), local, clock);
                        replyDue.remove(due.getKey());
                    }
                }
                strategy.configure(local, List.of("p" + pulls), random, clock);
                AveragingMessage givenUp = strategy.pollAbandoned();
                if (givenUp != null) {
                    String peer = recipients.remove(givenUp);
                    assertThat(peer).as("a request that was handed out").isNotNull();
                    if (!givenUpReplies) {
                        replyDue.remove(peer);
                        cancelled++;
                    }
                }
                Outbound out = strategy.pollOutbound();
                if (out != null) {
                    replyDue.put(out.recipient(), now + delayMillis);
                    recipients.put(out.message(), out.recipient());
                    pulls++;
                }
            }
        }
    }

    @Test
    void thePatienceNeverExceedsTheExchangeTimeout() {
        LocalModel a = new LocalModel("a", new float[] {0}, 0, 1);
        GossipAveraging ga = new GossipAveraging(
                new GossipAveraging.Config(Mode.PULL, UpdateWeighting.uniform(), Duration.ofSeconds(5)));
        pullAnsweredAfter(ga, a, "b", 4_000);
        assertThat(ga.patienceMillis()).isEqualTo(5_000);
    }

    @Test
    void aReportedFailureFreesTheNodeAtOnce() {
        LocalModel a = new LocalModel("a", new float[] {0}, 0, 1);
        GossipAveraging ga = gossip(Mode.PUSH_PULL);
        ga.configure(a, List.of("b"), random, clock);
        ga.pollOutbound();
        ga.onFailure(new DeliveryFailure("c", DeliveryFailure.Kind.UNREACHABLE, "x"), a, clock);
        assertThat(ga.awaitedPeer()).isEqualTo("b");
        ga.onFailure(new DeliveryFailure("b", DeliveryFailure.Kind.UNREACHABLE, "connection refused"), a, clock);
        assertThat(ga.awaitedPeer()).isNull();
        ga.configure(a, List.of("b"), random, clock);
        assertThat(ga.pendingOutbound()).isEqualTo(1);
    }

    @Test
    void noPeersNothingToSend() {
        LocalModel a = new LocalModel("a", new float[] {0}, 0, 1);
        GossipAveraging ga = gossip(Mode.PUSH_PULL);
        ga.configure(a, List.of(), random, clock);
        assertThat(ga.pollOutbound()).isNull();
        assertThat(ga.awaitedPeer()).isNull();
    }

    @Test
    void wrongLengthIsRejectedAndNothingMerged() {
        LocalModel a = new LocalModel("a", new float[] {1, 2}, 0, 1);
        GossipAveraging ga = gossip(Mode.PUSH_PULL);
        assertThatThrownBy(() -> ga.receive(ModelUpdate.full("b", 0, 1, new float[] {1, 2, 3}), a, clock))
                .isInstanceOf(InvalidUpdateException.class)
                .hasMessageContaining("update from b")
                .hasMessageContaining("3 parameters")
                .hasMessageContaining("has 2");
        PullRequest offer = new PullRequest("b", 0, ModelUpdate.full("b", 0, 1, new float[] {9}));
        assertThatThrownBy(() -> ga.receive(offer, a, clock)).isInstanceOf(InvalidUpdateException.class);
        assertThat(a.params()).containsExactly(1, 2);
        assertThat(ga.merges()).isZero();
    }

    @Test
    void fragmentsAndDeltasAreNotMerged() {
        LocalModel a = new LocalModel("a", new float[] {1, 2}, 0, 1);
        GossipAveraging ga = gossip(Mode.PUSH);
        Receipt r1 = ga.receive(ModelUpdate.delta("b", 0, 1, new float[] {1, 1}), a, clock);
        Receipt r2 = ga.receive(ModelUpdate.fragment("b", 0, 1, 2, new int[] {0}, new float[] {5}), a, clock);
        assertThat(r1.outcome()).isEqualTo(Receipt.Outcome.IGNORED_UNEXPECTED);
        assertThat(r2.outcome()).isEqualTo(Receipt.Outcome.IGNORED_UNEXPECTED);
        assertThat(a.params()).containsExactly(1, 2);
    }

    @Test
    void mergingAMillionParametersAllocatesNothing() {
        int d = 1_000_000;
        float[] params = new float[d];
        float[] remote = new float[d];
        for (int i = 0; i < d; i++) {
            remote[i] = i % 7;
        }
        LocalModel local = new LocalModel("a", params, 0, 1);
        ModelUpdate update = ModelUpdate.full("b", 0, 1, remote);
        GossipAveraging g = gossip(Mode.PUSH);
        g.receive(update, local, clock); // warm up
        long bytes = AllocationMeter.bytesAllocatedBy(() -> g.receive(update, local, clock));
        assertThat(bytes).as("bytes allocated by one merge").isLessThan(1024);
        assertThat(params[6]).isCloseTo(4.5f, within(1e-6f));
    }
}
