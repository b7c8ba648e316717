package dev.chorus.aggregation.async;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import dev.chorus.aggregation.DeliveryFailure;
import dev.chorus.aggregation.LocalModel;
import dev.chorus.aggregation.ManualClock;
import dev.chorus.aggregation.ModelUpdate;
import dev.chorus.aggregation.Outbound;
import dev.chorus.aggregation.weighting.UpdateWeighting;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** The rate balance of {@link FragmentedGossip}: counts, decay, clamping, the merge, and the consensus it gives. */
class FragmentedGossipBalanceTest {

    private static final int D = 8;
    private static final List<String> PEERS = List.of("a", "b", "c");

    private final ManualClock clock = new ManualClock(0);
    private final SplittableRandom random = new SplittableRandom(3);

    /** Two fragments of 4 coordinates, one peer each: every round queues two sends. */
    private static FragmentedGossip balanced() {
        return new FragmentedGossip(new FragmentedGossip.Config(2, 1, 7, UpdateWeighting.uniform(), true), D);
    }

    private static void receiveFragments(FragmentedGossip g, LocalModel local, int count, float value) {
        int[] idx = g.fragmentation().orElseThrow().indices(0);
        float[] v = new float[idx.length];
        Arrays.fill(v, value);
        for (int k = 0; k < count; k++) {
            g.receive(ModelUpdate.fragment("s" + k, 0, 1, D, idx, v), local, null);
        }
    }

    private static List<Outbound> poll(FragmentedGossip g, int n) {
        List<Outbound> out = new ArrayList<>();
        for (int k = 0; k < n; k++) {
            out.add(g.pollOutbound());
        }
        return out;
    }

    @Test
    void aNodeThatReceivesMoreThanItDeliversTakesAProportionallySmallerShareOfWhatItReceived() {
        FragmentedGossip g = balanced();
        LocalModel local = new LocalModel("me", new float[D], 0, 1);
        g.configure(local, PEERS, random, clock);
        poll(g, 2); // 8 coordinates delivered
        receiveFragments(g, local, 8, 10); // 32 received, all on fragment 0
        g.configure(local, PEERS, random, clock);
        assertThat(g.balance()).isEqualTo(0.25);
        // Without the balance: (1 * 0 + 8 * 10) / 9 = 8.89; with it the received share 8/9 becomes 2/9.
        int i = g.fragmentation().orElseThrow().indices(0)[0];
        assertThat(local.params()[i]).isCloseTo(10f * 0.25f * 8 / 9, within(1e-5f));
        int untouched = g.fragmentation().orElseThrow().indices(1)[0];
        assertThat(local.params()[untouched]).isZero();
    }

    @Test
    void aNodeThatDeliversMoreThanItReceivesTakesALargerShareCappedAtAllOfIt() {
        FragmentedGossip g = balanced();
        LocalModel local = new LocalModel("me", new float[D], 0, 1);
        for (int r = 0; r < 3; r++) {
            g.configure(local, PEERS, random, clock);
            poll(g, 2);
        }
        receiveFragments(g, local, 1, 10); // 24 delivered, 4 received: 6x
        g.configure(local, PEERS, random, clock);
        assertThat(g.balance()).isEqualTo(6);
        // The received share 1/2 times 6 is capped at 1: the node takes the contribution's value.
        assertThat(local.params()[g.fragmentation().orElseThrow().indices(0)[0]])
                .isEqualTo(10);
    }

    @Test
    void failedSendsAreNotCountedAsDelivered() {
        FragmentedGossip g = balanced();
        LocalModel local = new LocalModel("me", new float[D], 0, 1);
        g.configure(local, PEERS, random, clock);
        List<Outbound> sent = poll(g, 2);
        g.onFailure(
                new DeliveryFailure(
                        sent.get(0).recipient(),
                        DeliveryFailure.Kind.REFUSED,
                        "busy",
                        sent.get(0).message()),
                local,
                clock);
        receiveFragments(g, local, 4, 1); // 16 received, 4 delivered
        g.configure(local, PEERS, random, clock);
        assertThat(g.balance()).isEqualTo(0.25);
    }

    @Test
    void olderCountsDecayWithTheWindow() {
        FragmentedGossip g = balanced();
        LocalModel local = new LocalModel("me", new float[D], 0, 1);
        g.configure(local, PEERS, random, clock);
        poll(g, 2); // 8 delivered
        receiveFragments(g, local, 8, 0); // 32 received
        g.configure(local, PEERS, random, clock);
        assertThat(g.balance()).isEqualTo(0.25);
        clock.advance(Duration.ofMillis(Math.round(FragmentedGossip.BALANCE_WINDOW_SECONDS * 1000)));
        for (int r = 0; r < 4; r++) {
            poll(g, 2); // 32 delivered in all, in this window's first round
            if (r < 3) {
                g.configure(local, PEERS, random, clock);
            }
        }
        // The first round after the pause decays the earlier counts by 1/e; since then 32 were delivered, 8 received.
        receiveFragments(g, local, 2, 0); // 8 received
        g.configure(local, PEERS, random, clock);
        double keep = Math.exp(-1);
        assertThat(g.balance()).isCloseTo((8 * keep + 32) / (32 * keep + 8), within(1e-9));
    }

