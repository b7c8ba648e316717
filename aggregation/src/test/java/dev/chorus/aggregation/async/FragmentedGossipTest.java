package dev.chorus.aggregation.async;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import dev.chorus.aggregation.AllocationMeter;
import dev.chorus.aggregation.InvalidUpdateException;
import dev.chorus.aggregation.LocalModel;
import dev.chorus.aggregation.ManualClock;
import dev.chorus.aggregation.ModelFragmentation;
import dev.chorus.aggregation.ModelUpdate;
import dev.chorus.aggregation.Outbound;
import dev.chorus.aggregation.PullRequest;
import dev.chorus.aggregation.Receipt;
import dev.chorus.aggregation.weighting.StalenessWeighting;
import dev.chorus.aggregation.weighting.UpdateWeighting;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class FragmentedGossipTest {

    private final ManualClock clock = new ManualClock(0);
    private final SplittableRandom random = new SplittableRandom(11);

    private static List<Outbound> drain(FragmentedGossip g) {
        List<Outbound> out = new ArrayList<>();
        Outbound o;
        while ((o = g.pollOutbound()) != null) {
            out.add(o);
        }
        return out;
    }

    /** The default count: 10, fewer so that no fragment holds under 4096 parameters, one below 8192. */
    @ParameterizedTest
    @CsvSource({"1, 1", "10, 1", "7850, 1", "8191, 1", "8192, 2", "25450, 6", "40959, 9", "40960, 10", "1000000, 10"})
    void theDefaultFragmentCountKeepsEveryFragmentAtLeast4096Parameters(int dimension, int expected) {
        int f = FragmentedGossip.defaultFragments(dimension);
        assertThat(f).isEqualTo(expected);
        ModelFragmentation cut = new ModelFragmentation(dimension, f, 3);
        for (int k = 0; k < f; k++) {
            if (f > 1) {
                assertThat(cut.indices(k).length).as("fragment %d of %d", k, f).isGreaterThanOrEqualTo(4096);
            }
        }
        assertThat(FragmentedGossip.Config.defaults(3, dimension).fragments()).isEqualTo(expected);
    }

    @Test
    void theDefaultFragmentCountNeedsAModel() {
        assertThatThrownBy(() -> FragmentedGossip.defaultFragments(0))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("dimension must be positive, got 0");
    }

    @Test
    void eachFragmentGoesToFanoutDistinctPeers() {
        int d = 100;
        FragmentedGossip g = new FragmentedGossip(new FragmentedGossip.Config(5, 3, 1, UpdateWeighting.uniform()), d);
        LocalModel local = new LocalModel("me", new float[d], 4, 10);
        for (int i = 0; i < d; i++) {
            local.params()[i] = i;
        }
        List<String> peers = List.of("p0", "p1", "p2", "p3", "p4", "p5");
        g.configure(local, peers, random, clock);
        List<Outbound> sends = drain(g);
        assertThat(sends).hasSize(15);
        Map<Integer, Set<String>> recipientsByFirstIndex = new HashMap<>();
        for (Outbound o : sends) {
            ModelUpdate u = (ModelUpdate) o.message();
            assertThat(u.sender()).isEqualTo("me");
            assertThat(u.version()).isEqualTo(4);
            assertThat(u.sampleCount()).isEqualTo(10);
            assertThat(u.dimension()).isEqualTo(d);
            for (int k = 0; k < u.indices().length; k++) {
                assertThat(u.values()[k]).isEqualTo((float) u.indices()[k]);
            }
            assertThat(recipientsByFirstIndex
                            .computeIfAbsent(u.indices()[0], x -> new HashSet<>())
                            .add(o.recipient()))
                    .as("a fragment sent twice to %s", o.recipient())
                    .isTrue();
        }
        assertThat(recipientsByFirstIndex).hasSize(5).allSatisfy((k, v) -> assertThat(v)
                .hasSize(3));
    }

    @Test
    void fanoutIsCappedByThePeersAvailable() {
        FragmentedGossip g = new FragmentedGossip(new FragmentedGossip.Config(4, 3, 1, UpdateWeighting.uniform()), 8);
        LocalModel local = new LocalModel("me", new float[8], 0, 1);
        g.configure(local, List.of("only"), random, clock);
        assertThat(drain(g)).hasSize(4).allSatisfy(o -> assertThat(o.recipient())
                .isEqualTo("only"));
        g.configure(local, List.of(), random, clock);
        assertThat(g.pendingOutbound()).isZero();
    }

    @Test
    void fragmentsNotSentWhenTheNextRoundBeginsAreDropped() {
        FragmentedGossip g = new FragmentedGossip(new FragmentedGossip.Config(4, 2, 1, UpdateWeighting.uniform()), 8);
        LocalModel local = new LocalModel("me", new float[8], 0, 1);
        List<String> peers = List.of("a", "b", "c");
        g.configure(local, peers, random, clock);
        assertThat(g.pendingOutbound()).isEqualTo(8);
        g.pollOutbound();
        g.pollOutbound();
        g.pollOutbound();
        local.params()[0] = 42;
        local.advance();
        g.configure(local, peers, random, clock);
        assertThat(g.droppedLastRound()).isEqualTo(5);
        assertThat(g.droppedSends()).isEqualTo(5);
        List<Outbound> fresh = drain(g);
        assertThat(fresh).hasSize(8).allSatisfy(o -> assertThat(((ModelUpdate) o.message()).version())
                .isEqualTo(1));
        assertThat(g.rounds()).isEqualTo(2);
    }

    @Test
    void eachCoordinateIsAveragedOverItsOwnValueAndTheContributionsReceived() {
        FragmentedGossip g = new FragmentedGossip(new FragmentedGossip.Config(2, 1, 1, UpdateWeighting.uniform()), 4);
        LocalModel local = new LocalModel("me", new float[] {1, 1, 1, 1}, 0, 1);
        g.receive(ModelUpdate.fragment("a", 0, 1, 4, new int[] {0, 1}, new float[] {3, 5}), local, clock);
        g.receive(ModelUpdate.fragment("b", 0, 1, 4, new int[] {1, 2}, new float[] {9, 7}), local, clock);
        assertThat(g.contributions(0)).isEqualTo(1);
        assertThat(g.contributions(1)).isEqualTo(2);
        assertThat(g.contributions(2)).isEqualTo(1);
        assertThat(g.contributions(3)).isZero();
        assertThat(local.params()).as("nothing merged before the round begins").containsExactly(1, 1, 1, 1);
        g.configure(local, List.of(), random, clock);
        // (1+3)/2, (1+5+9)/3, (1+7)/2, untouched.
        assertThat(local.params()).containsExactly(2, 5, 4, 1);
        assertThat(g.contributions(1)).isZero();
        g.configure(local, List.of(), random, clock);
        assertThat(local.params()).as("contributions are used once").containsExactly(2, 5, 4, 1);
    }

    /**
     * Merged once everything that arrived between two steps is in, not only at the next round: each coordinate is
     * averaged over its own value and what arrived for it since the last merge, and nothing is merged twice.
     */
    @Test
    void whatArrivedBetweenTwoStepsIsMergedOnceItIsAllIn() {
        FragmentedGossip g = new FragmentedGossip(new FragmentedGossip.Config(1, 1, 1, UpdateWeighting.uniform()), 3);
        int[] all = g.fragmentation().orElseThrow().indices(0);
        LocalModel local = new LocalModel("me", new float[] {1, 1, 1}, 4, 1);
        g.mergeArrived(local);
        assertThat(local.params()).as("nothing arrived").containsExactly(1, 1, 1);
        assertThat(local.version()).isEqualTo(4);

        g.receive(ModelUpdate.fragment("a", 7, 1, 3, all, new float[] {4, 4, 4}), local, clock);
        g.receive(ModelUpdate.fragment("b", 2, 1, 3, all, new float[] {7, 7, 7}), local, clock);
        g.mergeArrived(local);
        // (1 + 4 + 7) / 3, and the newest version merged.
        assertThat(local.params()).containsExactly(4, 4, 4);
        assertThat(local.version()).isEqualTo(7);
        assertThat(g.contributions(0)).isZero();

        // Training moves the model; the next round merges nothing again.
        local.params()[0] = 10;
        g.configure(local, List.of(), random, clock);
        assertThat(local.params()).as("contributions are used once").containsExactly(10, 4, 4);

        g.receive(ModelUpdate.fragment("a", 8, 1, 3, all, new float[] {0, 0, 0}), local, clock);
        g.mergeArrived(local);
        assertThat(local.params()).containsExactly(5, 2, 2);
    }

    /** A rounded fragment counts, at each coordinate, the value nearest the receiver's among those rounding alike. */
    @Test
    void aRoundedFragmentOfTheReceiversOwnValuesLeavesThemAsTheyAre() {
        FragmentedGossip g = new FragmentedGossip(new FragmentedGossip.Config(1, 1, 1, UpdateWeighting.uniform()), 40);
        int[] all = g.fragmentation().orElseThrow().indices(0);
        float[] own = new float[40];
        for (int i = 0; i < own.length; i++) {
            own[i] = (float) Math.sin(i);
        }
        LocalModel local = new LocalModel("me", own.clone(), 0, 1);
        float[] sent = new float[all.length];
        for (int k = 0; k < all.length; k++) {
            sent[k] = own[all[k]];
        }
        ModelUpdate fragment = Int8.rounded("a", sent, all, 40, 8);
        assertThat(fragment.values()).isNotEqualTo(sent);
        g.receive(fragment, local, clock);
        g.mergeArrived(local);
        assertThat(local.params()).containsExactly(own);
    }

    @Test
    void stalenessAndSampleWeightsApplyPerContribution() {
        UpdateWeighting w = new UpdateWeighting(StalenessWeighting.polynomial(1), true);
        FragmentedGossip g = new FragmentedGossip(new FragmentedGossip.Config(1, 1, 1, w), 2);
        LocalModel local = new LocalModel("me", new float[] {0, 0}, 3, 2);
        // From version 3 (lag 0), 2 samples: weight 2. From version 1 (lag 2), 6 samples: weight 6/3 = 2.
        g.receive(ModelUpdate.fragment("a", 3, 2, 2, new int[] {0}, new float[] {6}), local, clock);
        g.receive(ModelUpdate.fragment("b", 1, 6, 2, new int[] {0, 1}, new float[] {12, 4}), local, clock);
        g.configure(local, List.of(), random, clock);
        // Own weight 2: (2*0 + 2*6 + 2*12) / 6 = 6 and (2*0 + 2*4) / 4 = 2.
        assertThat(local.params()[0]).isCloseTo(6f, within(1e-5f));
        assertThat(local.params()[1]).isCloseTo(2f, within(1e-5f));
        assertThat(local.version()).isEqualTo(3);
    }

    @Test
    void versionBecomesTheNewestMerged() {
        FragmentedGossip g = new FragmentedGossip(new FragmentedGossip.Config(1, 1, 1, UpdateWeighting.uniform()), 2);
        LocalModel local = new LocalModel("me", new float[2], 3, 1);
        g.receive(ModelUpdate.full("a", 9, 1, new float[] {2, 2}), local, clock);
        g.configure(local, List.of(), random, clock);
        assertThat(local.version()).isEqualTo(9);
        assertThat(local.params()).containsExactly(1, 1);
    }

    @Test
    void rejectsDuplicateIndicesWrongDimensionsAndNonFiniteValues() {
        FragmentedGossip g = new FragmentedGossip(new FragmentedGossip.Config(2, 1, 1, UpdateWeighting.uniform()), 4);
        LocalModel local = new LocalModel("me", new float[4], 0, 1);
        assertThatThrownBy(() -> g.receive(
                        ModelUpdate.fragment("a", 0, 1, 4, new int[] {2, 0, 2}, new float[] {1, 1, 1}), local, clock))
                .isInstanceOf(InvalidUpdateException.class)
                .hasMessageContaining("update from a")
                .hasMessageContaining("coordinate 2 appears twice");
        assertThatThrownBy(() ->
                        g.receive(ModelUpdate.fragment("b", 0, 1, 5, new int[] {0}, new float[] {1}), local, clock))
                .isInstanceOf(InvalidUpdateException.class)
                .hasMessageContaining("5 parameters");
        assertThatThrownBy(() -> ModelUpdate.fragment("c", 0, 1, 4, new int[] {0}, new float[] {Float.NaN}))
                .isInstanceOf(InvalidUpdateException.class);
        for (int i = 0; i < 4; i++) {
            assertThat(g.contributions(i))
                    .as("nothing accumulated from rejected updates")
                    .isZero();
        }
        // The same indices in a later message are fine.
        g.receive(ModelUpdate.fragment("a", 0, 1, 4, new int[] {2}, new float[] {1}), local, clock);
        g.receive(ModelUpdate.fragment("b", 0, 1, 4, new int[] {2}, new float[] {1}), local, clock);
        assertThat(g.contributions(2)).isEqualTo(2);
    }

    @Test
    void ignoresDeltasAndPullRequests() {
        FragmentedGossip g = new FragmentedGossip(new FragmentedGossip.Config(1, 1, 1, UpdateWeighting.uniform()), 2);
        LocalModel local = new LocalModel("me", new float[2], 0, 1);
        assertThat(g.receive(ModelUpdate.delta("a", 0, 1, new float[2]), local, clock)
                        .outcome())
                .isEqualTo(Receipt.Outcome.IGNORED_UNEXPECTED);
        assertThat(g.receive(new PullRequest("a", 0, null), local, clock).outcome())
                .isEqualTo(Receipt.Outcome.IGNORED_UNEXPECTED);
    }

    @Test
    void receivingAFragmentOfAMillionParameterModelAllocatesNothing() {
        int d = 1_000_000;
        FragmentedGossip g = new FragmentedGossip(new FragmentedGossip.Config(4, 1, 5, UpdateWeighting.uniform()), d);
        LocalModel local = new LocalModel("me", new float[d], 0, 1);
        int[] idx = g.fragmentation().orElseThrow().indices(1);
        ModelUpdate fragment = ModelUpdate.fragment("a", 0, 1, d, idx, new float[idx.length]);
        ModelUpdate whole = ModelUpdate.full("b", 0, 1, new float[d]);
        g.receive(fragment, local, clock); // warm up
        g.receive(whole, local, clock);
        long bytes = AllocationMeter.bytesAllocatedBy(() -> {
            g.receive(fragment, local, clock);
            g.receive(whole, local, clock);
        });
        assertThat(bytes).as("bytes allocated by two merges").isLessThan(1024);
        assertThat(g.contributions(idx[0])).isEqualTo(4);
    }
}
