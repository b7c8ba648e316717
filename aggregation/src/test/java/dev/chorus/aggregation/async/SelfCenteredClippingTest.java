package dev.chorus.aggregation.async;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import dev.chorus.aggregation.LocalModel;
import dev.chorus.aggregation.ManualClock;
import dev.chorus.aggregation.ModelFragmentation;
import dev.chorus.aggregation.ModelUpdate;
import dev.chorus.aggregation.Receipt;
import dev.chorus.aggregation.SelfCenteredClipping;
import dev.chorus.aggregation.weighting.UpdateWeighting;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** The radius, the per-peer record and the screening inside both gossip strategies. */
class SelfCenteredClippingTest {

    /** Hard-clipped models merged clipped, so that the clipping itself shows in the factors. */
    private static final SelfCenteredClipping.Config CONFIG = SelfCenteredClipping.Config.defaults()
            .withCoolDown(Duration.ofSeconds(10))
            .withDropHard(false);

    /** Warms the history up with {@code count} distances of {@code distance} from honest peers, none clipped. */
    private static void warm(SelfCenteredClipping c, int count, double distance) {
        for (int i = 0; i < count; i++) {
            assertThat(c.admit("honest-" + (i % 4), distance, 1e9, 10, 10, 0)).isEqualTo(1.0);
        }
    }

    @Test
    void coldStartClipsOnlyBeyondTheLocalModelsLength() {
        SelfCenteredClipping c = new SelfCenteredClipping(CONFIG);
        assertThat(c.radius(5)).isEqualTo(5);
        assertThat(c.radius(0.1)).isEqualTo(1); // the cold radius is a floor
        assertThat(c.admit("a", 4, 5, 10, 10, 0)).isEqualTo(1.0);
        assertThat(c.admit("a", 50, 5, 10, 10, 0)).isCloseTo(0.1, within(1e-12));
        assertThat(c.clipped()).isEqualTo(1);
    }

    @Test
    void theRadiusIsTheMultipleOfTheMedianOnceWarm() {
        SelfCenteredClipping c = new SelfCenteredClipping(CONFIG);
        warm(c, CONFIG.warmup(), 2);
        assertThat(c.radius(1000)).isEqualTo(6);
        assertThat(c.admit("x", 12, 1000, 10, 10, 0)).isCloseTo(0.5, within(1e-12));
    }

    @Test
    void anAttackersHugeModelsDoNotInflateTheRadius() {
        SelfCenteredClipping c = new SelfCenteredClipping(CONFIG);
        warm(c, CONFIG.warmup(), 2);
        // A third of everything merged is from the attacker, at 1e30: its distances enter at the radius.
        for (int round = 0; round < 200; round++) {
            c.admit("honest-" + (round % 4), 2, 1, 10, 10, 0);
            c.admit("honest-" + ((round + 1) % 4), 2, 1, 10, 10, 0);
            if (!c.excluded("attacker", 0)) {
                c.admit("attacker", 1e30, 1, 10, 10, 0);
            }
        }
        assertThat(c.radius(1)).isEqualTo(6);
    }

    @Test
    void aFragmentIsClippedToItsShareOfTheRadiusAndEntersTheHistoryInWholeModelUnits() {
        SelfCenteredClipping c = new SelfCenteredClipping(CONFIG);
        warm(c, CONFIG.warmup(), 2); // tau = 6 for the whole model of 100 coordinates
        // 25 of 100 coordinates: radius 6 * sqrt(1/4) = 3.
        assertThat(c.admit("p", 1, 1, 25, 100, 0)).isEqualTo(1.0);
        assertThat(c.admit("p", 6, 1, 25, 100, 0)).isCloseTo(0.5, within(1e-12));
        // Both entered as whole-model distances 2 and 6 (clipped at 3 x 2): the median is unchanged.
        assertThat(c.radius(1)).isEqualTo(6);
    }

