package dev.chorus.testnet;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import dev.chorus.learning.data.Dataset;
import dev.chorus.learning.data.TestDatasets;
import dev.chorus.learning.eval.Evaluation;
import dev.chorus.learning.eval.RocAuc;
import dev.chorus.learning.model.ModelSpec;
import dev.chorus.learning.model.Sequential;
import dev.chorus.learning.tensor.TensorBackend;
import dev.chorus.learning.tensor.TensorBackends;
import dev.chorus.testsupport.TestLog;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/** What the testnet's scorer records of a model on the common test set. */
class TestnetScoreTest {

    private static final long SEED = 11;

    @Test
    void aHandComputedBinaryScore() {
        int[] labels = {0, 0, 1, 1, 1};
        // Class-1 probabilities 0.1, 0.6, 0.4, 0.7, 0.9: the positives outrank the negatives in 5 of 6 pairs
        // (0.4 is below 0.6), and the predictions 0, 1, 0, 1, 1 recall 1 of 2 negatives and 2 of 3 positives.
        float[] p = {0.9f, 0.1f, 0.4f, 0.6f, 0.6f, 0.4f, 0.3f, 0.7f, 0.1f, 0.9f};

        TestnetRun.Score s = TestnetRun.Score.of(Evaluation.of(labels, p, 2));

        assertThat(s.accuracy()).isEqualTo(0.6);
        assertThat(s.auc()).isCloseTo(5.0 / 6, within(1e-12));
        assertThat(s.balancedAccuracy()).isCloseTo((0.5 + 2.0 / 3) / 2, within(1e-12));
    }

    /**
     * A model with seeded random parameters on WDBC: the AUC is RocAuc's on the model's class-1 probabilities, and the
     * balanced accuracy the mean of the two recalls counted from its predictions.
     */
    @Test
    void aScoredModelsAucIsRocAucOfItsPositiveClassProbabilities() {
        TestLog.figures("seed " + SEED);
        Dataset test = TestDatasets.wdbc().dataset();
        try (TensorBackend backend = TensorBackends.create("reference", 1);
                Sequential model = ModelSpec.parse("logreg").build(backend, test.cols(), test.classes(), SEED)) {
            float[] params = new float[model.parameterCount()];
            SplittableRandom random = new SplittableRandom(SEED);
            for (int i = 0; i < params.length; i++) {
                params[i] = (float) random.nextGaussian();
            }
            model.setParameters(params);

            TestnetRun.Score score = Testnet.score(model, test);

            float[] p = model.predictProbabilities(test);
            double[] positive = new double[test.rows()];
            long[] correct = new long[2];
            long[] rows = new long[2];
            for (int i = 0; i < test.rows(); i++) {
                positive[i] = p[2 * i + 1];
                int predicted = p[2 * i + 1] > p[2 * i] ? 1 : 0;
                rows[test.labels()[i]]++;
                correct[test.labels()[i]] += predicted == test.labels()[i] ? 1 : 0;
            }
            double auc = RocAuc.of(test.labels(), positive);
            assertThat(auc)
                    .as("a random model ranks the rows neither perfectly nor at chance")
                    .isBetween(0.05, 0.95);
            assertThat(score.auc()).isEqualTo(auc);
            assertThat(score.balancedAccuracy())
                    .isCloseTo(((double) correct[0] / rows[0] + (double) correct[1] / rows[1]) / 2, within(1e-12));
        }
    }

    /** With three classes there is no AUC; the balanced accuracy is the mean of the three recalls. */
    @Test
    void aMulticlassScoreHasNoAucAndAveragesEveryClassesRecall() {
        SplittableRandom random = new SplittableRandom(SEED);
        int rows = 90;
        float[] features = new float[rows * 2];
        int[] labels = new int[rows];
        for (int i = 0; i < rows; i++) {
            // Class shares 60%, 30%, 10%; each class's centre on its own side of the plane.
            labels[i] = i < 54 ? 0 : i < 81 ? 1 : 2;
            features[2 * i] = (float) (labels[i] == 1 ? 1 + random.nextGaussian() : random.nextGaussian());
            features[2 * i + 1] = (float) (labels[i] == 2 ? 1 + random.nextGaussian() : random.nextGaussian());
        }
        Dataset test = new Dataset(features, rows, 2, labels, 3, List.of("x", "y"), List.of("a", "b", "c"));
        try (TensorBackend backend = TensorBackends.create("reference", 1);
                Sequential model = ModelSpec.parse("logreg").build(backend, 2, 3, SEED)) {
            TestnetRun.Score score = Testnet.score(model, test);

            float[] p = model.predictProbabilities(test);
            double[] recall = new double[3];
            int[] count = new int[3];
            for (int i = 0; i < rows; i++) {
                int best = 0;
                for (int k = 1; k < 3; k++) {
                    best = p[3 * i + k] > p[3 * i + best] ? k : best;
                }
                count[labels[i]]++;
                recall[labels[i]] += best == labels[i] ? 1 : 0;
            }
            double balanced = (recall[0] / count[0] + recall[1] / count[1] + recall[2] / count[2]) / 3;
            assertThat(score.auc()).isNaN();
            assertThat(score.balancedAccuracy()).isCloseTo(balanced, within(1e-12));
        }
    }
}
