package dev.chorus.learning.model;

import static dev.chorus.learning.model.GradientCheck.EPS;
import static dev.chorus.learning.model.GradientCheck.assertAgree;
import static dev.chorus.learning.model.GradientCheck.uniform;
import static org.assertj.core.api.Assertions.assertThat;

import dev.chorus.learning.tensor.Activation;
import dev.chorus.learning.tensor.ConvGeometry;
import dev.chorus.learning.tensor.PoolGeometry;
import dev.chorus.learning.tensor.Tensor;
import dev.chorus.learning.tensor.TensorBackend;
import dev.chorus.learning.tensor.reference.ReferenceBackend;
import java.util.SplittableRandom;
import java.util.stream.IntStream;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Central-difference gradient checks of every layer and loss on the reference backend, for input
 * and parameter gradients, over seeded random inputs (tolerances in {@link GradientCheck}).
 */
class GradientCheckPropertyTest {

    /**
     * A smaller step for the whole CNN: one first-layer weight moves every pre-activation of the
     * image, and a step of 1e-2 often carries one across a ReLU kink or a max-pool switch. At 1e-3
     * the float rounding of the loss adds about 4e-5, still inside the tolerance.
     */
    private static final float CNN_EPS = 1e-3f;

    private final TensorBackend backend = new ReferenceBackend();

    @ParameterizedTest(name = "seed {0}")
    @ValueSource(longs = {1, 2, 3})
    void denseGradients(long seed) {
        SplittableRandom random = new SplittableRandom(seed);
        Dense dense = new Dense(4, 5);
        int batch = 3;
        var g = GradientCheck.layer(
                backend,
                dense,
                uniform(random, batch * 4, -1, 1),
                batch,
                uniform(random, dense.parameterCount(), -1, 1),
                random);
        assertAgree("dense input, seed " + seed, g.inputAnalytic(), g.inputNumeric());
        assertAgree("dense parameters, seed " + seed, g.paramAnalytic(), g.paramNumeric());
    }

    @ParameterizedTest(name = "seed {0}")
    @ValueSource(longs = {1, 2, 3})
    void checkerRejectsAWrongGradient(long seed) {
        SplittableRandom random = new SplittableRandom(seed);
        Dense dense = new Dense(3, 2);
        var g = GradientCheck.layer(
                backend,
                dense,
                uniform(random, 2 * 3, -1, 1),
                2,
                uniform(random, dense.parameterCount(), -1, 1),
                random);
        float[] wrong = g.paramAnalytic().clone();
        int largest = 0;
        for (int i = 1; i < wrong.length; i++) {
            if (Math.abs(wrong[i]) > Math.abs(wrong[largest])) {
                largest = i;
            }
        }
        wrong[largest] *= 1.05f;
        assertThat(GradientCheck.firstMismatch(g.paramAnalytic(), g.paramNumeric()))
                .isEqualTo(-1);
        assertThat(GradientCheck.firstMismatch(wrong, g.paramNumeric())).isEqualTo(largest);
    }

    static Stream<Arguments> activations() {
        return Stream.of(Activation.RELU, Activation.TANH, Activation.SIGMOID)
                .flatMap(a -> Stream.of(1L, 2L, 3L).map(seed -> Arguments.of(a, seed)));
    }

    @ParameterizedTest(name = "{0} seed {1}")
    @MethodSource("activations")
    void activationGradients(Activation function, long seed) {
        SplittableRandom random = new SplittableRandom(seed);
        int batch = 3, width = 6;
        float[] x = new float[batch * width];
        for (int i = 0; i < x.length; i++) {
            // Magnitudes of at least 5 eps keep every perturbation on one side of ReLU's kink.
            double magnitude = 5 * EPS + random.nextDouble() * 2;
            x[i] = (float) (random.nextBoolean() ? magnitude : -magnitude);
        }
        var g = GradientCheck.layer(backend, new ActivationLayer(function, width), x, batch, new float[0], random);
        assertAgree(function + " input, seed " + seed, g.inputAnalytic(), g.inputNumeric());
        assertThat(g.paramAnalytic()).isEmpty();
    }

    static Stream<Arguments> convolutions() {
        // height, width, channels, kernel h, kernel w, stride, padding, filters
        int[][] shapes = {
            {5, 5, 1, 3, 3, 1, 0, 2},
            {5, 5, 2, 3, 3, 1, 1, 3},
            {6, 7, 2, 3, 2, 2, 1, 2},
            {7, 7, 3, 5, 5, 2, 2, 2},
            {4, 4, 2, 1, 1, 1, 0, 3},
            {5, 4, 1, 2, 3, 3, 2, 2},
        };
        return Stream.of(shapes).flatMap(s -> Stream.of(1L, 2L).map(seed -> Arguments.of(s, seed)));
    }

