package dev.chorus.node.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Whatever the length of the run, the history stays within its bound, keeps the newest evaluations exactly, and
 * represents every evaluation once: the counts add up to the number recorded and the count-weighted sum of each
 * metric is the sum over all evaluations. Seeded lengths, capacities and values.
 */
class EvaluationHistoryPropertyTest {

    @ParameterizedTest(name = "seed {0}")
    @ValueSource(longs = {1, 2, 3, 17, 42, 1234, 99_999})
    void boundedWholeRunAndNewestExact(long seed) {
        SplittableRandom random = new SplittableRandom(seed);
        int recent = 1 + random.nextInt(50);
        int thinned = 2 * (1 + random.nextInt(50));
        int n = random.nextInt(20_000);
        EvaluationHistory h = new EvaluationHistory(recent, thinned);
        double accuracySum = 0;
        HistoryPoint[] recorded = new HistoryPoint[n];
        for (int i = 0; i < n; i++) {
            double acc = random.nextDouble();
            accuracySum += acc;
            double auc = random.nextInt(10) == 0 ? Double.NaN : random.nextDouble();
            recorded[i] = new HistoryPoint(1000L * i, i, 10L * i, random.nextDouble(), acc, random.nextDouble(), auc);
            assertThat(h.record(recorded[i])).as("seed %d", seed).isEqualTo(i + 1);
        }
        List<EvaluationHistory.Entry> all = h.all();
        String why = "seed " + seed + ", recent " + recent + ", thinned " + thinned + ", n " + n;
        assertThat(all.size()).as(why).isLessThanOrEqualTo(recent + thinned);
        if (n <= recent + thinned) {
            assertThat(all.size())
                    .as("nothing thinned before the bound; " + why)
                    .isEqualTo(n);
        } else {
            assertThat(all.size()).as(why).isGreaterThan(recent + thinned / 2 - 1);
        }
        assertThat(all.stream().mapToLong(EvaluationHistory.Entry::count).sum())
                .as("every evaluation represented once; " + why)
                .isEqualTo(n);
        double weighted =
                all.stream().mapToDouble(e -> e.count() * e.point().accuracy()).sum();
        assertThat(weighted).as(why).isCloseTo(accuracySum, org.assertj.core.data.Offset.offset(1e-6 * (n + 1)));
        for (int i = 1; i < all.size(); i++) {
            assertThat(all.get(i).seq()).as(why).isGreaterThan(all.get(i - 1).seq());
            assertThat(all.get(i).point().timeMillis())
                    .as(why)
                    .isGreaterThan(all.get(i - 1).point().timeMillis());
        }
        int exact = Math.min(n, recent);
        for (int k = 0; k < exact; k++) {
            EvaluationHistory.Entry e = all.get(all.size() - exact + k);
            assertThat(e.count()).as(why).isEqualTo(1);
            assertThat(e.point()).as(why).isEqualTo(recorded[n - exact + k]);
            assertThat(e.seq()).as(why).isEqualTo(n - exact + k + 1);
        }
        if (n > 0) {
            assertThat(all.getLast().seq()).isEqualTo(h.lastSeq()).isEqualTo(n);
            long mid = random.nextLong(n + 1);
            assertThat(h.afterSeq(mid)).as(why).allMatch(e -> e.seq() > mid);
            assertThat(h.afterSeq(mid).size()
                            + all.stream().filter(e -> e.seq() <= mid).count())
                    .as(why)
                    .isEqualTo(all.size());
        }
    }

    @ParameterizedTest(name = "seed {0}")
    @ValueSource(longs = {5, 6, 7})
    void oldPointsGetSparserThanNewOnes(long seed) {
        SplittableRandom random = new SplittableRandom(seed);
        EvaluationHistory h = new EvaluationHistory(10, 20);
        int n = 10_000 + random.nextInt(10_000);
        for (int i = 0; i < n; i++) {
            h.record(new HistoryPoint(i, i, i, 0, 0.5, 0.5, 0.5));
        }
        List<EvaluationHistory.Entry> all = h.all();
        assertThat(all.getFirst().count())
                .as("seed %d: the oldest bucket holds many evaluations", seed)
                .isGreaterThan(all.get(all.size() - 11).count())
                .isGreaterThanOrEqualTo(n / 40);
    }

    @ParameterizedTest(name = "thinned {0}")
    @ValueSource(ints = {0, 1, 3})
    void aThinnedTierMustBeEvenAndAtLeastTwo(int thinned) {
        assertThatThrownBy(() -> new EvaluationHistory(10, thinned)).hasMessageContaining("thinned even");
    }
}
