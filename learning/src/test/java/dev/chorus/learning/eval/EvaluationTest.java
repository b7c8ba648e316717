package dev.chorus.learning.eval;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import dev.chorus.learning.json.JsonWriter;
import org.junit.jupiter.api.Test;

class EvaluationTest {

    @Test
    void logLossHandComputed() {
        float[] p = {0.9f, 0.1f, 0.2f, 0.8f};
        double expected = -(Math.log(0.9f) + Math.log(0.8f)) / 2; // about 0.16425
        assertThat(LogLoss.of(new int[] {0, 1}, p, 2)).isCloseTo(expected, within(1e-12));
        assertThat(expected).isCloseTo(0.164252033, within(1e-7));
    }

    @Test
    void logLossClipsCertainMistakes() {
        assertThat(LogLoss.of(new int[] {1}, new float[] {1, 0}, 2)).isCloseTo(-Math.log(1e-15), within(1e-9));
        assertThat(-Math.log(1e-15)).isCloseTo(34.538776, within(1e-6));
        assertThat(LogLoss.of(new int[] {0}, new float[] {1, 0}, 2)).isCloseTo(1e-15, within(1e-18));
        assertThat(LogLoss.of(new int[] {}, new float[] {}, 2)).isNaN();
    }

    @Test
    void confusionMatrixCountsActualByPredicted() {
        ConfusionMatrix m = ConfusionMatrix.of(new int[] {0, 0, 1, 1, 2, 2}, new int[] {0, 1, 1, 1, 0, 2}, 3);
        assertThat(m.toArray()).isEqualTo(new long[][] {{1, 1, 0}, {0, 2, 0}, {1, 0, 1}});
        assertThat(m.correct()).isEqualTo(4);
        assertThat(m.accuracy()).isEqualTo(4.0 / 6);
        assertThat(m.recall(0)).isEqualTo(0.5);
        assertThat(m.precision(1)).isEqualTo(2.0 / 3);
        assertThat(ConfusionMatrix.of(new int[] {0}, new int[] {0}, 2).precision(1))
                .isNaN();
        assertThatThrownBy(() -> ConfusionMatrix.of(new int[] {0}, new int[] {3}, 3))
                .hasMessage("prediction 3 of row 0 outside [0, 3)");
    }

    @Test
    void balancedAccuracyIsTheMeanRecallOfTheClassesThatOccur() {
        // recalls 1/2, 2/2 and 1/2
        ConfusionMatrix m = ConfusionMatrix.of(new int[] {0, 0, 1, 1, 2, 2}, new int[] {0, 1, 1, 1, 0, 2}, 3);
        assertThat(m.balancedAccuracy()).isCloseTo((0.5 + 1 + 0.5) / 3, within(1e-12));
        // 9 of class 0 and 1 of class 1, always predicted 0: accuracy 0.9, balanced accuracy 0.5
        int[] labels = {0, 0, 0, 0, 0, 0, 0, 0, 0, 1};
        ConfusionMatrix majority = ConfusionMatrix.of(labels, new int[10], 2);
        assertThat(majority.accuracy()).isEqualTo(0.9);
        assertThat(majority.balancedAccuracy()).isEqualTo(0.5);
        // Class 2 never occurs: the mean is over classes 0 and 1 (recalls 1 and 0), not over all three.
        assertThat(ConfusionMatrix.of(new int[] {0, 1}, new int[] {0, 2}, 3).balancedAccuracy())
                .isEqualTo(0.5);
        assertThat(ConfusionMatrix.of(new int[0], new int[0], 2).balancedAccuracy())
                .isNaN();
    }

    @Test
    void binaryEvaluation() {
        int[] labels = {0, 0, 1, 1, 1};
        float[] p = {
            0.8f, 0.2f, //
            0.4f, 0.6f, // wrong
            0.3f, 0.7f, //
            0.6f, 0.4f, // wrong
            0.1f, 0.9f
        };
        Evaluation e = Evaluation.of(labels, p, 2);
        assertThat(e.rows()).isEqualTo(5);
        assertThat(e.accuracy()).isEqualTo(0.6);
        // positives score 0.7, 0.4, 0.9 against negatives 0.2, 0.6: 2 + 1 + 2 = 5 of 6 pairs in order
        assertThat(e.auc()).isCloseTo(5.0 / 6, within(1e-12));
        double loss = -(Math.log(0.8f) + Math.log(0.4f) + Math.log(0.7f) + Math.log(0.4f) + Math.log(0.9f)) / 5;
        assertThat(e.logLoss()).isCloseTo(loss, within(1e-12));
        assertThat(e.confusion().toArray()).isEqualTo(new long[][] {{1, 1}, {1, 2}});
    }

    @Test
    void multiClassHasNoAucAndTiesPredictTheLowerClass() {
        float[] p = {0.5f, 0.5f, 0f, 0.2f, 0.3f, 0.5f};
        Evaluation e = Evaluation.of(new int[] {1, 2}, p, 3);
        assertThat(e.auc()).isNaN();
        assertThat(e.confusion().count(1, 0)).isEqualTo(1);
        assertThat(e.confusion().count(2, 2)).isEqualTo(1);
        assertThat(e.accuracy()).isEqualTo(0.5);
    }

    @Test
    void writesJsonWithNullForUndefinedScores() {
        Evaluation e = Evaluation.of(new int[] {1, 1}, new float[] {0.25f, 0.75f, 0.5f, 0.5f}, 2);
        assertThat(e.logLoss()).isCloseTo(-(Math.log(0.75) + Math.log(0.5)) / 2, within(1e-12));
        StringBuilder sb = new StringBuilder();
        e.writeJson(JsonWriter.compact(sb));
        assertThat(sb.toString())
                .isEqualTo("{\"rows\":2,\"accuracy\":0.5,\"auc\":null,\"logLoss\":" + e.logLoss()
                        + ",\"confusion\":[[0,0],[1,1]]}");
    }
}