    @ParameterizedTest(name = "shape {0} seed {1}")
    @MethodSource("convolutions")
    void conv2dGradients(int[] s, long seed) {
        SplittableRandom random = new SplittableRandom(seed);
        ConvGeometry geometry = new ConvGeometry(s[0], s[1], s[2], s[3], s[4], s[5], s[6]);
        Conv2d conv = new Conv2d(geometry, s[7]);
        int batch = 2;
        var g = GradientCheck.layer(
                backend,
                conv,
                uniform(random, batch * geometry.inputSize(), -1, 1),
                batch,
                uniform(random, conv.parameterCount(), -1, 1),
                random);
        String what = conv.describe() + ", seed " + seed;
        assertAgree(what + " input", g.inputAnalytic(), g.inputNumeric());
        assertAgree(what + " parameters", g.paramAnalytic(), g.paramNumeric());
    }

    static Stream<Arguments> pools() {
        // height, width, channels, size, stride
        int[][] shapes = {{4, 4, 2, 2, 2}, {5, 5, 1, 2, 1}, {6, 5, 3, 3, 2}, {3, 3, 1, 3, 1}};
        return Stream.of(shapes).flatMap(s -> Stream.of(1L, 2L).map(seed -> Arguments.of(s, seed)));
    }

    @ParameterizedTest(name = "shape {0} seed {1}")
    @MethodSource("pools")
    void maxPoolGradients(int[] s, long seed) {
        SplittableRandom random = new SplittableRandom(seed);
        PoolGeometry geometry = new PoolGeometry(s[0], s[1], s[2], s[3], s[4]);
        int batch = 2;
        // Distinct values 0.05 apart: no perturbation of 2 eps can change which input is a maximum.
        int n = batch * geometry.inputSize();
        float[] x = new float[n];
        int[] perm = permutation(random, n);
        for (int i = 0; i < n; i++) {
            x[i] = (perm[i] - n / 2f) * 0.05f;
        }
        MaxPool2d pool = new MaxPool2d(geometry);
        var g = GradientCheck.layer(backend, pool, x, batch, new float[0], random);
        assertAgree(pool.describe() + ", seed " + seed, g.inputAnalytic(), g.inputNumeric());
    }

    private static int[] permutation(SplittableRandom random, int n) {
        int[] p = new int[n];
        for (int i = 0; i < n; i++) {
            p[i] = i;
        }
        for (int i = n - 1; i > 0; i--) {
            int j = random.nextInt(i + 1);
            int t = p[i];
            p[i] = p[j];
            p[j] = t;
        }
        return p;
    }

    static Stream<Arguments> softmaxCases() {
        return Stream.of(3, 5).flatMap(classes -> Stream.of(1L, 2L, 3L).map(seed -> Arguments.of(classes, seed)));
    }

    @ParameterizedTest(name = "{0} classes, seed {1}")
    @MethodSource("softmaxCases")
    void softmaxCrossEntropyGradients(int classes, long seed) {
        SplittableRandom random = new SplittableRandom(seed);
        int batch = 4;
        int[] labels = random.ints(batch, 0, classes).toArray();
        checkLoss(new SoftmaxCrossEntropyLoss(backend, classes), batch, classes, labels, random, seed);
    }

    @ParameterizedTest(name = "seed {0}")
    @ValueSource(longs = {1, 2, 3})
    void binaryCrossEntropyGradients(long seed) {
        SplittableRandom random = new SplittableRandom(seed);
        int batch = 5;
        int[] labels = random.ints(batch, 0, 2).toArray();
        checkLoss(new BinaryCrossEntropyLoss(backend), batch, 1, labels, random, seed);
    }

    private void checkLoss(Loss loss, int batch, int width, int[] labels, SplittableRandom random, long seed) {
        float[] z = uniform(random, batch * width, -4, 4);
        Tensor logits = backend.fromHost(z, batch, width);
        Tensor grad = backend.zeros(batch, width);
        loss.lossAndGradient(logits, labels, 0, grad);
        float[] analytic = new float[z.length];
        backend.copyToHost(grad, analytic, 0);
        double[] numeric = new double[z.length];
        for (int i = 0; i < z.length; i++) {
            float saved = z[i];
            z[i] = saved + EPS;
            backend.copyFromHost(z, 0, logits);
            double plus = loss.lossAndGradient(logits, labels, 0, null);
            z[i] = saved - EPS;
            backend.copyFromHost(z, 0, logits);
            double minus = loss.lossAndGradient(logits, labels, 0, null);
            z[i] = saved;
            numeric[i] = (plus - minus) / (2 * EPS);
        }
        backend.copyFromHost(z, 0, logits);
        assertAgree(loss.getClass().getSimpleName() + ", seed " + seed, analytic, numeric);
    }

