package dev.chorus.node.daemon;

import static org.assertj.core.api.Assertions.assertThat;

import dev.chorus.learning.data.Dataset;
import dev.chorus.learning.eval.Evaluation;
import dev.chorus.learning.model.Sequential;
import dev.chorus.learning.optim.Optimizer;
import dev.chorus.learning.tensor.TensorBackend;
import dev.chorus.learning.tensor.TensorBackends;
import dev.chorus.learning.train.Trainer;
import dev.chorus.learning.train.TrainingConfig;
import dev.chorus.node.NodeTestDirs;
import dev.chorus.node.config.ConfigLoader;
import dev.chorus.node.config.NodeConfig;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Real training curves of the bundled WDBC data (seeded shuffles and initialisations, a range of learning rates and
 * batch sizes, evaluated every 3 steps) never trip the detector; the same run poisoned with 1e30 does at once.
 */
class CollapseDetectorPropertyTest {

    @TempDir
    Path dir;

    @ParameterizedTest(name = "seed {0}")
    @ValueSource(longs = {1, 2, 3, 17, 42, 1234})
    void ordinaryTrainingNeverCollapsesAndPoisonAlwaysDoes(long seed) throws Exception {
        String[] optimizers = {"sgd:lr=0.01,momentum=0.9", "adam:lr=0.001", "adam:lr=0.01"};
        int[] batches = {8, 16, 64};
        String opt = optimizers[(int) (seed % optimizers.length)];
        int batch = batches[(int) ((seed / 3) % batches.length)];
        NodeConfig config = ConfigLoader.load(
                NodeTestDirs.create(dir, ""),
                List.of("training.seed=" + seed, "model.optimizer=\"" + opt + "\"", "training.batch=" + batch));
        LocalData data = LocalData.load(config);
        try (TensorBackend backend = TensorBackends.create("reference", 1);
                Sequential model = config.model()
                        .spec()
                        .build(backend, data.train().cols(), data.train().classes(), seed);
                Optimizer optimizer = config.model().optimizer().create()) {
            CollapseDetector detector = new CollapseDetector();
            List<String> verdicts = new ArrayList<>();
            List<Double> losses = new ArrayList<>();
            Trainer trainer = new Trainer(model, optimizer, new TrainingConfig(15, batch, seed));
            trainer.addStepListener(step -> {
                if (step.step() % 3 == 0) {
                    double loss = validationLoss(model, data.validation());
                    losses.add(loss);
                    float[] p = new float[model.parameterCount()];
                    model.copyParametersTo(p);
                    CollapseDetector.Verdict v = detector.observe(loss, CollapseDetector.norm(p));
                    if (v.collapsed()) {
                        verdicts.add("step " + step.step() + ": " + v.reason());
                    }
                }
            });
            trainer.train(data.train());
            assertThat(verdicts)
                    .as("seed %d, %s, batch %d, losses %s", seed, opt, batch, losses)
                    .isEmpty();
            assertThat(losses.size()).isGreaterThan(CollapseDetector.WINDOW);

            float[] poisoned = new float[model.parameterCount()];
            Arrays.fill(poisoned, 1e30f);
            model.setParameters(poisoned);
            double loss = validationLoss(model, data.validation());
            assertThat(detector.observe(loss, CollapseDetector.norm(poisoned)).collapsed())
                    .as("seed %d: poisoned loss %s", seed, loss)
                    .isTrue();
        }
    }

    private static double validationLoss(Sequential model, Dataset v) {
        return Evaluation.of(v.labels(), model.predictProbabilities(v), v.classes())
                .logLoss();
    }
}
