package dev.chorus.aggregation.async;

import static org.assertj.core.api.Assertions.assertThat;

import dev.chorus.aggregation.LocalModel;
import dev.chorus.aggregation.ManualClock;
import dev.chorus.aggregation.ModelUpdate;
import dev.chorus.aggregation.Outbound;
import dev.chorus.aggregation.Seeds;
import dev.chorus.aggregation.weighting.UpdateWeighting;
import dev.chorus.testsupport.TestLog;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

class FragmentedGossipPropertyTest {

    /**
     * Fragment bookkeeping: a node receives a random selection of fragments (some lost, some peers silent) from
     * random senders; after the next round begins, every coordinate equals the average of its own value and
     * exactly the values received for it, and coordinates nobody sent are unchanged.
     */
    @ParameterizedTest
    @MethodSource("dev.chorus.aggregation.Seeds#seeds")
    void everyCoordinateIsAveragedOverExactlyTheContributionsReceived(long seed) {
        Seeds.print("everyCoordinateIsAveragedOverExactlyTheContributionsReceived", seed);
        SplittableRandom random = new SplittableRandom(seed);
        int d = 1 + random.nextInt(300);
        int fragments = 1 + random.nextInt(Math.min(d, 12));
        long shared = random.nextLong();
        ManualClock clock = new ManualClock(0);
        FragmentedGossip receiver =
                new FragmentedGossip(new FragmentedGossip.Config(fragments, 2, shared, UpdateWeighting.uniform()), d);
        float[] own = new float[d];
        for (int i = 0; i < d; i++) {
            own[i] = (float) random.nextDouble(-1, 1);
        }
        LocalModel local = new LocalModel("me", own.clone(), 0, 1);

        double[] sum = new double[d];
        int[] count = new int[d];
        int senders = 1 + random.nextInt(6);
        for (int s = 0; s < senders; s++) {
            // Each sender cuts its own model with the shared seed, so its fragments match the receiver's.
            FragmentedGossip sender = new FragmentedGossip(
                    new FragmentedGossip.Config(fragments, 1, shared, UpdateWeighting.uniform()), d);
            float[] x = new float[d];
            for (int i = 0; i < d; i++) {
                x[i] = (float) random.nextDouble(-100, 100);
            }
            sender.configure(new LocalModel("s" + s, x, 0, 1), List.of("me"), random, clock);
            List<Outbound> sent = new ArrayList<>();
            for (Outbound o; (o = sender.pollOutbound()) != null; ) {
                sent.add(o);
            }
            assertThat(sent).hasSize(fragments);
            for (Outbound o : sent) {
                if (random.nextDouble() < 0.3) {
                    continue; // lost, or not sent before the sender's next round
                }
                ModelUpdate u = (ModelUpdate) o.message();
                receiver.receive(u, local, clock);
                for (int k = 0; k < u.indices().length; k++) {
                    sum[u.indices()[k]] += u.values()[k];
                    count[u.indices()[k]]++;
                }
            }
        }
        for (int i = 0; i < d; i++) {
            assertThat(receiver.contributions(i))
                    .as("contributions to %d, seed %d", i, seed)
                    .isEqualTo(count[i]);
        }
        receiver.configure(local, List.of(), random, clock);
        for (int i = 0; i < d; i++) {
            double expected = (own[i] + sum[i]) / (1 + count[i]);
            assertThat((double) local.params()[i])
                    .as("coordinate %d with %d contributions, seed %d", i, count[i], seed)
                    .isCloseTo(expected, org.assertj.core.api.Assertions.within(1e-4 * (1 + Math.abs(expected))));
            if (count[i] == 0) {
                assertThat(local.params()[i]).isEqualTo(own[i]);
            }
        }
    }

    /** Nodes that exchange only fragments, none lost, reach consensus. */
    @ParameterizedTest
    @MethodSource("dev.chorus.aggregation.Seeds#seeds")
    void nodesExchangingFragmentsReachConsensus(long seed) {
        Seeds.print("nodesExchangingFragmentsReachConsensus", seed);
        SplittableRandom random = new SplittableRandom(seed);
        ManualClock clock = new ManualClock(0);
        int n = 6 + random.nextInt(6);
        int d = 40;
        FragmentedGossip.Config config =
                new FragmentedGossip.Config(8, 2, random.nextLong(), UpdateWeighting.uniform());
        LocalModel[] models = new LocalModel[n];
        FragmentedGossip[] strategies = new FragmentedGossip[n];
        double initialSpread = 0;
        for (int i = 0; i < n; i++) {
            float[] x = new float[d];
            for (int j = 0; j < d; j++) {
                x[j] = (float) random.nextDouble(-10, 10);
            }
            models[i] = new LocalModel(Graphs.id(i), x, 0, 1);
            strategies[i] = new FragmentedGossip(config, d);
        }
        initialSpread = spread(models, d);
        for (int round = 0; round < 60; round++) {
            for (int i = 0; i < n; i++) {
                List<String> peers = new ArrayList<>();
                for (int j = 0; j < n; j++) {
                    if (j != i) {
                        peers.add(Graphs.id(j));
                    }
                }
                strategies[i].configure(models[i], peers, random, clock);
                for (Outbound o; (o = strategies[i].pollOutbound()) != null; ) {
                    int j = Graphs.index(o.recipient());
                    strategies[j].receive(o.message(), models[j], clock);
                }
            }
        }
        double spread = spread(models, d);
        TestLog.figures("fragment consensus: spread %.2e (initially %.2e)%n", spread, initialSpread);
        assertThat(spread).as("seed %d", seed).isLessThan(1e-3);
    }

    private static double spread(LocalModel[] models, int d) {
        double max = 0;
        for (int j = 0; j < d; j++) {
            double lo = Double.MAX_VALUE;
            double hi = -Double.MAX_VALUE;
            for (LocalModel m : models) {
                lo = Math.min(lo, m.params()[j]);
                hi = Math.max(hi, m.params()[j]);
            }
            max = Math.max(max, hi - lo);
        }
        return max;
    }
}
