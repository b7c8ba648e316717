package dev.chorus.learning.model;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import dev.chorus.learning.data.Dataset;
import dev.chorus.learning.tensor.Activation;
import dev.chorus.learning.tensor.Tensor;
import dev.chorus.learning.tensor.TensorBackend;
import dev.chorus.learning.tensor.reference.ReferenceBackend;
import java.util.Collections;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class SequentialTest {

    private final TensorBackend backend = new ReferenceBackend();

    private static float[] host(TensorBackend backend, Tensor t) {
        float[] out = new float[(int) t.size()];
        backend.copyToHost(t, out, 0);
        return out;
    }

    private Sequential twoLayerModel() {
        return new Sequential(
                backend,
                List.of(new Dense(3, 4), new ActivationLayer(Activation.TANH, 4), new Dense(4, 5)),
                new SoftmaxCrossEntropyLoss(backend, 5));
    }

    @Test
    void layersAreViewsIntoTheFlatVectorInOrderWeightsThenBias() {
        try (Sequential model = twoLayerModel()) {
            assertThat(model.parameterCount()).isEqualTo(3 * 4 + 4 + 4 * 5 + 5);
            assertThat(model.parameterOffset(0)).isZero();
            assertThat(model.parameterOffset(2)).isEqualTo(16);
            float[] flat = new float[model.parameterCount()];
            for (int i = 0; i < flat.length; i++) {
                flat[i] = i;
            }
            model.setParameters(flat);

            Dense first = (Dense) model.layers().get(0);
            Dense second = (Dense) model.layers().get(2);
            assertThat(host(backend, first.weights())).containsExactly(range(0, 12));
            assertThat(host(backend, first.bias())).containsExactly(range(12, 16));
            assertThat(host(backend, second.weights())).containsExactly(range(16, 36));
            assertThat(host(backend, second.bias())).containsExactly(range(36, 41));

            // Writing through a layer's view changes the flat vector, and the other way round.
            backend.fill(second.bias(), -1f);
            float[] back = new float[model.parameterCount()];
            model.copyParametersTo(back);
            assertThat(back[35]).isEqualTo(35f);
            assertThat(back[36]).isEqualTo(-1f);
            assertThat(back[40]).isEqualTo(-1f);
        }
    }

    private static float[] range(int from, int to) {
        float[] out = new float[to - from];
        for (int i = 0; i < out.length; i++) {
            out[i] = from + i;
        }
        return out;
    }

    @Test
    void forwardUsesTheFlatVector() {
        try (Sequential model =
                new Sequential(backend, List.of(new Dense(2, 2)), new SoftmaxCrossEntropyLoss(backend, 2))) {
            // W = [[1, 2], [3, 4]], b = [0.5, -0.5]; x = [1, -1] -> x W + b = [-1.5, -2.5]
            model.setParameters(new float[] {1, 2, 3, 4, 0.5f, -0.5f});
            Tensor logits = model.forward(backend.fromHost(new float[] {1, -1}, 1, 2));
            assertThat(host(backend, logits)).containsExactly(-1.5f, -2.5f);
        }
    }

    @Test
    void gradientsLandInTheLayersSliceOfTheFlatGradient() {
        try (Sequential model =
                new Sequential(backend, List.of(new Dense(2, 1)), new BinaryCrossEntropyLoss(backend))) {
            model.setParameters(new float[] {0, 0, 0});
            model.forward(backend.fromHost(new float[] {2, -3}, 1, 2));
            float loss = model.backward(new int[] {1}, 0);
            // sigmoid(0) = 0.5, dL/dz = 0.5 - 1 = -0.5; dW = x^T dz, db = dz
            assertThat(loss).isCloseTo((float) Math.log(2), within(1e-6f));
            float[] grad = new float[3];
            model.copyGradientsTo(grad);
            assertThat(grad).containsExactly(-1f, 1.5f, -0.5f);
        }
    }

    @Test
    void sameSeedGivesBitIdenticalParametersAndOtherSeedsDiffer() {
        ModelSpec spec = ModelSpec.parse("mlp:16,8");
        float[] a, b, c;
        try (Sequential m1 = spec.build(backend, 10, 3, 42);
                Sequential m2 = spec.build(new ReferenceBackend(), 10, 3, 42);
                Sequential m3 = spec.build(backend, 10, 3, 43)) {
            a = new float[m1.parameterCount()];
            b = new float[m2.parameterCount()];
            c = new float[m3.parameterCount()];
            m1.copyParametersTo(a);
            m2.copyParametersTo(b);
            m3.copyParametersTo(c);
        }
        for (int i = 0; i < a.length; i++) {
            assertThat(Float.floatToRawIntBits(a[i])).as("parameter %d", i).isEqualTo(Float.floatToRawIntBits(b[i]));
        }
        assertThat(c).isNotEqualTo(a);
    }

    @Test
    void reluLayersGetHeAndOthersGlorotWithZeroBiases() {
        int in = 400, hidden = 300;
        try (Sequential model = ModelSpec.parse("mlp:" + hidden).build(backend, in, 10, 7)) {
            assertThat(model.weightInitFor(0)).isEqualTo(WeightInit.HE_NORMAL);
            assertThat(model.weightInitFor(2)).isEqualTo(WeightInit.GLOROT_UNIFORM);
            float[] p = new float[model.parameterCount()];
            model.copyParametersTo(p);
            // Hidden weights: N(0, 2/in), so the sample variance of 120000 draws is within a few %.
            double mean = 0, var = 0;
            int n = in * hidden;
            for (int i = 0; i < n; i++) {
                mean += p[i];
            }
            mean /= n;
            for (int i = 0; i < n; i++) {
                var += (p[i] - mean) * (p[i] - mean);
            }
            var /= n;
            assertThat(mean).isCloseTo(0, within(0.002));
            assertThat(var).isCloseTo(2.0 / in, within(0.03 * 2.0 / in));
            for (int i = n; i < n + hidden; i++) {
                assertThat(p[i]).as("hidden bias %d", i - n).isZero();
            }
            // Output weights: U(-a, a), a = sqrt(6 / (300 + 10)); variance a^2 / 3.
            int start = model.parameterOffset(2), m = hidden * 10;
            double limit = Math.sqrt(6.0 / (hidden + 10));
            double max = 0, sq = 0;
            for (int i = start; i < start + m; i++) {
                max = Math.max(max, Math.abs(p[i]));
                sq += (double) p[i] * p[i];
            }
            assertThat(max).isLessThanOrEqualTo(limit).isGreaterThan(0.98 * limit);
            assertThat(sq / m).isCloseTo(limit * limit / 3, within(0.1 * limit * limit / 3));
            for (int i = start + m; i < p.length; i++) {
                assertThat(p[i]).isZero();
            }
        }
    }

    @Test
    void buffersAreReusedAcrossStepsOfTheSameBatchSize() {
        try (Sequential model = twoLayerModel()) {
            model.initialize(1);
            Tensor full = backend.zeros(8, 3);
            Tensor partial = backend.zeros(3, 3);
            Tensor first = model.forward(full);
            Tensor small = model.forward(partial);
            assertThat(model.forward(full)).isSameAs(first);
            assertThat(model.forward(partial)).isSameAs(small);
            assertThat(small.rows()).isEqualTo(3);
        }
    }

    @Test
    void probabilitiesAreRowsOfClassesAndChunkingDoesNotChangeThem() {
        int rows = Sequential.PREDICTION_BATCH + 44;
        SplittableRandom random = new SplittableRandom(5);
        float[] x = GradientCheck.uniform(random, rows * 3, -2, 2);
        try (Sequential model = twoLayerModel()) {
            model.initialize(3);
            float[] all = model.predictProbabilities(x, rows);
            assertThat(all).hasSize(rows * 5);
            for (int r = 0; r < rows; r++) {
                double sum = 0;
                for (int c = 0; c < 5; c++) {
                    assertThat(all[r * 5 + c]).isBetween(0f, 1f);
                    sum += all[r * 5 + c];
                }
                assertThat(sum).isCloseTo(1.0, within(1e-5));
            }
            float[] lastRow = new float[3];
            System.arraycopy(x, (rows - 1) * 3, lastRow, 0, 3);
            float[] single = model.predictProbabilities(lastRow, 1);
            float[] tail = new float[5];
            System.arraycopy(all, (rows - 1) * 5, tail, 0, 5);
            assertThat(single).containsExactly(tail);
        }
    }

    @Test
    void binaryModelsReportBothColumns() {
        try (Sequential model =
                new Sequential(backend, List.of(new Dense(1, 1)), new BinaryCrossEntropyLoss(backend))) {
            model.setParameters(new float[] {1, 0});
            float[] p = model.predictProbabilities(new float[] {0, 2}, 2);
            float s2 = (float) (1 / (1 + Math.exp(-2)));
            assertThat(p).containsExactly(new float[] {0.5f, 0.5f, 1 - s2, s2}, within(1e-6f));
        }
    }

    @Test
    void meanLossOverADataSet() {
        try (Sequential model =
                new Sequential(backend, List.of(new Dense(1, 1)), new BinaryCrossEntropyLoss(backend))) {
            model.setParameters(new float[] {0, 0});
            Dataset data = new Dataset(
                    new float[] {1, 2, 3}, 3, 1, new int[] {0, 1, 1}, 2, List.of("x"), List.of("no", "yes"));
            assertThat(model.meanLoss(data)).isCloseTo(Math.log(2), within(1e-6));
        }
    }

    @Test
    void badShapesAreRejectedWithTheReason() {
        assertThatThrownBy(() -> new Sequential(
                        backend, List.of(new Dense(3, 4), new Dense(5, 2)), new SoftmaxCrossEntropyLoss(backend, 2)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("expects 5 inputs")
                .hasMessageContaining("produces 4");
        assertThatThrownBy(() -> new Sequential(backend, List.of(new Dense(3, 2)), new BinaryCrossEntropyLoss(backend)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("loss expects 1 logits");
        assertThatThrownBy(() -> new Sequential(
                        backend,
                        List.of(new ActivationLayer(Activation.RELU, 2)),
                        new SoftmaxCrossEntropyLoss(backend, 2)))
                .hasMessageContaining("at least one layer with parameters");
        try (Sequential model = twoLayerModel()) {
            assertThatThrownBy(() -> model.setParameters(new float[3]))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessage("expected 41 parameters, got 3");
            assertThatThrownBy(() -> model.forward(backend.zeros(2, 4)))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("expects batch x 3 input, got 2x4");
            Dataset wrong = new Dataset(new float[4], 2, 2, new int[] {0, 1}, 2, List.of("a", "b"), List.of("n", "y"));
            assertThatThrownBy(() -> model.predictProbabilities(wrong))
                    .hasMessage("data has 2 features but the model expects 3");
            assertThatThrownBy(() -> model.backward(new int[] {7}, 0)).isInstanceOf(IllegalStateException.class);
        }
        assertThatThrownBy(() -> new Sequential(backend, Collections.emptyList(), new BinaryCrossEntropyLoss(backend)))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void outOfRangeLabelsAreNamed() {
        try (Sequential model = twoLayerModel()) {
            model.initialize(1);
            model.forward(backend.zeros(2, 3));
            assertThatThrownBy(() -> model.backward(new int[] {0, 5}, 0))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessage("label 5 at index 1 outside [0, 5)");
        }
    }
}
