package dev.chorus.learning.train;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.chorus.learning.data.Dataset;
import dev.chorus.learning.model.ModelSpec;
import dev.chorus.learning.model.Sequential;
import dev.chorus.learning.optim.Adam;
import dev.chorus.learning.optim.OptimizerSpec;
import dev.chorus.learning.optim.Sgd;
import dev.chorus.learning.tensor.TensorBackend;
import dev.chorus.learning.tensor.reference.ReferenceBackend;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

class TrainerTest {

    private final TensorBackend backend = new ReferenceBackend();

    /** Points in [-1, 1]^dims labelled by the side of a fixed hyperplane, at least 0.1 away from it. */
    static Dataset separable(long seed, int rows, int dims) {
        SplittableRandom random = new SplittableRandom(seed);
        double[] w = random.doubles(dims, -1, 1).toArray();
        float[] x = new float[rows * dims];
        int[] y = new int[rows];
        for (int r = 0; r < rows; ) {
            double margin = 0.2;
            float[] point = new float[dims];
            for (int d = 0; d < dims; d++) {
                point[d] = (float) random.nextDouble(-1, 1);
                margin += w[d] * point[d];
            }
            if (Math.abs(margin) < 0.1) {
                continue;
            }
            System.arraycopy(point, 0, x, r * dims, dims);
            y[r++] = margin > 0 ? 1 : 0;
        }
        return dataset(x, rows, dims, y, 2);
    }

    /** Four noisy clusters at (+-1, +-1); the label is 1 where the signs differ. */
    static Dataset xor(long seed, int rows) {
        SplittableRandom random = new SplittableRandom(seed);
        float[] x = new float[rows * 2];
        int[] y = new int[rows];
        for (int r = 0; r < rows; r++) {
            int a = random.nextInt(2), b = random.nextInt(2);
            x[2 * r] = (float) ((2 * a - 1) + 0.25 * random.nextGaussian());
            x[2 * r + 1] = (float) ((2 * b - 1) + 0.25 * random.nextGaussian());
            y[r] = a ^ b;
        }
        return dataset(x, rows, 2, y, 2);
    }

    /** Three well separated Gaussian blobs in the plane. */
    static Dataset blobs(long seed, int rows) {
        SplittableRandom random = new SplittableRandom(seed);
        double[][] centres = {{-2, 0}, {2, 0}, {0, 3}};
        float[] x = new float[rows * 2];
        int[] y = new int[rows];
        for (int r = 0; r < rows; r++) {
            int c = random.nextInt(3);
            x[2 * r] = (float) (centres[c][0] + 0.5 * random.nextGaussian());
            x[2 * r + 1] = (float) (centres[c][1] + 0.5 * random.nextGaussian());
            y[r] = c;
        }
        return dataset(x, rows, 2, y, 3);
    }

    static Dataset dataset(float[] x, int rows, int cols, int[] y, int classes) {
        return new Dataset(
                x,
                rows,
                cols,
                y,
                classes,
                IntStream.range(0, cols).mapToObj(i -> "f" + i).toList(),
                IntStream.range(0, classes).mapToObj(i -> "c" + i).toList());
    }

    static double accuracy(Sequential model, Dataset data) {
        float[] p = model.predictProbabilities(data);
        int k = data.classes(), right = 0;
        for (int r = 0; r < data.rows(); r++) {
            int best = 0;
            for (int c = 1; c < k; c++) {
                if (p[r * k + c] > p[r * k + best]) {
                    best = c;
                }
            }
            right += best == data.labels()[r] ? 1 : 0;
        }
        return (double) right / data.rows();
    }

    @Test
    void logisticRegressionSeparatesALinearProblem() {
        Dataset data = separable(11, 400, 5);
        try (Sequential model = ModelSpec.parse("logreg").build(backend, 5, 2, 1)) {
            TrainingStats stats =
                    new Trainer(model, new Sgd(0.5f, 0.9f, 0f, false), new TrainingConfig(30, 32, 2)).train(data);
            assertThat(accuracy(model, data)).isGreaterThanOrEqualTo(0.98);
            assertThat(stats.finalLoss()).isLessThan(stats.epochLosses().getFirst() / 3);
            assertThat(stats.epochs()).isEqualTo(30);
            // 400 rows in batches of 32: 12 full batches and one of 16, per epoch.
            assertThat(stats.steps()).isEqualTo(30 * 13);
            assertThat(stats.samples()).isEqualTo(30 * 400);
        }
    }

