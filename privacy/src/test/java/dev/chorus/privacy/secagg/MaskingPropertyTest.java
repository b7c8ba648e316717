package dev.chorus.privacy.secagg;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Whole rounds in memory ({@link GroupSimulation}): 3 to 20 members on a random regular graph, up to a third dropping
 * out before sending their masked input (their pairwise masks removed through their reconstructed keys) and up to a
 * third after it (their self masks removed through their reconstructed seeds).
 */
class MaskingPropertyTest {

    private static final int DIMENSION = 33;

    private record Dropouts(Set<Integer> before, Set<Integer> after) {}

    private static GroupSimulation group(Random random) {
        int n = 3 + random.nextInt(18);
        int k = 2 + random.nextInt(n - 2);
        if (k % 2 != 0 && n % 2 != 0) {
            k++;
        }
        int t = 1 + random.nextInt(k);
        return new GroupSimulation(n, k, t, DIMENSION, random);
    }

    private static Dropouts dropouts(int n, int most, Random random) {
        List<Integer> members = new ArrayList<>();
        for (int u = 0; u < n; u++) {
            members.add(u);
        }
        Collections.shuffle(members, random);
        int before = random.nextInt(most + 1);
        int after = random.nextInt(most + 1);
        return new Dropouts(
                new TreeSet<>(members.subList(0, before)), new TreeSet<>(members.subList(before, before + after)));
    }

    @ParameterizedTest(name = "seed {0}")
    @MethodSource("dev.chorus.privacy.secagg.Seeds#seeds")
    void theUnmaskedSumIsExactlyTheSurvivorsSumWhenEnoughSharesArrive(long seed) {
        Random random = new Random(seed);
        GroupSimulation group = group(random);
        int most = group.size / 3;
        Dropouts drop = dropouts(group.size, most, random);
        // Fewer dropouts until every needed secret has a threshold of holders left; none at all always does.
        while (!group.recoverable(drop.before(), drop.after())) {
            most = most / 2;
            drop = dropouts(group.size, most, random);
        }
        Set<Integer> survivors = group.survivors(drop.before());
        int[] sum = group.run(drop.before(), drop.after());
        assertThat(sum).isEqualTo(group.plainSum(survivors));

        float[] decoded = group.quantizer.dequantizeSum(sum, survivors.size());
        for (int i = 0; i < DIMENSION; i++) {
            double expected = 0;
            for (int u : survivors) {
                expected += Math.max(-1.0, Math.min(1.0, group.values[u][i]));
            }
            double bound = survivors.size() * group.quantizer.step() / 2 + Math.ulp((float) Math.abs(expected));
            assertThat((double) decoded[i]).isCloseTo(expected, within(bound + 1e-12));
        }
    }

    @ParameterizedTest(name = "seed {0}")
    @MethodSource("dev.chorus.privacy.secagg.Seeds#seeds")
    void aRoundEitherSumsExactlyOrAbortsForWantOfShares(long seed) {
        Random random = new Random(seed);
        GroupSimulation group = group(random);
        Dropouts drop = dropouts(group.size, group.size / 3, random);
        if (group.recoverable(drop.before(), drop.after())) {
            assertThat(group.run(drop.before(), drop.after()))
                    .isEqualTo(group.plainSum(group.survivors(drop.before())));
        } else {
            assertThatThrownBy(() -> group.run(drop.before(), drop.after()))
                    .isInstanceOf(SecAggAbortedException.class)
                    .hasMessageContaining("fewer than " + group.threshold + " shares");
        }
    }
}
