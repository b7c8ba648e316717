package dev.chorus.aggregation;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Arrays;
import org.junit.jupiter.api.Test;

class SeededPermutationTest {

    @Test
    void splitMix64MatchesItsReferenceOutputForSeedZero() {
        // The first three outputs of the reference SplitMix64 seeded with 0.
        assertThat(SeededPermutation.mix(SeededPermutation.GOLDEN_GAMMA)).isEqualTo(0xE220A8397B1DCDAFL);
        assertThat(SeededPermutation.mix(2 * SeededPermutation.GOLDEN_GAMMA)).isEqualTo(0x6E789E6AA1B965F4L);
        assertThat(SeededPermutation.mix(3 * SeededPermutation.GOLDEN_GAMMA)).isEqualTo(0x06C45D188009454FL);
    }

    @Test
    void permutationIsPinned() {
        // Every node must derive the same permutation forever: a change here breaks mixed-version consortia.
        assertThat(SeededPermutation.of(10, 42)).containsExactly(8, 3, 6, 5, 4, 0, 9, 2, 1, 7);
    }

    @Test
    void isAPermutationAndDependsOnTheSeed() {
        for (int n : new int[] {0, 1, 2, 17, 1000}) {
            int[] p = SeededPermutation.of(n, 7);
            int[] sorted = p.clone();
            Arrays.sort(sorted);
            for (int i = 0; i < n; i++) {
                assertThat(sorted[i]).isEqualTo(i);
            }
            assertThat(SeededPermutation.of(n, 7)).isEqualTo(p);
        }
        assertThat(SeededPermutation.of(1000, 7)).isNotEqualTo(SeededPermutation.of(1000, 8));
        assertThat(SeededPermutation.derive(7, 0)).isNotEqualTo(SeededPermutation.derive(7, 1));
    }
}
