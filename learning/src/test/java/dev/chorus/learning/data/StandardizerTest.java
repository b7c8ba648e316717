package dev.chorus.learning.data;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import java.util.List;
import org.junit.jupiter.api.Test;

class StandardizerTest {

    private static Dataset dataset(float[] features, int rows, int cols) {
        List<String> names =
                java.util.stream.IntStream.range(0, cols).mapToObj(c -> "f" + c).toList();
        return new Dataset(features, rows, cols, new int[rows], 2, names, List.of("0", "1"));
    }

    @Test
    void fitsMeanAndPopulationStdOfTheTrainingRowsOnly() {
        // column 0: 1, 2, 3, 6 -> mean 3, population variance (4 + 1 + 0 + 9) / 4 = 3.5
        // column 1: constant 7 -> std 1
        Dataset train = dataset(new float[] {1, 7, 2, 7, 3, 7, 6, 7}, 4, 2);
        Standardizer s = Standardizer.fit(train);
        assertThat(s.mean()).containsExactly(3, 7);
        assertThat(s.std()[0]).isCloseTo(Math.sqrt(3.5), within(1e-12));
        assertThat(s.std()[1]).isEqualTo(1);

        Dataset test = dataset(new float[] {3, 7, 10, 8}, 2, 2);
        Dataset scaled = s.apply(test);
        assertThat(scaled.features()[0]).isEqualTo(0f);
        assertThat(scaled.features()[1]).isEqualTo(0f);
        assertThat((double) scaled.features()[2]).isCloseTo(7 / Math.sqrt(3.5), within(1e-6));
        assertThat(scaled.features()[3]).isEqualTo(1f);
        // the input is left alone
        assertThat(test.features()).containsExactly(3, 7, 10, 8);
    }

    @Test
    void standardizedTrainingColumnsHaveMeanZeroAndUnitVariance() {
        CsvData data = CsvLoader.load(
                TestDatasets.csv("wdbc.csv"),
                CsvSchema.builder("Diagnosis").positiveClass("M").drop("ID").build());
        Dataset d = data.dataset();
        assertThat(Standardizer.fit(d).mean()[0]).isCloseTo(14.127291739894563, within(1e-5));
        assertThat(Standardizer.fit(d).std()[0]).isCloseTo(3.5209507607110626, within(1e-5));
        Dataset z = Standardizer.fit(d).apply(d);
        for (int c = 0; c < z.cols(); c++) {
            double sum = 0;
            double squares = 0;
            for (int r = 0; r < z.rows(); r++) {
                double v = z.features()[r * z.cols() + c];
                sum += v;
                squares += v * v;
            }
            assertThat(sum / z.rows()).isCloseTo(0, within(1e-5));
            assertThat(squares / z.rows()).isCloseTo(1, within(1e-4));
        }
    }

    @Test
    void restoresFromItsArraysAndChecksThem() {
        Standardizer s = Standardizer.fit(dataset(new float[] {1, 2, 3, 5}, 2, 2));
        Standardizer restored = Standardizer.of(s.mean(), s.std());
        Dataset probe = dataset(new float[] {4, 4}, 1, 2);
        assertThat(restored.apply(probe).features())
                .containsExactly(s.apply(probe).features());
        assertThatThrownBy(() -> Standardizer.of(new double[] {0}, new double[] {0}))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> Standardizer.of(new double[] {0, 1}, new double[] {1}))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> s.apply(dataset(new float[] {1, 2, 3}, 1, 3)))
                .hasMessage("standardizer fitted on 2 features, data has 3");
    }
}