    @Test
    void aPeerClippedHardIsDownWeightedThenExcludedThenReadmittedAfterTheCoolDown() {
        SelfCenteredClipping c = new SelfCenteredClipping(CONFIG);
        warm(c, CONFIG.warmup(), 1); // tau = 3
        double[] factors = new double[CONFIG.excludeAt()];
        for (int i = 0; i < CONFIG.excludeAt(); i++) {
            factors[i] = c.admit("bad", 30, 1, 10, 10, 1000);
        }
        assertThat(factors[0]).isCloseTo(0.1, within(1e-12));
        // From the suspectAt-th hard clip on, the clipped difference counts suspectWeight.
        assertThat(factors[CONFIG.suspectAt() - 1]).isCloseTo(0.1 * CONFIG.suspectWeight(), within(1e-12));
        assertThat(c.standing("bad")).isEqualTo(SelfCenteredClipping.Standing.EXCLUDED);
        assertThat(c.excluded("bad", 1000)).isTrue();
        assertThat(c.excludedPeers(1000)).isEqualTo(1);
        assertThat(c.exclusions()).isEqualTo(1);
        assertThat(c.pollEvent().standing()).isEqualTo(SelfCenteredClipping.Standing.SUSPECT);
        SelfCenteredClipping.PeerEvent excluded = c.pollEvent();
        assertThat(excluded.standing()).isEqualTo(SelfCenteredClipping.Standing.EXCLUDED);
        assertThat(excluded.reason()).contains("excluded for 10000 ms");
        assertThat(c.refuse("bad", 4000)).contains("excluded for another 7000 ms");
        assertThat(c.refused()).isEqualTo(1);

        assertThat(c.excluded("bad", 10_999)).isTrue();
        assertThat(c.excluded("bad", 11_000)).isFalse();
        assertThat(c.standing("bad")).isEqualTo(SelfCenteredClipping.Standing.TRUSTED);
        assertThat(c.pollEvent().standing()).isEqualTo(SelfCenteredClipping.Standing.TRUSTED);
        assertThat(c.admit("bad", 1, 1, 10, 10, 11_000)).isEqualTo(1.0);

        // A second exclusion lasts twice as long.
        for (int i = 0; i < CONFIG.excludeAt(); i++) {
            c.admit("bad", 30, 1, 10, 10, 20_000);
        }
        assertThat(c.excluded("bad", 20_000 + 19_999)).isTrue();
        assertThat(c.excluded("bad", 20_000 + 20_000)).isFalse();
    }

    @Test
    void byDefaultAModelBeyondTheHardRatioIsDroppedAndOneWithinItIsClipped() {
        SelfCenteredClipping.Config config = SelfCenteredClipping.Config.defaults();
        assertThat(config.dropHard()).isTrue();
        SelfCenteredClipping c = new SelfCenteredClipping(config);
        warm(c, config.warmup(), 1); // tau = 3, hard beyond 6
        assertThat(c.admit("p", 5, 1, 10, 10, 0)).isCloseTo(0.6, within(1e-12));
        assertThat(c.admit("p", 6.5, 1, 10, 10, 0)).isZero();
        assertThat(c.lastDrop())
                .contains("p's model is 2.17 times the clipping radius")
                .contains("dropped");
        assertThat(c.admit("q", Double.POSITIVE_INFINITY, 1, 10, 10, 0)).isZero();
        assertThat(c.lastDrop()).contains("not finite");
        assertThat(c.clipped()).isEqualTo(1);
        assertThat(c.dropped()).isEqualTo(2);
        // Dropped distances enter the history at the radius, as clipped ones do: the radius holds.
        assertThat(c.radius(1)).isEqualTo(3);
    }

