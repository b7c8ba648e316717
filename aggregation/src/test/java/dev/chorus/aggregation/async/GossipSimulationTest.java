package dev.chorus.aggregation.async;

import static org.assertj.core.api.Assertions.assertThat;

import dev.chorus.aggregation.LocalModel;
import dev.chorus.aggregation.ManualClock;
import dev.chorus.aggregation.Outbound;
import dev.chorus.aggregation.Receipt;
import dev.chorus.aggregation.async.GossipAveraging.Mode;
import dev.chorus.aggregation.weighting.UpdateWeighting;
import dev.chorus.testsupport.TestLog;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.PriorityQueue;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * N simulated nodes on a fixed graph, each minimising its own quadratic {@code f_i(x) = |x - c_i|^2 / 2} by
 * gradient steps and averaging asynchronously by push-pull gossip. Time is simulated: events (local steps,
 * message deliveries with latency) run in time order on a controlled clock. The minimiser of {@code sum_i f_i} is
 * the mean of the {@code c_i}.
 */
class GossipSimulationTest {

    private static final int DIMENSION = 4;
    private static final long SEED = 20250417L;

    /** An event at a simulated time; ties are broken by insertion order so the run is deterministic. */
    private record Event(long time, long sequence, int node, Outbound delivery) implements Comparable<Event> {
        @Override
        public int compareTo(Event o) {
            return time != o.time ? Long.compare(time, o.time) : Long.compare(sequence, o.sequence);
        }
    }

    private static final class Simulation {
        final ManualClock clock = new ManualClock(0);
        final SplittableRandom random;
        final List<List<String>> graph;
        final LocalModel[] models;
        final GossipAveraging[] strategies;
        final double[][] optima;
        final long[] stepMillis;
        final long[] steps;
        final boolean[] dead;
        final PriorityQueue<Event> events = new PriorityQueue<>();
        long sequence;
        long latencyMillis = 3;
        int stepsPerExchange = 2;

        Simulation(List<List<String>> graph, long[] stepMillis, long seed) {
            this.graph = graph;
            this.stepMillis = stepMillis;
            this.random = new SplittableRandom(seed);
            int n = graph.size();
            models = new LocalModel[n];
            strategies = new GossipAveraging[n];
            optima = new double[n][DIMENSION];
            steps = new long[n];
            dead = new boolean[n];
            GossipAveraging.Config config =
                    new GossipAveraging.Config(Mode.PUSH_PULL, UpdateWeighting.uniform(), Duration.ofMillis(50));
            for (int i = 0; i < n; i++) {
                float[] x = new float[DIMENSION];
                for (int j = 0; j < DIMENSION; j++) {
                    optima[i][j] = random.nextDouble(-5, 5);
                    x[j] = (float) random.nextDouble(-20, 20);
                }
                models[i] = new LocalModel(Graphs.id(i), x, 0, 1);
                strategies[i] = new GossipAveraging(config);
                schedule(random.nextLong(stepMillis[i]), i, null);
            }
        }

        void schedule(long time, int node, Outbound delivery) {
            events.add(new Event(time, sequence++, node, delivery));
        }

        /** Learning rate at simulated time t: decays so that the disagreement that steps cause fades. */
        static double learningRate(long t) {
            return 0.2 / (1 + t / 1000.0);
        }

        void run(long untilMillis, long trainUntilMillis) {
            while (!events.isEmpty() && events.peek().time() <= untilMillis) {
                Event e = events.poll();
                clock.setMillis(e.time());
                int i = e.node();
                if (dead[i]) {
                    continue;
                }
                if (e.delivery() == null) {
                    step(i, e.time() <= trainUntilMillis);
                    schedule(e.time() + stepMillis[i], i, null);
                } else {
                    Receipt receipt = strategies[i].receive(e.delivery().message(), models[i], clock);
                    for (Outbound reply : receipt.replies()) {
                        send(reply, e.time());
                    }
                }
            }
        }

        void step(int i, boolean train) {
            if (train) {
                float[] x = models[i].params();
                double eta = learningRate(clock.millis());
                for (int j = 0; j < DIMENSION; j++) {
                    x[j] -= (float) (eta * (x[j] - optima[i][j]));
                }
                models[i].advance();
            }
            steps[i]++;
            if (steps[i] % stepsPerExchange == 0) {
                strategies[i].configure(models[i], graph.get(i), random, clock);
                Outbound o;
                while ((o = strategies[i].pollOutbound()) != null) {
                    send(o, clock.millis());
                }
            }
        }

        void send(Outbound o, long now) {
            schedule(now + latencyMillis, Graphs.index(o.recipient()), o);
        }

        double[] mean(boolean[] among) {
            double[] mean = new double[DIMENSION];
            int count = 0;
            for (int i = 0; i < models.length; i++) {
                if (among[i]) {
                    count++;
                    for (int j = 0; j < DIMENSION; j++) {
                        mean[j] += models[i].params()[j];
                    }
                }
            }
            for (int j = 0; j < DIMENSION; j++) {
                mean[j] /= count;
            }
            return mean;
        }

        double optimumDistance(double[] x) {
            double[] equal = new double[optima.length];
            Arrays.fill(equal, 1);
            return optimumDistance(x, equal);
        }