    @Test
    void softmaxRegressionSeparatesThreeBlobs() {
        Dataset data = blobs(3, 300);
        try (Sequential model = ModelSpec.parse("logreg").build(backend, 2, 3, 1)) {
            new Trainer(model, new Sgd(0.1f, 0.9f, 0f, false), new TrainingConfig(20, 16, 2)).train(data);
            assertThat(accuracy(model, data)).isGreaterThanOrEqualTo(0.97);
        }
    }

    @Test
    void anMlpLearnsXorWhereLogisticRegressionCannot() {
        Dataset data = xor(5, 200);
        try (Sequential mlp = ModelSpec.parse("mlp:16:tanh").build(backend, 2, 2, 1);
                Sequential linear = ModelSpec.parse("logreg").build(backend, 2, 2, 1)) {
            new Trainer(mlp, new Adam(0.05f, 0.9f, 0.999f, 1e-8f, 0f), new TrainingConfig(60, 16, 2)).train(data);
            new Trainer(linear, new Adam(0.05f, 0.9f, 0.999f, 1e-8f, 0f), new TrainingConfig(60, 16, 2)).train(data);
            assertThat(accuracy(mlp, data)).isGreaterThanOrEqualTo(0.95);
            assertThat(accuracy(linear, data)).isLessThanOrEqualTo(0.75);
        }
    }

    @Test
    void aReluMlpLearnsXorToo() {
        Dataset data = xor(6, 200);
        try (Sequential mlp = ModelSpec.parse("mlp:16,8").build(backend, 2, 2, 3)) {
            new Trainer(mlp, OptimizerSpec.parse("sgd:lr=0.1,momentum=0.9").create(), new TrainingConfig(60, 16, 4))
                    .train(data);
            assertThat(accuracy(mlp, data)).isGreaterThanOrEqualTo(0.95);
        }
    }

    private float[] trainedParameters(long initSeed, long shuffleSeed) {
        Dataset data = xor(5, 100);
        try (Sequential model = ModelSpec.parse("mlp:8,4").build(new ReferenceBackend(), 2, 2, initSeed)) {
            new Trainer(model, new Adam(), new TrainingConfig(3, 7, shuffleSeed)).train(data);
            float[] p = new float[model.parameterCount()];
            model.copyParametersTo(p);
            return p;
        }
    }

    @Test
    void sameSeedsGiveBitIdenticalTrainedParameters() {
        float[] a = trainedParameters(1, 2);
        float[] b = trainedParameters(1, 2);
        for (int i = 0; i < a.length; i++) {
            assertThat(Float.floatToRawIntBits(b[i])).as("parameter %d", i).isEqualTo(Float.floatToRawIntBits(a[i]));
        }
        assertThat(trainedParameters(1, 3)).as("another shuffle seed").isNotEqualTo(a);
        assertThat(trainedParameters(4, 2)).as("another init seed").isNotEqualTo(a);
    }

    @Test
    void listenersSeeEveryStepWithItsEpochAndBatch() {
        Dataset data = separable(1, 10, 3);
        List<TrainingStep> seen = new ArrayList<>();
        float[] snapshot;
        try (Sequential model = ModelSpec.parse("logreg").build(backend, 3, 2, 1)) {
            Trainer trainer = new Trainer(model, new Sgd(), new TrainingConfig(2, 4, 1));
            trainer.addStepListener(seen::add);
            float[] last = new float[model.parameterCount()];
            trainer.addStepListener(step -> step.model().copyParametersTo(last));
            trainer.train(data);
            snapshot = new float[model.parameterCount()];
            model.copyParametersTo(snapshot);
            assertThat(last).as("the listener sees the updated parameters").containsExactly(snapshot);
            // A second run continues the step and epoch counts.
            trainer.train(data);
            assertThat(trainer.steps()).isEqualTo(12);
        }
        assertThat(seen)
                .extracting(TrainingStep::step)
                .containsExactly(1L, 2L, 3L, 4L, 5L, 6L, 7L, 8L, 9L, 10L, 11L, 12L);
        assertThat(seen).extracting(TrainingStep::epoch).containsExactly(1, 1, 1, 2, 2, 2, 3, 3, 3, 4, 4, 4);
        assertThat(seen).extracting(TrainingStep::batchSize).containsExactly(4, 4, 2, 4, 4, 2, 4, 4, 2, 4, 4, 2);
        assertThat(seen).allSatisfy(s -> assertThat(s.loss()).isPositive().isFinite());
    }