    @Test
    void gossipAveragingLeavesTheModelAsItIsWhenItDropsASignFlippedModel() {
        GossipAveraging g = new GossipAveraging(GossipAveraging.Config.defaults()
                .withMode(GossipAveraging.Mode.PUSH)
                .withScreening(SelfCenteredClipping.Config.defaults()));
        LocalModel local = new LocalModel("me", new float[] {3, 4}, 1, 1); // |x| = 5: the cold radius
        // -5 x is 30 from x: six times the cold radius.
        Receipt r = g.receive(ModelUpdate.full("bad", 1, 1, new float[] {-15, -20}), local, new ManualClock(0));
        assertThat(r.outcome()).isEqualTo(Receipt.Outcome.IGNORED_UNEXPECTED);
        assertThat(r.detail()).contains("bad's model is 6.00 times the clipping radius");
        assertThat(local.params()).containsExactly(3f, 4f);
        assertThat(g.screening().orElseThrow().dropped()).isEqualTo(1);
    }

    @Test
    void aSuspectThatBehavesAgainRegainsItsWeight() {
        SelfCenteredClipping c = new SelfCenteredClipping(CONFIG);
        warm(c, CONFIG.warmup(), 1);
        for (int i = 0; i < CONFIG.suspectAt(); i++) {
            c.admit("flaky", 30, 1, 10, 10, 0);
        }
        assertThat(c.standing("flaky")).isEqualTo(SelfCenteredClipping.Standing.SUSPECT);
        for (int i = 0; i < CONFIG.peerWindow(); i++) {
            c.admit("flaky", 1, 1, 10, 10, 0);
        }
        assertThat(c.standing("flaky")).isEqualTo(SelfCenteredClipping.Standing.TRUSTED);
    }

    @Test
    void gossipAveragingMergesTheClippedModelAndRefusesAnExcludedPeer() {
        ManualClock clock = new ManualClock(0);
        GossipAveraging g = new GossipAveraging(GossipAveraging.Config.defaults()
                .withMode(GossipAveraging.Mode.PUSH)
                .withScreening(CONFIG));
        LocalModel local = new LocalModel("me", new float[] {3, 4}, 1, 1); // |x| = 5: the cold radius
        Receipt r = g.receive(ModelUpdate.full("bad", 1, 1, new float[] {3e30f, 4e30f}), local, clock);
        assertThat(r.outcome()).isEqualTo(Receipt.Outcome.MERGED);
        // Clipped to |d| = 5 along (3, 4), mixed at 1/2: moved by 2.5 along the direction of (3, 4).
        assertThat(local.params()[0]).isCloseTo(3 + 1.5f, within(1e-4f));
        assertThat(local.params()[1]).isCloseTo(4 + 2f, within(1e-4f));

        for (int i = 0; i < CONFIG.excludeAt(); i++) {
            g.receive(ModelUpdate.full("bad", 1, 1, new float[] {-3e38f, 3e38f}), local, clock);
        }
        for (float p : local.params()) {
            assertThat(p).isFinite();
        }
        Receipt refused = g.receive(ModelUpdate.full("bad", 1, 1, new float[] {0, 0}), local, clock);
        assertThat(refused.outcome()).isEqualTo(Receipt.Outcome.IGNORED_UNEXPECTED);
        assertThat(refused.detail()).contains("excluded");
        assertThat(g.screening()).isPresent();
    }

    @Test
    void fragmentedGossipClipsEachFragmentAroundTheLocalCoordinates() {
        ManualClock clock = new ManualClock(0);
        int d = 4;
        FragmentedGossip f = new FragmentedGossip(
                new FragmentedGossip.Config(2, 1, 7, UpdateWeighting.uniform()).withScreening(CONFIG), d);
        LocalModel local = new LocalModel("me", new float[] {0, 0, 0, 0}, 1, 1);
        ModelFragmentation cut = f.fragmentation().orElseThrow();
        int[] idx = cut.indices(0);
        float[] values = new float[idx.length];
        java.util.Arrays.fill(values, 1e30f);
        assertThat(f.receive(ModelUpdate.fragment("bad", 1, 1, d, idx, values), local, clock)
                        .outcome())
                .isEqualTo(Receipt.Outcome.BUFFERED);
        f.mergeArrived(local);
        // Cold radius 1 for the whole model, sqrt(2/4) for half its coordinates; averaged with the own 0 at 1/2.
        double moved = 0;
        for (int i : idx) {
            moved += local.params()[i] * (double) local.params()[i];
        }
        assertThat(Math.sqrt(moved)).isCloseTo(Math.sqrt(0.5) / 2, within(1e-5));
    }

