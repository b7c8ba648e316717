package dev.chorus.privacy.secagg;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayDeque;
import java.util.Arrays;
import java.util.Deque;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/** The SecAgg+ graph: regular, symmetric, connected, the same for every member, fresh each round. */
class CommunicationGraphTest {

    private static byte[] seed(long value) {
        byte[] seed = new byte[32];
        new Random(value).nextBytes(seed);
        return seed;
    }

    @ParameterizedTest(name = "seed {0}")
    @MethodSource("dev.chorus.privacy.secagg.Seeds#seeds")
    void everyMemberHasDegreeNeighboursAndTheRelationIsSymmetric(long seed) {
        Random random = new Random(seed);
        int n = 2 + random.nextInt(120);
        int k = 1 + random.nextInt(n - 1);
        if (k % 2 != 0 && n % 2 != 0) {
            k++; // an odd n has an even n - 1, so an odd k is below it
        }
        CommunicationGraph graph = CommunicationGraph.of(n, k, seed(seed), random.nextLong());
        for (int u = 0; u < n; u++) {
            int[] neighbours = graph.neighbours(u);
            assertThat(neighbours)
                    .as("member %d", u)
                    .hasSize(k)
                    .doesNotHaveDuplicates()
                    .doesNotContain(u);
            assertThat(neighbours).isSorted();
            for (int v : neighbours) {
                assertThat(v).isBetween(0, n - 1);
                assertThat(graph.neighbours(v))
                        .as("%d in %d's neighbours", u, v)
                        .contains(u);
                assertThat(graph.areNeighbours(u, v)).isTrue();
            }
        }
        if (k >= 2) {
            assertThat(connected(graph)).isTrue();
        }
    }

    @Test
    void theGraphDependsOnlyOnTheSeedAndTheRound() {
        CommunicationGraph a = CommunicationGraph.of(60, seed(1), 5);
        CommunicationGraph b = CommunicationGraph.of(60, seed(1), 5);
        CommunicationGraph nextRound = CommunicationGraph.of(60, seed(1), 6);
        CommunicationGraph otherGroup = CommunicationGraph.of(60, seed(2), 5);
        boolean differsByRound = false;
        boolean differsBySeed = false;
        for (int u = 0; u < 60; u++) {
            assertThat(a.neighbours(u)).isEqualTo(b.neighbours(u));
            differsByRound |= !Arrays.equals(a.neighbours(u), nextRound.neighbours(u));
            differsBySeed |= !Arrays.equals(a.neighbours(u), otherGroup.neighbours(u));
        }
        assertThat(differsByRound).isTrue();
        assertThat(differsBySeed).isTrue();
    }

    @Test
    void theDefaultDegreeIsLogarithmicAndTheWholeGroupWhenSmall() {
        assertThat(CommunicationGraph.defaultDegree(2)).isEqualTo(1);
        assertThat(CommunicationGraph.defaultDegree(8)).isEqualTo(7);
        assertThat(CommunicationGraph.defaultDegree(13)).isEqualTo(12);
        assertThat(CommunicationGraph.defaultDegree(14)).isEqualTo(12);
        assertThat(CommunicationGraph.defaultDegree(16)).isEqualTo(12);
        assertThat(CommunicationGraph.defaultDegree(17)).isEqualTo(14);
        assertThat(CommunicationGraph.defaultDegree(100)).isEqualTo(20);
        assertThat(CommunicationGraph.defaultDegree(1000)).isEqualTo(30);
        CommunicationGraph small = CommunicationGraph.of(5, seed(3), 0);
        for (int u = 0; u < 5; u++) {
            assertThat(small.neighbours(u)).hasSize(4).doesNotContain(u);
        }
    }

    @Test
    void impossibleGraphsAreRefused() {
        assertThatThrownBy(() -> CommunicationGraph.of(7, 3, seed(1), 0))
                .isInstanceOf(SecAggException.class)
                .hasMessageContaining("odd times odd");
        assertThatThrownBy(() -> CommunicationGraph.of(7, 7, seed(1), 0))
                .isInstanceOf(SecAggException.class)
                .hasMessageContaining("outside 1..6");
        assertThatThrownBy(() -> CommunicationGraph.of(1, seed(1), 0))
                .isInstanceOf(SecAggException.class)
                .hasMessageContaining("at least 2 members");
        assertThatThrownBy(() -> CommunicationGraph.of(4, 2, seed(1), 0).neighbours(4))
                .isInstanceOf(SecAggException.class);
    }

    private static boolean connected(CommunicationGraph graph) {
        boolean[] seen = new boolean[graph.size()];
        Deque<Integer> queue = new ArrayDeque<>();
        queue.add(0);
        seen[0] = true;
        int count = 1;
        while (!queue.isEmpty()) {
            for (int v : graph.neighbours(queue.poll())) {
                if (!seen[v]) {
                    seen[v] = true;
                    count++;
                    queue.add(v);
                }
            }
        }
        return count == graph.size();
    }
}