        /** Distance from the minimiser of {@code sum_i w_i f_i}, which is {@code sum_i w_i c_i / sum_i w_i}. */
        double optimumDistance(double[] x, double[] weights) {
            double[] optimum = new double[DIMENSION];
            double total = Arrays.stream(weights).sum();
            for (int i = 0; i < optima.length; i++) {
                for (int j = 0; j < DIMENSION; j++) {
                    optimum[j] += weights[i] * optima[i][j] / total;
                }
            }
            return GossipAveragingPropertyTest.maxDeviation(x, optimum);
        }

        double disagreement(boolean[] among) {
            double[] mean = mean(among);
            double max = 0;
            for (int i = 0; i < models.length; i++) {
                if (among[i]) {
                    max = Math.max(max, GossipAveragingPropertyTest.maxDeviation(models[i].params(), mean));
                }
            }
            return max;
        }
    }

    private static boolean[] all(int n) {
        boolean[] b = new boolean[n];
        Arrays.fill(b, true);
        return b;
    }

    @Test
    void ringOfEqualNodesConvergesToTheGlobalOptimum() {
        TestLog.figures("ringOfEqualNodesConvergesToTheGlobalOptimum seed=" + SEED);
        int n = 12;
        long[] speeds = new long[n];
        Arrays.fill(speeds, 10);
        Simulation sim = new Simulation(Graphs.ring(n), speeds, SEED);
        double initialDisagreement = sim.disagreement(all(n));
        // Train for 50 s, then gossip only for 10 s.
        sim.run(60_000, 50_000);
        double disagreement = sim.disagreement(all(n));
        double error = sim.optimumDistance(sim.mean(all(n)));
        TestLog.figures(
                "ring: disagreement %.2e (initially %.2e), distance to optimum %.2e%n",
                disagreement, initialDisagreement, error);
        assertThat(disagreement).isLessThan(1e-4);
        assertThat(error).isLessThan(0.05);
    }

    @Test
    void randomRegularGraphWithAStragglerReachesConsensusAndNobodyWaits() {
        TestLog.figures("randomRegularGraphWithAStragglerReachesConsensusAndNobodyWaits seed=" + SEED);
        int n = 10;
        long[] speeds = new long[n];
        Arrays.fill(speeds, 10);
        speeds[3] = 80; // eight times slower
        Simulation sim = new Simulation(Graphs.randomRegular(n, 3, new SplittableRandom(SEED)), speeds, SEED);
        // Train for 30 s, then gossip only for 5 s: consensus must become exact up to float rounding.
        sim.run(35_000, 30_000);
        for (int i = 0; i < n; i++) {
            long expected = 35_000 / speeds[i];
            assertThat(sim.steps[i]).as("steps of node %d", i).isBetween(expected - 1, expected + 1);
        }
        double disagreement = sim.disagreement(all(n));
        double[] consensus = sim.mean(all(n));
        double error = sim.optimumDistance(consensus);
        // A straggler takes fewer gradient steps, so its objective counts less: the consensus approaches the
        // minimiser of sum_i r_i f_i, with r_i each node's step rate, rather than that of sum_i f_i.
        double[] rates = new double[n];
        for (int i = 0; i < n; i++) {
            rates[i] = 1.0 / speeds[i];
        }
        double rateWeightedError = sim.optimumDistance(consensus, rates);
        TestLog.figures(
                "straggler: disagreement %.2e, distance to the optimum %.2e, to the rate-weighted optimum %.2e%n",
                disagreement, error, rateWeightedError);
        assertThat(disagreement).isLessThan(1e-4);
        // Approximately: the straggler's model also lags the others, so allow a little more than on the ring.
        assertThat(rateWeightedError).isLessThan(0.1);
    }

    @Test
    void aNodeThatDiesDoesNotStopTheOthers() {
        TestLog.figures("aNodeThatDiesDoesNotStopTheOthers seed=" + SEED);
        int n = 8;
        long[] speeds = new long[n];
        Arrays.fill(speeds, 10);
        // A ring with chords i +- 3, so that the ring stays connected without the dead node.
        List<List<String>> graph = new java.util.ArrayList<>();
        for (int i = 0; i < n; i++) {
            graph.add(List.of(
                    Graphs.id((i + 1) % n),
                    Graphs.id((i + n - 1) % n),
                    Graphs.id((i + 3) % n),
                    Graphs.id((i + n - 3) % n)));
        }
        Simulation sim = new Simulation(graph, speeds, SEED);
        sim.run(1_000, 30_000);
        sim.dead[5] = true; // drops everything from now on; its peers only see their pulls time out
        sim.run(30_000, 25_000);
        boolean[] alive = all(n);
        alive[5] = false;
        long abandoned = 0;
        for (int i = 0; i < n; i++) {
            if (i != 5) {
                assertThat(sim.steps[i]).as("steps of node %d", i).isGreaterThanOrEqualTo(30_000 / 10 - 1);
                abandoned += sim.strategies[i].abandonedExchanges();
            }
        }
        double disagreement = sim.disagreement(alive);
        TestLog.figures("dead node: disagreement %.2e, %d exchanges abandoned%n", disagreement, abandoned);
        assertThat(abandoned).as("pulls to the dead node that timed out").isPositive();
        assertThat(disagreement).isLessThan(1e-4);
    }
}