    @Test
    void aModelThePeerSentBeforeIsDroppedButNotAnotherPeersCopyOrOtherCoordinates() {
        SelfCenteredClipping c = new SelfCenteredClipping(CONFIG);
        float[] model = {0.25f, -1f, 3f};
        assertThat(c.admit("free", null, model, 0.5, 3, 3, 0)).isEqualTo(1.0);
        assertThat(c.admit("free", null, model.clone(), 0.5, 3, 3, 0)).isZero();
        assertThat(c.lastDrop()).isEqualTo("free's model repeats one it sent before, value for value: dropped");
        assertThat(c.repeats()).isEqualTo(1);
        assertThat(c.dropped()).isEqualTo(1);
        // Another peer may send the same values once; the same values at other coordinates are another fragment.
        assertThat(c.admit("other", null, model, 0.5, 3, 3, 0)).isEqualTo(1.0);
        assertThat(c.admit("free", new int[] {1, 2, 3}, model, 0.5, 3, 4, 0)).isEqualTo(1.0);
        assertThat(c.admit("free", new int[] {1, 2, 3}, model, 0.5, 3, 4, 0)).isZero();
        assertThat(c.lastDrop()).contains("free's fragment repeats");
        // One value one ulp away: a model that moved.
        float[] moved = model.clone();
        moved[2] = Math.nextUp(moved[2]);
        assertThat(c.admit("free", null, moved, 0.5, 3, 3, 0)).isEqualTo(1.0);
        assertThat(c.repeats()).isEqualTo(2);
    }

    @Test
    void repeatsAloneNeverChangeAPeersStandingAndOldModelsAreForgotten() {
        SelfCenteredClipping c = new SelfCenteredClipping(CONFIG);
        float[] first = {1, 2};
        c.admit("stopped", null, first, 0.1, 3, 2, 0);
        for (int i = 0; i < 3 * CONFIG.peerWindow(); i++) {
            assertThat(c.admit("stopped", null, first, 0.1, 3, 2, 0)).isZero();
        }
        assertThat(c.standing("stopped")).isEqualTo(SelfCenteredClipping.Standing.TRUSTED);
        assertThat(c.pollEvent()).isNull();
        // REPEAT_MEMORY other models later, the first is no longer remembered.
        for (int i = 1; i <= SelfCenteredClipping.REPEAT_MEMORY; i++) {
            assertThat(c.admit("stopped", null, new float[] {1, 2 + i}, 0.1, 3, 2, 0))
                    .isEqualTo(1.0);
        }
        assertThat(c.admit("stopped", null, first, 0.1, 3, 2, 0)).isEqualTo(1.0);
    }

    @Test
    void aRepeatedFarModelStillCountsAgainstItsSenderUntilItIsExcluded() {
        SelfCenteredClipping c = new SelfCenteredClipping(SelfCenteredClipping.Config.defaults());
        warm(c, CONFIG.warmup(), 1); // tau = 3
        float[] far = {-30, 0};
        for (int i = 0; i < CONFIG.excludeAt(); i++) {
            assertThat(c.admit("scaled", null, far, 30, 1, 2, 0)).isZero();
        }
        assertThat(c.lastDrop()).contains("times the clipping radius");
        assertThat(c.repeats()).isZero();
        assertThat(c.standing("scaled")).isEqualTo(SelfCenteredClipping.Standing.EXCLUDED);
    }

