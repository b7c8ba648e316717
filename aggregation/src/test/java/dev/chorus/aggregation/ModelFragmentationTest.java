package dev.chorus.aggregation;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class ModelFragmentationTest {

    @Test
    void fragmentsPartitionTheCoordinatesInNearEqualParts() {
        for (int d : new int[] {1, 7, 100, 1001}) {
            for (int f : new int[] {1, 2, 3, 7}) {
                if (f > d) {
                    continue;
                }
                ModelFragmentation cut = new ModelFragmentation(d, f, 99);
                int[] seen = new int[d];
                int min = Integer.MAX_VALUE;
                int max = 0;
                for (int k = 0; k < f; k++) {
                    int[] idx = cut.indices(k);
                    min = Math.min(min, idx.length);
                    max = Math.max(max, idx.length);
                    for (int i : idx) {
                        seen[i]++;
                    }
                }
                for (int i = 0; i < d; i++) {
                    assertThat(seen[i])
                            .as("coordinate %d of %d in %d fragments", i, d, f)
                            .isEqualTo(1);
                }
                assertThat(max - min).isLessThanOrEqualTo(1);
            }
        }
    }

    @Test
    void everyNodeDerivesTheSameCutFromTheSharedSeed() {
        ModelFragmentation a = new ModelFragmentation(10, 3, 42);
        ModelFragmentation b = new ModelFragmentation(10, 3, 42);
        // Pinned: positions [0,3), [3,6), [6,10) of the permutation of [0,10) for seed 42.
        assertThat(a.indices(0)).containsExactly(8, 3, 6);
        assertThat(a.indices(1)).containsExactly(5, 4, 0);
        assertThat(a.indices(2)).containsExactly(9, 2, 1, 7);
        for (int f = 0; f < 3; f++) {
            assertThat(b.indices(f)).isEqualTo(a.indices(f));
        }
        assertThat(new ModelFragmentation(10, 3, 43).indices(0)).isNotEqualTo(a.indices(0));
    }

    @Test
    void gatherReadsTheFragmentsCoordinates() {
        ModelFragmentation cut = new ModelFragmentation(10, 3, 42);
        float[] params = {0, 10, 20, 30, 40, 50, 60, 70, 80, 90};
        assertThat(cut.gather(2, params)).containsExactly(90, 20, 10, 70);
    }

    @Test
    void rejectsImpossibleCuts() {
        assertThatThrownBy(() -> new ModelFragmentation(3, 4, 0)).hasMessageContaining("[1, 3]");
        assertThatThrownBy(() -> new ModelFragmentation(3, 0, 0)).hasMessageContaining("fragment count");
        assertThatThrownBy(() -> new ModelFragmentation(0, 1, 0)).hasMessageContaining("dimension");
    }

    /** Only the cut's own arrays count as its fragments (the receiver then skips the duplicate check). */
    @Test
    void isFragmentGoesByIdentity() {
        ModelFragmentation a = new ModelFragmentation(10, 3, 42);
        for (int f = 0; f < 3; f++) {
            assertThat(a.isFragment(a.indices(f))).isTrue();
            assertThat(a.isFragment(a.indices(f).clone())).isFalse();
        }
        assertThat(a.isFragment(new ModelFragmentation(10, 3, 42).indices(0))).isFalse();
    }
}