    @ParameterizedTest(name = "seed {0}")
    @ValueSource(longs = {1, 2})
    void wholeMlpGradients(long seed) {
        SplittableRandom random = new SplittableRandom(seed);
        try (Sequential model = ModelSpec.parse("mlp:6,5:tanh").build(backend, 4, 3, seed)) {
            int batch = 4;
            float[] x = uniform(random, batch * 4, -1, 1);
            int[] labels = random.ints(batch, 0, 3).toArray();
            checkModel(model, x, batch, labels, allIndices(model.parameterCount()), EPS, false, "mlp, seed " + seed);
        }
    }

    @ParameterizedTest(name = "seed {0}")
    @ValueSource(longs = {1, 2, 3})
    void wholeCnnGradients(long seed) {
        SplittableRandom random = new SplittableRandom(seed);
        // The cnn spec on 8x8 images, binary; 60 sampled parameters of each layer keep it fast.
        try (Sequential model = ModelSpec.parse("cnn").build(backend, 64, 2, seed)) {
            int batch = 2;
            float[] x = uniform(random, batch * 64, 0, 1);
            int[] labels = {0, 1};
            IntStream.Builder indices = IntStream.builder();
            for (int i = 0; i < model.layers().size(); i++) {
                int count = model.layers().get(i).parameterCount();
                int offset = model.parameterOffset(i);
                if (count > 0) {
                    random.ints(60, 0, count).forEach(k -> indices.add(offset + k));
                }
            }
            checkModel(model, x, batch, labels, indices.build().toArray(), CNN_EPS, true, "cnn, seed " + seed);
        }
    }

    private static int[] allIndices(int n) {
        int[] all = new int[n];
        for (int i = 0; i < n; i++) {
            all[i] = i;
        }
        return all;
    }

    /**
     * Model loss gradient against finite differences on the chosen flat-vector coordinates. With
     * {@code kinksAllowed}, a coordinate whose central difference disagrees passes if a one-sided
     * difference agrees: a ReLU kink or max-pool switch then lies in the other half-interval. One
     * pre-activation near zero breaks the central difference of every weight of its filter, so up
     * to a quarter of the coordinates may need that (seed 1 needs 19 of 180, all in the first
     * convolution, each matching one side to about 1e-4); the rest must pass as they are.
     */
    private void checkModel(
            Sequential model,
            float[] x,
            int batch,
            int[] labels,
            int[] indices,
            float eps,
            boolean kinksAllowed,
            String what) {
        Tensor input = backend.fromHost(x, batch, model.inputSize());
        model.forward(input);
        model.backward(labels, 0);
        float[] all = new float[model.parameterCount()];
        model.copyGradientsTo(all);
        float[] params = new float[model.parameterCount()];
        model.copyParametersTo(params);
        double base = model.loss().lossAndGradient(model.forward(input), labels, 0, null);
        float[] analytic = new float[indices.length];
        double[] numeric = new double[indices.length];
        int oneSided = 0;
        for (int k = 0; k < indices.length; k++) {
            int i = indices[k];
            analytic[k] = all[i];
            float saved = params[i];
            params[i] = saved + eps;
            model.setParameters(params);
            double plus = model.loss().lossAndGradient(model.forward(input), labels, 0, null);
            params[i] = saved - eps;
            model.setParameters(params);
            double minus = model.loss().lossAndGradient(model.forward(input), labels, 0, null);
            params[i] = saved;
            numeric[k] = (plus - minus) / (2 * eps);
            if (kinksAllowed
                    && GradientCheck.firstMismatch(new float[] {analytic[k]}, new double[] {numeric[k]}) >= 0) {
                for (double side : new double[] {(plus - base) / eps, (base - minus) / eps}) {
                    if (GradientCheck.firstMismatch(new float[] {analytic[k]}, new double[] {side}) < 0) {
                        numeric[k] = side;
                        oneSided++;
                        break;
                    }
                }
            }
        }
        model.setParameters(params);
        assertAgree(what, analytic, numeric);
        assertThat(oneSided)
                .as(what + ": coordinates passed on a one-sided difference")
                .isLessThanOrEqualTo(indices.length / 4);
    }
}