    @Test
    void gossipAveragingMergesAFreeRidersModelOnceWhileItsHonestPeersKeepPulling() {
        ManualClock clock = new ManualClock(0);
        GossipAveraging g = new GossipAveraging(GossipAveraging.Config.defaults()
                .withMode(GossipAveraging.Mode.PUSH)
                .withScreening(SelfCenteredClipping.Config.defaults()));
        LocalModel local = new LocalModel("me", new float[] {4, 4}, 1, 1);
        float[] initial = {3, 3};
        assertThat(g.receive(ModelUpdate.full("free", 1, 1, initial.clone()), local, clock)
                        .outcome())
                .isEqualTo(Receipt.Outcome.MERGED);
        assertThat(local.params()).containsExactly(3.5f, 3.5f);
        for (int round = 1; round <= 5; round++) {
            local.params()[0] += 1; // local training moves the model on
            float[] before = local.params().clone();
            Receipt r = g.receive(ModelUpdate.full("free", 1, 1, initial.clone()), local, clock);
            assertThat(r.outcome()).isEqualTo(Receipt.Outcome.IGNORED_UNEXPECTED);
            assertThat(r.detail()).contains("repeats one it sent before");
            assertThat(local.params()).containsExactly(before);
            // An honest peer's model moves between sends, and is merged every time.
            float[] honest = {before[0] + 0.5f, before[1]};
            assertThat(g.receive(ModelUpdate.full("honest", 2, 1, honest), local, clock)
                            .outcome())
                    .isEqualTo(Receipt.Outcome.MERGED);
        }
        assertThat(g.screening().orElseThrow().repeats()).isEqualTo(5);
    }

    /**
     * Screening judges a rounded model as its sender sent it, not as the receiver reads it near its own values: the
     * same rounded model sent again is a repeat however the receiver's model moved in between.
     */
    @Test
    void aRoundedModelSentAgainIsARepeatWhereverTheReceiversModelMoved() {
        ManualClock clock = new ManualClock(0);
        float[] initial = new float[40];
        for (int i = 0; i < initial.length; i++) {
            initial[i] = (float) Math.cos(i);
        }
        GossipAveraging g = new GossipAveraging(GossipAveraging.Config.defaults()
                .withMode(GossipAveraging.Mode.PUSH)
                .withScreening(SelfCenteredClipping.Config.defaults()));
        LocalModel gossiping = new LocalModel("me", initial.clone(), 1, 1);
        FragmentedGossip f = new FragmentedGossip(
                new FragmentedGossip.Config(1, 1, 7, UpdateWeighting.uniform())
                        .withScreening(SelfCenteredClipping.Config.defaults()),
                initial.length);
        int[] all = f.fragmentation().orElseThrow().indices(0);
        float[] gathered = f.fragmentation().orElseThrow().gather(0, initial);
        LocalModel fragmenting = new LocalModel("me", initial.clone(), 1, 1);
        assertThat(g.receive(Int8.rounded("free", initial, 8), gossiping, clock).outcome())
                .isEqualTo(Receipt.Outcome.MERGED);
        assertThat(f.receive(Int8.rounded("free", gathered, all, initial.length, 8), fragmenting, clock)
                        .outcome())
                .isEqualTo(Receipt.Outcome.BUFFERED);
        f.mergeArrived(fragmenting);
        for (LocalModel local : new LocalModel[] {gossiping, fragmenting}) {
            for (int i = 0; i < initial.length; i++) {
                local.params()[i] += 0.01f * (i % 3 - 1); // local training moves the model on
            }
        }
        Receipt again = g.receive(Int8.rounded("free", initial, 8), gossiping, clock);
        assertThat(again.outcome()).isEqualTo(Receipt.Outcome.IGNORED_UNEXPECTED);
        assertThat(again.detail()).contains("repeats one it sent before");
        Receipt fragmentAgain = f.receive(Int8.rounded("free", gathered, all, initial.length, 8), fragmenting, clock);
        assertThat(fragmentAgain.outcome()).isEqualTo(Receipt.Outcome.IGNORED_UNEXPECTED);
        assertThat(fragmentAgain.detail()).contains("repeats one it sent before");
    }