    @ParameterizedTest
    @ValueSource(ints = {1, 1000})
    void theBalanceIsClampedAndStaysOneUntilBothCountsHoldAFragment(int received) {
        FragmentedGossip g = balanced();
        LocalModel local = new LocalModel("me", new float[D], 0, 1);
        g.configure(local, PEERS, random, clock);
        poll(g, 1); // one fragment delivered
        int[] idx = {g.fragmentation().orElseThrow().indices(0)[0]};
        for (int k = 0; k < received; k++) {
            g.receive(ModelUpdate.fragment("s", 0, 1, D, idx, new float[1]), local, null);
        }
        g.configure(local, PEERS, random, clock);
        // 1 coordinate received is under a fragment's 4: no balance yet; 1000 would be 4/1000, clamped.
        assertThat(g.balance()).isEqualTo(received == 1 ? 1 : 1 / FragmentedGossip.MAX_BALANCE);
    }

    @Test
    void withoutTheBalanceTheMergeIsThePublishedAverage() {
        FragmentedGossip g = new FragmentedGossip(new FragmentedGossip.Config(2, 1, 7, UpdateWeighting.uniform()), D);
        LocalModel local = new LocalModel("me", new float[D], 0, 1);
        g.configure(local, PEERS, random, clock);
        poll(g, 2);
        receiveFragments(g, local, 8, 10);
        g.configure(local, PEERS, random, clock);
        assertThat(g.balance()).isEqualTo(1);
        assertThat(local.params()[g.fragmentation().orElseThrow().indices(0)[0]])
                .isCloseTo(80f / 9, within(1e-5f));
    }

    /**
     * Eight nodes on a controlled clock, node 0 behind a link that gets its sends out in one round of four while
     * every other node gets 50 of its 200 fragment sends out in every round, all to random peers. After 200 rounds
     * (the counts settled) node 0's values are set to 80 and the others' to 0, so the mean is 10. Each of the 200
     * fragments reaches a consensus of its own; their mean is the expected one. Without the balance it must land
     * far below 10, since node 0 gets out only a quarter of what it takes in; with it, within 3 of 10 but not
     * exactly there, since the balance is first-order and node 0's receivers are all fast nodes, whose ratio is
     * above 1.
     */
    @ParameterizedTest
    @ValueSource(longs = {1, 2, 3})
    void theBalanceKeepsASlowSendersShareOfTheConsensus(long seed) {
        double unbalanced = consensus(false, seed);
        double balanced = consensus(true, seed);
        assertThat(unbalanced).as("consensus without the balance").isLessThan(5);
        assertThat(balanced).as("consensus with the balance").isCloseTo(10, within(3.0));
        assertThat(Math.abs(balanced - 10))
                .as("the balance's error against the unbalanced one's")
                .isLessThan(Math.abs(unbalanced - 10) / 2);
    }

    private static double consensus(boolean balance, long seed) {
        int n = 8;
        int fragments = 200;
        int d = fragments * 2;
        ManualClock clock = new ManualClock(0);
        SplittableRandom random = new SplittableRandom(seed);
        List<String> ids = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            ids.add("n" + i);
        }
        FragmentedGossip[] nodes = new FragmentedGossip[n];
        LocalModel[] models = new LocalModel[n];
        for (int i = 0; i < n; i++) {
            nodes[i] = new FragmentedGossip(
                    new FragmentedGossip.Config(fragments, 1, 9, UpdateWeighting.uniform(), balance), d);
            models[i] = new LocalModel(ids.get(i), new float[d], 0, 1);
        }
        for (int round = 0; round < 1200; round++) {
            if (round == 200) {
                Arrays.fill(models[0].params(), 80);
            }
            clock.advanceMillis(10);
            for (int i = 0; i < n; i++) {
                List<String> peers = new ArrayList<>(ids);
                peers.remove(i);
                nodes[i].configure(models[i], peers, random, clock);
                // The slow link: node 0's sends of three rounds in four are still queued when the next round drops
                // them.
                int sends = i == 0 && round % 4 != 0 ? 0 : 50;
                for (int k = 0; k < sends; k++) {
                    Outbound o = nodes[i].pollOutbound();
                    int to = ids.indexOf(o.recipient());
                    nodes[to].receive(o.message(), models[to], clock);
                }
            }
        }
        double sum = 0;
        for (LocalModel m : models) {
            for (float v : m.params()) {
                sum += v;
            }
        }
        return sum / (n * d);
    }
}
