package dev.chorus.learning.eval;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.util.SplittableRandom;
import java.util.stream.LongStream;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/** The rank formula agrees with counting concordant pairs directly, on seeded inputs with many ties. */
class RocAucPropertyTest {

    static Stream<Long> seeds() {
        return LongStream.range(0, 50).map(i -> 0x9E3779B97F4A7C15L * (i + 1)).boxed();
    }

    @ParameterizedTest(name = "seed {0}")
    @MethodSource("seeds")
    void rankFormulaEqualsPairCounting(long seed) {
        SplittableRandom random = new SplittableRandom(seed);
        int n = 2 + random.nextInt(300);
        int levels = 1 + random.nextInt(12); // few distinct scores: many ties
        int[] labels = new int[n];
        double[] scores = new double[n];
        for (int i = 0; i < n; i++) {
            labels[i] = random.nextInt(3) == 0 ? 1 : 0;
            scores[i] = random.nextInt(levels) / (double) levels + labels[i] * random.nextInt(2) * 0.1;
        }
        double pairs = 0;
        double concordant = 0;
        for (int i = 0; i < n; i++) {
            for (int j = 0; j < n; j++) {
                if (labels[i] == 1 && labels[j] == 0) {
                    pairs++;
                    concordant += scores[i] > scores[j] ? 1 : scores[i] == scores[j] ? 0.5 : 0;
                }
            }
        }
        double auc = RocAuc.of(labels, scores);
        if (pairs == 0) {
            assertThat(auc).isNaN();
        } else {
            assertThat(auc).isCloseTo(concordant / pairs, within(1e-12));
        }
    }
}
