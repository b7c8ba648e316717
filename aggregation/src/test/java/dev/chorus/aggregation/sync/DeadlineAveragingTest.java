package dev.chorus.aggregation.sync;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import dev.chorus.aggregation.DeliveryFailure;
import dev.chorus.aggregation.LocalModel;
import dev.chorus.aggregation.ManualClock;
import dev.chorus.aggregation.ModelUpdate;
import dev.chorus.aggregation.Outbound;
import dev.chorus.aggregation.Receipt;
import dev.chorus.aggregation.SelfCenteredClipping;
import dev.chorus.aggregation.weighting.StalenessWeighting;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class DeadlineAveragingTest {

    private final ManualClock clock = new ManualClock(10_000);
    private final SplittableRandom random = new SplittableRandom(1);
    private final Set<String> four = Set.of("a", "b", "c", "d");

    private DeadlineAveraging.Config base() {
        return new DeadlineAveraging.Config(
                four,
                1.0,
                5,
                Duration.ofSeconds(10),
                1,
                new DeadlineAveraging.LateContributions(0, StalenessWeighting.polynomial(0.5)),
                RoundAggregation.weightedMean().withBySampleCount(false));
    }

    @Test
    void theDeadlineClosesTheRoundWithTheContributionsAtHand() {
        DeadlineAveraging s = new DeadlineAveraging(base(), "a");
        LocalModel a = new LocalModel("a", new float[] {0}, 0, 1);
        s.configure(a, List.of(), random, clock);
        assertThat(s.deadline().toEpochMilli()).isEqualTo(20_000);
        List<String> recipients = new ArrayList<>();
        for (Outbound o; (o = s.pollOutbound()) != null; ) {
            recipients.add(o.recipient());
        }
        assertThat(recipients).containsExactlyInAnyOrder("b", "c", "d");
        s.receive(ModelUpdate.full("b", 0, 1, new float[] {6}), a, clock);
        assertThat(s.missing()).containsExactly("c", "d");
        clock.advanceMillis(9_999);
        s.configure(a, List.of(), random, clock);
        assertThat(s.round()).isZero();
        assertThat(a.params()).containsExactly(0);
        clock.advanceMillis(1);
        s.configure(a, List.of(), random, clock);
        assertThat(s.round()).isEqualTo(1);
        assertThat(s.lastResult()).isEqualTo(DeadlineAveraging.RoundResult.DEADLINE);
        assertThat(a.params()[0]).isCloseTo(3f, within(1e-6f));
        assertThat(s.phase()).isEqualTo(RoundPhase.TRAINING);
        assertThat(s.deadline().toEpochMilli())
                .as("the next round opens when this one closes")
                .isEqualTo(30_000);
    }

    @Test
    void screeningAtTheDeadlineCountsAModelPointingAwayAsThisNodesOwn() {
        DeadlineAveraging s = new DeadlineAveraging(
                base().withAggregation(base().aggregation().withScreening(SelfCenteredClipping.Config.defaults())),
                "a");
        LocalModel a = new LocalModel("a", new float[] {2}, 0, 1);
        s.configure(a, List.of(), random, clock);
        s.receive(ModelUpdate.full("b", 0, 1, new float[] {4}), a, clock);
        s.receive(ModelUpdate.full("c", 0, 1, new float[] {-1}), a, clock);
        clock.advanceMillis(10_000);
        s.configure(a, List.of(), random, clock);

        // c points away (sign-flipped) and counts as a's 2: (2 + 4 + 2) / 3; d never came.
        assertThat(s.lastResult()).isEqualTo(DeadlineAveraging.RoundResult.DEADLINE);
        assertThat(a.params()[0]).isCloseTo(8f / 3, within(1e-6f));
        assertThat(s.screening().orElseThrow().opposed()).isEqualTo(1);
        assertThat(new DeadlineAveraging(base(), "a").screening()).isEmpty();
    }

    @Test
    void closesEarlyWhenTheWholeCohortIsIn() {
        DeadlineAveraging s = new DeadlineAveraging(base(), "a");
        LocalModel a = new LocalModel("a", new float[] {0}, 0, 1);
        s.configure(a, List.of(), random, clock);
        s.receive(ModelUpdate.full("b", 0, 1, new float[] {4}), a, clock);
        s.receive(ModelUpdate.full("c", 0, 1, new float[] {4}), a, clock);
        Receipt last = s.receive(ModelUpdate.full("d", 0, 1, new float[] {4}), a, clock);
        assertThat(last.outcome()).isEqualTo(Receipt.Outcome.MERGED);
        assertThat(s.lastResult()).isEqualTo(DeadlineAveraging.RoundResult.COMPLETE);
        assertThat(a.params()).containsExactly(3);
    }

    @Test
    void aFailedMemberIsNotAwaited() {
        DeadlineAveraging s = new DeadlineAveraging(base(), "a");
        LocalModel a = new LocalModel("a", new float[] {0}, 0, 1);
        s.configure(a, List.of(), random, clock);
        s.receive(ModelUpdate.full("b", 0, 1, new float[] {3}), a, clock);
        s.receive(ModelUpdate.full("c", 0, 1, new float[] {3}), a, clock);
        assertThat(s.round()).isZero();
        s.onFailure(new DeliveryFailure("d", DeliveryFailure.Kind.TIMED_OUT, "no answer"), a, clock);
        assertThat(s.round()).isEqualTo(1);
        assertThat(s.lastResult()).isEqualTo(DeadlineAveraging.RoundResult.COMPLETE);
        assertThat(a.params()).containsExactly(2);
    }

    @Test
    void aNodeBehindJoinsTheSendersLaterRoundAndTheirRoundsMeet() {
        DeadlineAveraging s = new DeadlineAveraging(base(), "a");
        LocalModel a = new LocalModel("a", new float[] {0}, 0, 1);
        s.configure(a, List.of(), random, clock);
        s.receive(ModelUpdate.full("c", 0, 1, new float[] {4}), a, clock);
        // b's rounds ran ahead (its peers were unreachable, so its rounds closed early): it is at round 7.
        Receipt r = s.receive(ModelUpdate.full("b", 7, 1, new float[] {8}), a, clock);
        // Round 0 closed with what a held (its own 0 and c's 4), and a joined round 7 with b's model in it.
        assertThat(r.outcome()).isEqualTo(Receipt.Outcome.MERGED);
        assertThat(a.params()).containsExactly(2);
        assertThat(s.round()).isEqualTo(7);
        assertThat(s.caughtUp()).isEqualTo(1);
        assertThat(s.phase()).isEqualTo(RoundPhase.TRAINING);
        s.configure(a, List.of(), random, clock);
        Outbound contribution = s.pollOutbound();
        assertThat(contribution.message()).isInstanceOf(ModelUpdate.class);
        assertThat(((ModelUpdate) contribution.message()).version()).isEqualTo(7);
        assertThat(s.missing()).containsExactly("c", "d");
        s.receive(ModelUpdate.full("c", 7, 1, new float[] {2}), a, clock);
        s.receive(ModelUpdate.full("d", 7, 1, new float[] {0}), a, clock);
        assertThat(s.round()).isEqualTo(8);
        assertThat(s.lastResult()).isEqualTo(DeadlineAveraging.RoundResult.COMPLETE);
        assertThat(a.params()[0]).isCloseTo((2 + 8 + 2 + 0) / 4f, within(1e-6f));
    }

    @Test
    void aRoundNumberBeyondTheBoundIsIgnoredAndTheRoundStays() {
        DeadlineAveraging s = new DeadlineAveraging(base(), "a");
        LocalModel a = new LocalModel("a", new float[] {1}, 0, 1);
        s.configure(a, List.of(), random, clock);
        Receipt r = s.receive(ModelUpdate.full("b", Long.MAX_VALUE, 1, new float[] {9}), a, clock);
        assertThat(r.outcome()).isEqualTo(Receipt.Outcome.IGNORED_UNEXPECTED);
        assertThat(r.detail()).contains("outside 0.." + DeadlineAveraging.MAX_ROUND);
        assertThat(s.round()).isZero();
        assertThat(s.caughtUp()).isZero();
        assertThat(a.params()).containsExactly(1);
    }

    @Test
    void aRoundAheadBeforeThisNodeContributedDropsWhatItHeldWithoutAveraging() {
        DeadlineAveraging s = new DeadlineAveraging(base(), "a");
        LocalModel a = new LocalModel("a", new float[] {1}, 0, 1);
        s.configure(a, List.of(), random, clock);
        clock.advance(Duration.ofSeconds(10));
        s.configure(a, List.of(), random, clock); // round 0 closed at its deadline: a is training for round 1
        assertThat(s.round()).isEqualTo(1);
        s.receive(ModelUpdate.full("c", 1, 1, new float[] {5}), a, clock);
        Receipt r = s.receive(ModelUpdate.full("b", 3, 1, new float[] {9}), a, clock);
        assertThat(r.outcome()).isEqualTo(Receipt.Outcome.BUFFERED);
        assertThat(a.params()).containsExactly(1);
        assertThat(s.round()).isEqualTo(3);
        assertThat(s.contributionsHeld()).isEqualTo(1);
    }

    @Test
    void tooFewContributionsAbandonTheRoundAndKeepTheModel() {
        DeadlineAveraging s = new DeadlineAveraging(base().withMinContributions(3), "a");
        LocalModel a = new LocalModel("a", new float[] {1}, 0, 1);
        s.configure(a, List.of(), random, clock);
        s.receive(ModelUpdate.full("b", 0, 1, new float[] {9}), a, clock);
        clock.advance(Duration.ofSeconds(10));
        s.configure(a, List.of(), random, clock);
        assertThat(s.lastResult()).isEqualTo(DeadlineAveraging.RoundResult.ABANDONED);
        assertThat(s.abandonedRounds()).isEqualTo(1);
        assertThat(s.round()).isEqualTo(1);
        assertThat(a.params()).containsExactly(1);
    }

    @Test
    void lateContributionsAreFoldedInWithAStalenessWeightOrDropped() {
        DeadlineAveraging s = new DeadlineAveraging(base().withLateRounds(1, StalenessWeighting.polynomial(2)), "a");
        LocalModel a = new LocalModel("a", new float[] {0}, 0, 1);
        s.configure(a, List.of(), random, clock);
        clock.advance(Duration.ofSeconds(10));
        s.configure(a, List.of(), random, clock); // round 0 closes with a alone
        assertThat(s.round()).isEqualTo(1);
        s.configure(a, List.of(), random, clock); // a contributes 0 to round 1
        // b's round-0 model arrives one round late: weight (1 + 1)^-2 = 1/4 against a's 1.
        assertThat(s.receive(ModelUpdate.full("b", 0, 1, new float[] {10}), a, clock)
                        .outcome())
                .isEqualTo(Receipt.Outcome.BUFFERED);
        assertThat(s.receive(ModelUpdate.full("b", 0, 1, new float[] {10}), a, clock)
                        .outcome())
                .isEqualTo(Receipt.Outcome.IGNORED_DUPLICATE);
        assertThat(s.contributionsHeld()).isEqualTo(2);
        clock.advance(Duration.ofSeconds(10));
        s.configure(a, List.of(), random, clock);
        assertThat(a.params()[0]).isCloseTo(2f, within(1e-6f)); // (1*0 + 0.25*10) / 1.25
        // Two rounds late is too late.
        assertThat(s.receive(ModelUpdate.full("c", 0, 1, new float[] {10}), a, clock)
                        .outcome())
                .isEqualTo(Receipt.Outcome.IGNORED_STALE);
    }

    @Test
    void lateContributionsAreDroppedByDefault() {
        DeadlineAveraging s = new DeadlineAveraging(base(), "a");
        LocalModel a = new LocalModel("a", new float[] {0}, 0, 1);
        s.configure(a, List.of(), random, clock);
        clock.advance(Duration.ofSeconds(10));
        s.configure(a, List.of(), random, clock);
        assertThat(s.receive(ModelUpdate.full("b", 0, 1, new float[] {10}), a, clock)
                        .outcome())
                .isEqualTo(Receipt.Outcome.IGNORED_STALE);
    }

    @Test
    void everyNodeDerivesTheSameCohortOfTheConfiguredSize() {
        Set<String> ten = new HashSet<>();
        for (int i = 0; i < 10; i++) {
            ten.add("n" + i);
        }
        DeadlineAveraging.Config config =
                DeadlineAveraging.Config.defaults(ten, 1234).withParticipation(0.3);
        DeadlineAveraging x = new DeadlineAveraging(config, "n0");
        DeadlineAveraging y = new DeadlineAveraging(config, "n7");
        Set<Set<String>> distinct = new HashSet<>();
        for (long r = 0; r < 20; r++) {
            assertThat(x.cohortOf(r)).hasSize(3).isEqualTo(y.cohortOf(r)).isSubsetOf(ten);
            distinct.add(x.cohortOf(r));
        }
        assertThat(distinct).as("cohorts change from round to round").hasSizeGreaterThan(5);
        assertThat(new DeadlineAveraging(config.withParticipation(0.01), "n0").cohortOf(0))
                .hasSize(1);
    }

    @Test
    void nonMembersDoNotSendAndAdoptTheCohortAverage() {
        Set<String> ten = new HashSet<>();
        for (int i = 0; i < 10; i++) {
            ten.add("n" + i);
        }
        DeadlineAveraging.Config config = new DeadlineAveraging.Config(
                ten,
                0.2,
                99,
                Duration.ofSeconds(10),
                1,
                new DeadlineAveraging.LateContributions(0, StalenessWeighting.constant()),
                RoundAggregation.weightedMean().withBySampleCount(false));
        Set<String> cohort = new DeadlineAveraging(config, "n0").cohortOf(0);
        String outsider = ten.stream()
                .filter(id -> !cohort.contains(id))
                .sorted()
                .findFirst()
                .orElseThrow();
        String other = ten.stream()
                .filter(id -> !cohort.contains(id) && !id.equals(outsider))
                .findFirst()
                .orElseThrow();
        DeadlineAveraging s = new DeadlineAveraging(config, outsider);
        LocalModel m = new LocalModel(outsider, new float[] {100}, 0, 1);
        s.configure(m, List.of(), random, clock);
        assertThat(s.pendingOutbound()).isZero();
        assertThat(s.phase()).isEqualTo(RoundPhase.WAITING);
        assertThat(s.receive(ModelUpdate.full(other, 0, 1, new float[] {5}), m, clock)
                        .outcome())
                .isEqualTo(Receipt.Outcome.IGNORED_UNEXPECTED);
        float value = 2;
        for (String member : cohort) {
            s.receive(ModelUpdate.full(member, 0, 1, new float[] {value}), m, clock);
            value += 2;
        }
        assertThat(s.lastResult()).isEqualTo(DeadlineAveraging.RoundResult.COMPLETE);
        assertThat(m.params()[0]).isCloseTo(3f, within(1e-6f)); // (2 + 4) / 2: the outsider's own model is not in
    }
}
