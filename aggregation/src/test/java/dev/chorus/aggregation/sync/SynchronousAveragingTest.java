package dev.chorus.aggregation.sync;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import dev.chorus.aggregation.DeliveryFailure;
import dev.chorus.aggregation.InvalidUpdateException;
import dev.chorus.aggregation.LocalModel;
import dev.chorus.aggregation.ManualClock;
import dev.chorus.aggregation.ModelUpdate;
import dev.chorus.aggregation.Outbound;
import dev.chorus.aggregation.Receipt;
import dev.chorus.aggregation.SelfCenteredClipping;
import dev.chorus.aggregation.robust.CoordinateWiseMedian;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class SynchronousAveragingTest {

    private final ManualClock clock = new ManualClock(0);
    private final SplittableRandom random = new SplittableRandom(1);
    private final Set<String> three = Set.of("a", "b", "c");

    private static List<Outbound> drain(SynchronousAveraging s) {
        List<Outbound> out = new ArrayList<>();
        for (Outbound o; (o = s.pollOutbound()) != null; ) {
            out.add(o);
        }
        return out;
    }

    @Test
    void waitsAtTheBarrierUntilEveryParticipantContributed() {
        SynchronousAveraging s = new SynchronousAveraging(SynchronousAveraging.Config.of(three), "a");
        LocalModel a = new LocalModel("a", new float[] {0, 0}, 0, 10);
        assertThat(s.phase()).isEqualTo(RoundPhase.TRAINING);
        assertThat(s.missing()).containsExactly("a", "b", "c");

        s.configure(a, List.of(), random, clock);
        List<Outbound> sent = drain(s);
        assertThat(sent).extracting(Outbound::recipient).containsExactlyInAnyOrder("b", "c");
        assertThat(((ModelUpdate) sent.getFirst().message()).version()).isZero();
        assertThat(s.atBarrier()).isTrue();
        assertThat(s.missing()).containsExactly("b", "c");

        assertThat(s.receive(ModelUpdate.full("b", 0, 20, new float[] {3, 6}), a, clock)
                        .outcome())
                .isEqualTo(Receipt.Outcome.BUFFERED);
        assertThat(s.atBarrier()).isTrue();
        assertThat(a.params()).containsExactly(0, 0);
        assertThat(s.receive(ModelUpdate.full("c", 0, 10, new float[] {6, -6}), a, clock)
                        .outcome())
                .isEqualTo(Receipt.Outcome.MERGED);
        // Weighted by samples 10, 20, 10: (0*10 + 3*20 + 6*10)/40 = 3, (0 + 120 - 60)/40 = 1.5
        assertThat(a.params()[0]).isCloseTo(3f, within(1e-6f));
        assertThat(a.params()[1]).isCloseTo(1.5f, within(1e-6f));
        assertThat(s.round()).isEqualTo(1);
        assertThat(s.phase()).isEqualTo(RoundPhase.TRAINING);
    }

    /** A retired node answers the rounds others begin with sample count 0: the average is the others' alone. */
    @Test
    void aRetiredNodeContributesWithWeightZeroWhenAPeerBeginsARound() {
        SynchronousAveraging s = new SynchronousAveraging(SynchronousAveraging.Config.of(three), "a");
        LocalModel a = new LocalModel("a", new float[] {100}, 0, 1000);
        s.retire();
        assertThat(s.peerBeganRound()).isFalse();
        s.receive(ModelUpdate.full("b", 0, 10, new float[] {3}), a, clock);
        assertThat(s.peerBeganRound()).isTrue();
        s.configure(a, List.of(), random, clock);
        assertThat(s.peerBeganRound()).as("contributed").isFalse();
        List<Outbound> sent = drain(s);
        assertThat(sent).hasSize(2).allSatisfy(o -> assertThat(((ModelUpdate) o.message()).sampleCount())
                .isZero());
        s.receive(ModelUpdate.full("c", 0, 30, new float[] {7}), a, clock);
        assertThat(s.round()).isEqualTo(1);
        assertThat(a.params()[0]).as("(10 * 3 + 30 * 7) / 40").isCloseTo(6f, within(1e-5f));
    }

    @Test
    void uniformWeightsWhenNotWeightingBySamples() {
        SynchronousAveraging s = new SynchronousAveraging(new SynchronousAveraging.Config(three, false, null), "a");
        LocalModel a = new LocalModel("a", new float[] {0}, 0, 1000);
        s.configure(a, List.of(), random, clock);
        s.receive(ModelUpdate.full("b", 0, 1, new float[] {3}), a, clock);
        s.receive(ModelUpdate.full("c", 0, 1, new float[] {6}), a, clock);
        assertThat(a.params()[0]).isCloseTo(3f, within(1e-6f));
    }

    @Test
    void earlyContributionsForTheNextRoundAreKeptAndStaleOnesIgnored() {
        SynchronousAveraging s = new SynchronousAveraging(new SynchronousAveraging.Config(three, false, null), "a");
        LocalModel a = new LocalModel("a", new float[] {0}, 0, 1);
        s.receive(ModelUpdate.full("b", 0, 1, new float[] {3}), a, clock);
        assertThat(s.receive(ModelUpdate.full("b", 1, 1, new float[] {30}), a, clock)
                        .outcome())
                .as("b finished round 0 and is already in round 1")
                .isEqualTo(Receipt.Outcome.BUFFERED);
        assertThat(s.receive(ModelUpdate.full("b", 0, 1, new float[] {3}), a, clock)
                        .outcome())
                .isEqualTo(Receipt.Outcome.IGNORED_DUPLICATE);
        assertThat(s.receive(ModelUpdate.full("b", 5, 1, new float[] {3}), a, clock)
                        .outcome())
                .isEqualTo(Receipt.Outcome.IGNORED_UNEXPECTED);
        s.receive(ModelUpdate.full("c", 0, 1, new float[] {6}), a, clock);
        assertThat(s.round()).as("own contribution not sent yet").isZero();
        s.configure(a, List.of(), random, clock);
        assertThat(s.round()).isEqualTo(1);
        assertThat(a.params()[0]).isCloseTo(3f, within(1e-6f));
        assertThat(s.missing()).containsExactly("a", "c");
        assertThat(s.receive(ModelUpdate.full("c", 0, 1, new float[] {6}), a, clock)
                        .outcome())
                .isEqualTo(Receipt.Outcome.IGNORED_STALE);
    }

    @Test
    void aFailedParticipantBlocksTheBarrier() {
        SynchronousAveraging s = new SynchronousAveraging(SynchronousAveraging.Config.of(three), "a");
        LocalModel a = new LocalModel("a", new float[] {0}, 0, 1);
        s.configure(a, List.of(), random, clock);
        s.receive(ModelUpdate.full("b", 0, 1, new float[] {3}), a, clock);
        s.onFailure(new DeliveryFailure("c", DeliveryFailure.Kind.UNREACHABLE, "gone"), a, clock);
        clock.advanceMillis(3_600_000);
        s.configure(a, List.of(), random, clock);
        assertThat(s.atBarrier()).isTrue();
        assertThat(s.missing()).containsExactly("c");
        assertThat(s.failedPeers()).containsExactly("c");
        assertThat(a.params()).containsExactly(0);
    }

    @Test
    void aFailedContributionIsSentAgainWithGrowingDelays() {
        SynchronousAveraging s = new SynchronousAveraging(SynchronousAveraging.Config.of(three), "a");
        LocalModel a = new LocalModel("a", new float[] {1}, 0, 1);
        s.configure(a, List.of(), random, clock);
        List<Outbound> sent = drain(s);
        Outbound toC =
                sent.stream().filter(o -> o.recipient().equals("c")).findFirst().orElseThrow();

        s.onFailure(new DeliveryFailure("c", DeliveryFailure.Kind.TIMED_OUT, "slow link", toC.message()), a, clock);
        assertThat(s.pendingOutbound()).isEqualTo(1);
        clock.advanceMillis(999);
        assertThat(s.pollOutbound()).as("not before the first delay").isNull();
        clock.advanceMillis(1);
        assertThat(drain(s)).containsExactly(toC);

        s.onFailure(new DeliveryFailure("c", DeliveryFailure.Kind.TIMED_OUT, "again", toC.message()), a, clock);
        clock.advanceMillis(1999);
        assertThat(s.pollOutbound()).as("the delay doubled").isNull();
        clock.advanceMillis(1);
        assertThat(drain(s)).containsExactly(toC);
        for (int i = 0; i < 10; i++) {
            s.onFailure(new DeliveryFailure("c", DeliveryFailure.Kind.UNREACHABLE, "down", toC.message()), a, clock);
            clock.advanceMillis(SynchronousAveraging.MAX_RETRY_DELAY.toMillis());
            assertThat(drain(s)).as("the delay is capped").containsExactly(toC);
        }
        assertThat(s.failedPeers()).containsExactly("c");
    }

    @Test
    void aRetryStopsOnceThePeerHasFinishedThatRound() {
        SynchronousAveraging s = new SynchronousAveraging(SynchronousAveraging.Config.of(three), "a");
        LocalModel a = new LocalModel("a", new float[] {1}, 0, 1);
        s.configure(a, List.of(), random, clock);
        Outbound toC = drain(s).stream()
                .filter(o -> o.recipient().equals("c"))
                .findFirst()
                .orElseThrow();
        s.receive(ModelUpdate.full("b", 0, 1, new float[] {2}), a, clock);
        s.receive(ModelUpdate.full("c", 0, 1, new float[] {3}), a, clock);
        assertThat(s.round()).isEqualTo(1);
        // c contributed to round 0, but may not have this node's contribution: it is still sent again
        s.onFailure(new DeliveryFailure("c", DeliveryFailure.Kind.TIMED_OUT, "late", toC.message()), a, clock);
        clock.advanceMillis(1000);
        assertThat(drain(s)).containsExactly(toC);
        s.onFailure(new DeliveryFailure("c", DeliveryFailure.Kind.TIMED_OUT, "late", toC.message()), a, clock);
        // c's contribution to round 1 proves that c finished round 0: the retry is dropped
        s.receive(ModelUpdate.full("c", 1, 1, new float[] {3}), a, clock);
        clock.advanceMillis(60_000);
        assertThat(drain(s)).isEmpty();
        // a failure of a contribution nobody needs any more schedules nothing
        s.onFailure(new DeliveryFailure("c", DeliveryFailure.Kind.TIMED_OUT, "late", toC.message()), a, clock);
        assertThat(s.pendingOutbound()).isZero();
    }

    /**
     * Three participants on a simulated network that loses the first delivery from a to c: without the retry, c
     * would wait for a's contribution to round 0 for ever, and a and b for c's to round 1.
     */
    @Test
    void aLostDeliveryDoesNotStallTheRounds() {
        List<String> ids = List.of("a", "b", "c");
        List<SynchronousAveraging> nodes = new ArrayList<>();
        List<LocalModel> models = new ArrayList<>();
        for (int i = 0; i < ids.size(); i++) {
            nodes.add(new SynchronousAveraging(SynchronousAveraging.Config.of(three), ids.get(i)));
            models.add(new LocalModel(ids.get(i), new float[] {i * 3f}, 0, 1));
        }
        boolean lost = false;
        for (int tick = 0; tick < 200 && nodes.stream().anyMatch(n -> n.round() < 5); tick++) {
            clock.advanceMillis(100);
            for (int i = 0; i < nodes.size(); i++) {
                SynchronousAveraging n = nodes.get(i);
                if (!n.atBarrier() && n.round() < 5) {
                    n.configure(models.get(i), List.of(), random, clock);
                }
            }
            for (int i = 0; i < nodes.size(); i++) {
                for (Outbound o : drain(nodes.get(i))) {
                    int to = ids.indexOf(o.recipient());
                    if (!lost && ids.get(i).equals("a") && o.recipient().equals("c")) {
                        lost = true;
                        nodes.get(i)
                                .onFailure(
                                        new DeliveryFailure("c", DeliveryFailure.Kind.TIMED_OUT, "lost", o.message()),
                                        models.get(i),
                                        clock);
                        continue;
                    }
                    nodes.get(to).receive((ModelUpdate) o.message(), models.get(to), clock);
                }
            }
        }
        assertThat(lost).isTrue();
        assertThat(nodes).allSatisfy(n -> assertThat(n.round()).isEqualTo(5));
        assertThat(models).allSatisfy(m -> assertThat(m.params()[0]).isCloseTo(3f, within(1e-5f)));
    }

    @Test
    void aRobustRuleReplacesTheMean() {
        Set<String> five = Set.of("a", "b", "c", "d", "e");
        SynchronousAveraging s =
                new SynchronousAveraging(new SynchronousAveraging.Config(five, true, new CoordinateWiseMedian()), "a");
        LocalModel a = new LocalModel("a", new float[] {1}, 0, 1);
        s.configure(a, List.of(), random, clock);
        s.receive(ModelUpdate.full("b", 0, 1, new float[] {2}), a, clock);
        s.receive(ModelUpdate.full("c", 0, 1, new float[] {3}), a, clock);
        s.receive(ModelUpdate.full("d", 0, 1_000_000, new float[] {1e30f}), a, clock);
        s.receive(ModelUpdate.full("e", 0, 1, new float[] {-1e30f}), a, clock);
        assertThat(a.params()).containsExactly(2);
    }

    /** A uniform-weight round of {@code participants} with screening on (drop beyond the hard ratio). */
    private static SynchronousAveraging screened(Set<String> participants, CoordinateWiseMedian robust) {
        return new SynchronousAveraging(
                new SynchronousAveraging.Config(
                        participants, new RoundAggregation(false, robust, SelfCenteredClipping.Config.defaults())),
                "a");
    }

    @Test
    void screeningCountsAModelPointingAwayAsThisNodesOwn() {
        Set<String> four = Set.of("a", "b", "c", "d");
        SynchronousAveraging s = screened(four, null);
        LocalModel a = new LocalModel("a", new float[] {1, 1}, 0, 1);
        s.configure(a, List.of(), random, clock);
        s.receive(ModelUpdate.full("b", 0, 1, new float[] {1.2f, 0.8f}), a, clock);
        s.receive(ModelUpdate.full("c", 0, 1, new float[] {0.8f, 1.2f}), a, clock);
        s.receive(ModelUpdate.full("d", 0, 1, new float[] {-0.5f, -0.5f}), a, clock);

        // d, sign-flipped and well inside the radius, points away: it counts as a's (1, 1), not as (-0.5, -0.5).
        assertThat(a.params()[0]).isCloseTo(1f, within(1e-6f));
        assertThat(a.params()[1]).isCloseTo(1f, within(1e-6f));
        assertThat(s.screening()).get().satisfies(c -> {
            assertThat(c.opposed()).isEqualTo(1);
            assertThat(c.dropped()).isEqualTo(1);
            assertThat(c.screened()).isEqualTo(3);
        });
    }

    @Test
    void screeningCountsARepeatedModelAsThisNodesOwnFromItsSecondRound() {
        Set<String> two = Set.of("a", "b");
        SynchronousAveraging s = screened(two, null);
        LocalModel a = new LocalModel("a", new float[] {1, 1}, 0, 1);
        float[] free = {0.5f, 0.5f};
        s.configure(a, List.of(), random, clock);
        s.receive(ModelUpdate.full("b", 0, 1, free.clone()), a, clock);
        assertThat(a.params()).containsExactly(0.75f, 0.75f);

        // b sends the same model again: a free rider. Its first copy was averaged; this one is not.
        a.params()[0] = 2;
        a.params()[1] = 2;
        s.configure(a, List.of(), random, clock);
        s.receive(ModelUpdate.full("b", 1, 1, free.clone()), a, clock);
        assertThat(a.params()).containsExactly(2f, 2f);
        assertThat(s.screening().orElseThrow().repeats()).isEqualTo(1);
    }

    @Test
    void screeningClipsAFarModelAndKeepsOneInputPerParticipantForTheRobustRule() {
        Set<String> five = Set.of("a", "b", "c", "d", "e");
        SynchronousAveraging s = screened(five, new CoordinateWiseMedian());
        LocalModel a = new LocalModel("a", new float[] {10}, 0, 1);
        s.configure(a, List.of(), random, clock);
        s.receive(ModelUpdate.full("b", 0, 1, new float[] {11}), a, clock);
        s.receive(ModelUpdate.full("c", 0, 1, new float[] {12}), a, clock);
        // Cold, the radius is |x_a| = 10 and the hard limit (2 radii by default) 20: d at 25 is clipped to 20, e at
        // 1e30 is dropped and counts as a's 10. The median of 10, 11, 12, 20, 10 is 11; without screening, 12.
        s.receive(ModelUpdate.full("d", 0, 1, new float[] {25}), a, clock);
        s.receive(ModelUpdate.full("e", 0, 1, new float[] {1e30f}), a, clock);
        assertThat(a.params()).containsExactly(11f);
        SelfCenteredClipping c = s.screening().orElseThrow();
        assertThat(c.clipped()).isEqualTo(1);
        assertThat(c.dropped()).isEqualTo(1);
    }

    @Test
    void withoutScreeningThereIsNone() {
        assertThat(new SynchronousAveraging(SynchronousAveraging.Config.of(three), "a").screening())
                .isEmpty();
    }

    @Test
    void rejectsOutsidersAndWrongLengths() {
        SynchronousAveraging s = new SynchronousAveraging(SynchronousAveraging.Config.of(three), "a");
        LocalModel a = new LocalModel("a", new float[] {0}, 0, 1);
        assertThat(s.receive(ModelUpdate.full("z", 0, 1, new float[] {1}), a, clock)
                        .outcome())
                .isEqualTo(Receipt.Outcome.IGNORED_UNEXPECTED);
        assertThatThrownBy(() -> s.receive(ModelUpdate.full("b", 0, 1, new float[] {1, 2}), a, clock))
                .isInstanceOf(InvalidUpdateException.class)
                .hasMessageContaining("update from b");
        assertThat(s.missing()).contains("b");
        assertThatThrownBy(() -> new SynchronousAveraging(SynchronousAveraging.Config.of(three), "z"))
                .hasMessageContaining("z is not among the participants");
    }

    @Test
    void threeNodesRunRoundsTogether() {
        List<String> ids = List.of("a", "b", "c");
        SynchronousAveraging[] s = new SynchronousAveraging[3];
        LocalModel[] m = new LocalModel[3];
        for (int i = 0; i < 3; i++) {
            s[i] = new SynchronousAveraging(SynchronousAveraging.Config.of(three), ids.get(i));
            m[i] = new LocalModel(ids.get(i), new float[] {i * 3}, 0, i + 1);
        }
        for (int round = 0; round < 4; round++) {
            for (int i = 0; i < 3; i++) {
                m[i].params()[0] += 1; // a local step
                s[i].configure(m[i], List.of(), random, clock);
            }
            for (int i = 0; i < 3; i++) {
                for (Outbound o : drain(s[i])) {
                    int j = ids.indexOf(o.recipient());
                    s[j].receive(o.message(), m[j], clock);
                }
            }
            for (int i = 0; i < 3; i++) {
                assertThat(s[i].round()).isEqualTo(round + 1);
                assertThat(m[i].params()[0]).isEqualTo(m[0].params()[0]);
            }
        }
        // Round 0: (1*1 + 4*2 + 7*3)/6 = 5; each later round adds 1: 6, 7, 8.
        assertThat(m[0].params()[0]).isCloseTo(8f, within(1e-5f));
    }
}