    @Test
    void fragmentedGossipTakesAFragmentOncePerSenderAndCoordinates() {
        ManualClock clock = new ManualClock(0);
        int d = 4;
        FragmentedGossip f = new FragmentedGossip(
                new FragmentedGossip.Config(2, 1, 7, UpdateWeighting.uniform())
                        .withScreening(SelfCenteredClipping.Config.defaults()),
                d);
        LocalModel local = new LocalModel("me", new float[] {1, 1, 1, 1}, 1, 1);
        ModelFragmentation cut = f.fragmentation().orElseThrow();
        int[] idx = cut.indices(0);
        float[] initial = new float[idx.length];
        assertThat(f.receive(ModelUpdate.fragment("stale", 1, 1, d, idx, initial), local, clock)
                        .outcome())
                .isEqualTo(Receipt.Outcome.BUFFERED);
        f.mergeArrived(local);
        for (int i : idx) {
            assertThat(local.params()[i]).isEqualTo(0.5f);
        }
        Receipt again = f.receive(ModelUpdate.fragment("stale", 1, 1, d, idx, initial.clone()), local, clock);
        assertThat(again.outcome()).isEqualTo(Receipt.Outcome.IGNORED_UNEXPECTED);
        assertThat(again.detail()).isEqualTo("stale's fragment repeats one it sent before, value for value: dropped");
        f.mergeArrived(local);
        for (int i : idx) {
            assertThat(local.params()[i]).isEqualTo(0.5f);
        }
    }

    @Test
    void aModelPointingAwayIsDroppedHoweverNearAndCountsAgainstItsSenderOnceTheRadiusIsLearnt() {
        SelfCenteredClipping c = new SelfCenteredClipping(SelfCenteredClipping.Config.defaults());
        float[] local = {3, 4};
        // -0.5 times the local model: 7.5 away, inside twice the cold radius (|x| = 5), but on the other side.
        float[] ipm = {-1.5f, -2f};
        double d = SelfCenteredClipping.distance(local, ipm);
        assertThat(c.admit("ipm", null, ipm, d, 5, 2, 0)).isZero();
        assertThat(c.lastDrop()).isEqualTo("ipm's model points away from this node's (cosine -1.00): dropped");
        assertThat(c.opposed()).isEqualTo(1);
        assertThat(c.dropped()).isEqualTo(1);
        // Before the radius is learnt, pointing away does not count against the sender.
        for (int i = 0; i < 10; i++) {
            float[] again = {-0.1f * (i + 1), -0.1f};
            c.admit("ipm", null, again, SelfCenteredClipping.distance(local, again), 5, 2, 0);
        }
        assertThat(c.standing("ipm")).isEqualTo(SelfCenteredClipping.Standing.TRUSTED);
        warm(c, CONFIG.warmup(), 1);
        for (int i = 0; i < CONFIG.excludeAt(); i++) {
            // Within twice the radius (3): only the direction is against them.
            float[] again = {-0.05f * (i + 1), -0.05f};
            c.admit("ipm", null, again, SelfCenteredClipping.distance(local, again), 5, 2, 0);
        }
        assertThat(c.standing("ipm")).isEqualTo(SelfCenteredClipping.Standing.EXCLUDED);
        // A model on the same side, as near, is merged.
        float[] sameSide = {2, 0.5f};
        assertThat(c.admit("other", null, sameSide, SelfCenteredClipping.distance(local, sameSide), 5, 2, 0))
                .isEqualTo(1.0);
        assertThat(c.opposed()).isEqualTo(1 + 10 + CONFIG.excludeAt());
    }

    @Test
    void gossipAveragingKeepsItsModelAgainstAnInnerProductManipulationInsideTheColdRadius() {
        GossipAveraging g = new GossipAveraging(GossipAveraging.Config.defaults()
                .withMode(GossipAveraging.Mode.PUSH)
                .withScreening(SelfCenteredClipping.Config.defaults()));
        LocalModel local = new LocalModel("me", new float[] {3, 4}, 1, 1);
        Receipt r = g.receive(ModelUpdate.full("ipm", 1, 1, new float[] {-1.5f, -2f}), local, new ManualClock(0));
        assertThat(r.outcome()).isEqualTo(Receipt.Outcome.IGNORED_UNEXPECTED);
        assertThat(r.detail()).contains("points away");
        assertThat(local.params()).containsExactly(3f, 4f);
    }
}
