package dev.chorus.aggregation.async;

import static org.assertj.core.api.Assertions.assertThat;

import dev.chorus.aggregation.LocalModel;
import dev.chorus.aggregation.ManualClock;
import dev.chorus.aggregation.Outbound;
import dev.chorus.aggregation.Receipt;
import dev.chorus.aggregation.Seeds;
import dev.chorus.aggregation.weighting.StalenessWeighting;
import dev.chorus.aggregation.weighting.UpdateWeighting;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Push-pull gossip on a fixed graph (a ring, or a random regular graph): every exchange preserves the
 * sample-weighted sum, and random exchanges drive all nodes to consensus on the weighted mean.
 */
class GossipAveragingPropertyTest {

    private static final int DIMENSION = 5;

    @ParameterizedTest
    @MethodSource("dev.chorus.aggregation.Seeds#seeds")
    void ringPreservesTheMeanAndReachesConsensus(long seed) {
        Seeds.print("ringPreservesTheMeanAndReachesConsensus", seed);
        SplittableRandom random = new SplittableRandom(seed);
        int n = 4 + random.nextInt(9);
        run(seed, Graphs.ring(n), UpdateWeighting.uniform(), random);
    }

    @ParameterizedTest
    @MethodSource("dev.chorus.aggregation.Seeds#seeds")
    void randomRegularGraphPreservesTheWeightedSumAndReachesConsensus(long seed) {
        Seeds.print("randomRegularGraphPreservesTheWeightedSumAndReachesConsensus", seed);
        SplittableRandom random = new SplittableRandom(seed);
        int n = 2 * (3 + random.nextInt(6));
        run(seed, Graphs.randomRegular(n, 3, random), new UpdateWeighting(StalenessWeighting.constant(), true), random);
    }

    private static void run(long seed, List<List<String>> graph, UpdateWeighting weighting, SplittableRandom random) {
        ManualClock clock = new ManualClock(0);
        int n = graph.size();
        LocalModel[] models = new LocalModel[n];
        GossipAveraging[] strategies = new GossipAveraging[n];
        for (int i = 0; i < n; i++) {
            float[] x = new float[DIMENSION];
            for (int j = 0; j < DIMENSION; j++) {
                x[j] = (float) random.nextDouble(-10, 10);
            }
            long samples = weighting.bySampleCount() ? 1 + random.nextInt(100) : 1;
            models[i] = new LocalModel(Graphs.id(i), x, random.nextInt(5), samples);
            strategies[i] =
                    new GossipAveraging(GossipAveraging.Config.defaults().withWeighting(weighting));
        }
        double[] target = weightedMean(models);
        double scale = 0;
        for (LocalModel m : models) {
            scale = Math.max(scale, maxDeviation(m.params(), target));
        }
        int exchanges = 400 * n * n;
        for (int e = 0; e < exchanges; e++) {
            int i = random.nextInt(n);
            strategies[i].configure(models[i], graph.get(i), random, clock);
            Outbound request = strategies[i].pollOutbound();
            int j = Graphs.index(request.recipient());
            Receipt atJ = strategies[j].receive(request.message(), models[j], clock);
            strategies[i].receive(atJ.replies().getFirst().message(), models[i], clock);
            double drift = maxDeviation(weightedMean(models), target);
            if (drift >= 1e-4) {
                assertThat(drift)
                        .as("weighted mean drift after %d exchanges, seed %d", e + 1, seed)
                        .isLessThan(1e-4);
            }
        }
        assertThat(maxDeviation(weightedMean(models), target))
                .as("weighted mean drift, seed %d", seed)
                .isLessThan(1e-4);
        for (LocalModel m : models) {
            assertThat(maxDeviation(m.params(), target))
                    .as("distance of %s from the mean (initially up to %.2f), seed %d", m.id(), scale, seed)
                    .isLessThan(1e-4);
        }
    }

    static double[] weightedMean(LocalModel[] models) {
        double[] mean = new double[DIMENSION];
        double total = 0;
        for (LocalModel m : models) {
            total += m.sampleCount();
            for (int j = 0; j < DIMENSION; j++) {
                mean[j] += m.sampleCount() * (double) m.params()[j];
            }
        }
        for (int j = 0; j < DIMENSION; j++) {
            mean[j] /= total;
        }
        return mean;
    }

    static double maxDeviation(float[] x, double[] target) {
        double max = 0;
        for (int j = 0; j < x.length; j++) {
            max = Math.max(max, Math.abs(x[j] - target[j]));
        }
        return max;
    }

    static double maxDeviation(double[] x, double[] target) {
        double max = 0;
        for (int j = 0; j < x.length; j++) {
            max = Math.max(max, Math.abs(x[j] - target[j]));
        }
        return max;
    }
}