    @Test
    void aListenerMayReplaceTheParameters() {
        // The averaging engine merges the flat vector in a listener; the next step must start from it.
        Dataset data = separable(1, 8, 2);
        try (Sequential model = ModelSpec.parse("logreg").build(backend, 2, 2, 1)) {
            float[] zeros = new float[model.parameterCount()];
            List<Float> losses = new ArrayList<>();
            Trainer trainer = new Trainer(model, new Sgd(), new TrainingConfig(1, 2, 1));
            trainer.addStepListener(step -> {
                losses.add(step.loss());
                step.model().setParameters(zeros);
            });
            trainer.train(data);
            // Every step after the first started from zero parameters: loss exactly ln 2.
            assertThat(losses.subList(1, losses.size()))
                    .allSatisfy(l -> assertThat(l).isEqualTo((float) Math.log(2)));
        }
    }

    @Test
    void stopRequestsEndTheRunAfterTheCurrentStep() {
        Dataset data = separable(1, 40, 2);
        try (Sequential model = ModelSpec.parse("logreg").build(backend, 2, 2, 1)) {
            Trainer trainer = new Trainer(model, new Sgd(), new TrainingConfig(5, 4, 1));
            trainer.addStepListener(step -> {
                if (step.step() == 13) {
                    trainer.requestStop();
                }
            });
            TrainingStats stats = trainer.train(data);
            assertThat(stats.stopped()).isTrue();
            assertThat(stats.steps()).isEqualTo(13);
            assertThat(stats.epochs()).isEqualTo(1);
            assertThat(stats.samples()).isEqualTo(52);
        }
    }

    @Test
    void divergenceIsReportedWithTheStep() {
        Dataset data = separable(1, 16, 2);
        try (Sequential model = ModelSpec.parse("mlp:4").build(backend, 2, 2, 1)) {
            Trainer trainer = new Trainer(model, new Sgd(1e30f, 0f, 0f, false), new TrainingConfig(5, 4, 1));
            assertThatThrownBy(() -> trainer.train(data))
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageStartingWith("training diverged at step ")
                    .hasMessageEndingWith("; try a lower learning rate");
        }
    }

    @Test
    void dataThatDoesNotFitIsRejected() {
        try (Sequential model = ModelSpec.parse("logreg").build(backend, 3, 2, 1)) {
            Trainer trainer = new Trainer(model, new Sgd(), new TrainingConfig(1, 4, 1));
            assertThatThrownBy(() -> trainer.train(separable(1, 10, 4)))
                    .hasMessage("data has 4 features but the model expects 3");
            assertThatThrownBy(() -> trainer.train(dataset(new float[6], 2, 3, new int[] {0, 2}, 3)))
                    .hasMessage("data has 3 classes but the model predicts 2");
            assertThatThrownBy(() -> trainer.train(dataset(new float[0], 0, 3, new int[0], 2)))
                    .hasMessage("cannot train on an empty data set");
        }
        assertThatThrownBy(() -> new TrainingConfig(0, 4, 1)).hasMessage("epochs must be at least 1, got 0");
        assertThatThrownBy(() -> new TrainingConfig(1, 0, 1)).hasMessage("batch size must be at least 1, got 0");
    }

    @Test
    void timingsComeFromTheInjectedClock() {
        Dataset data = separable(1, 10, 2);
        long[] now = {0};
        try (Sequential model = ModelSpec.parse("logreg").build(backend, 2, 2, 1)) {
            TrainingStats stats = new Trainer(model, new Sgd(), new TrainingConfig(2, 5, 1))
                    .clock(() -> now[0] += 250_000_000L)
                    .train(data);
            // The clock advances 0.25 s per reading: one at the start, then per epoch one at its
            // start, one per step (2) and one at its end, and one at the finish: 10 readings.
            assertThat(stats.seconds()).isEqualTo(2.25);
            assertThat(stats.samplesPerSecond()).isEqualTo(20 / 2.25);
        }
    }
}
