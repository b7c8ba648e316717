package dev.chorus.learning.model;

import dev.chorus.learning.data.Dataset;
import dev.chorus.learning.tensor.Activation;
import dev.chorus.learning.tensor.Tensor;
import dev.chorus.learning.tensor.TensorBackend;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

/**
 * A chain of {@link Layer}s closed by a {@link Loss}, with every parameter in one flat {@code 1 x
 * parameterCount()} tensor and every gradient in another of the same size. Each layer works on
 * views of its slice (layers in order; within a layer, weights then bias), so the averaging engine,
 * checkpoints and secure aggregation see the whole model as one {@code float[]}.
 *
 * <p>One training step is {@link #forward(Tensor)}, {@link #backward(int[], int)} (which overwrites
 * {@link #gradients()}), then an optimizer step over {@link #parameters()} and {@link
 * #gradients()}. A model is not thread-safe: it belongs to the thread that trains it, and others
 * reach its parameters through {@link #copyParametersTo} and {@link #setParameters} on that thread
 * (the trainer's step listeners run there).
 */
public final class Sequential implements AutoCloseable {

    /** Rows per forward pass when predicting over a whole data set. */
    public static final int PREDICTION_BATCH = 256;

    private final TensorBackend backend;
    private final List<Layer> layers;
    private final Loss loss;
    private final int parameterCount;
    private final int[] offsets;
    private final Tensor parameters;
    private final Tensor gradients;
    private final BatchBuffer logitGradient;
    private final BatchBuffer predictionInput;
    private Tensor lastLogits;
    private boolean closed;

    /**
     * Binds {@code layers} to new, zero-filled flat parameter and gradient tensors; call {@link
     * #initialize(long)} before training. The model takes ownership of the layers and the loss.
     *
     * @throws IllegalArgumentException when consecutive layer sizes, or the last layer and the loss,
     *     do not fit together
     */
    public Sequential(TensorBackend backend, List<? extends Layer> layers, Loss loss) {
        if (backend == null || loss == null || layers == null || layers.isEmpty()) {
            throw new IllegalArgumentException("a model needs a backend, at least one layer and a loss");
        }
        this.backend = backend;
        this.layers = List.copyOf(layers);
        this.loss = loss;
        for (int i = 1; i < this.layers.size(); i++) {
            Layer before = this.layers.get(i - 1), after = this.layers.get(i);
            if (before.outputSize() != after.inputSize()) {
                throw new IllegalArgumentException("layer " + i + " (" + after.describe() + ") expects "
                        + after.inputSize() + " inputs, but layer " + (i - 1) + " (" + before.describe()
                        + ") produces " + before.outputSize());
            }
        }
        Layer last = this.layers.getLast();
        if (last.outputSize() != loss.logitWidth()) {
            throw new IllegalArgumentException("the last layer (" + last.describe() + ") produces " + last.outputSize()
                    + " outputs, but the loss expects " + loss.logitWidth() + " logits");
        }
        offsets = new int[this.layers.size()];
        long total = 0;
        for (int i = 0; i < this.layers.size(); i++) {
            offsets[i] = (int) total;
            total += this.layers.get(i).parameterCount();
            if (total > Integer.MAX_VALUE - 8) {
                throw new IllegalArgumentException("model has more than 2^31 parameters");
            }
        }
        if (total == 0) {
            throw new IllegalArgumentException("a model needs at least one layer with parameters");
        }
        parameterCount = (int) total;
        parameters = backend.zeros(1, parameterCount);
        gradients = backend.zeros(1, parameterCount);
        for (int i = 0; i < this.layers.size(); i++) {
            Layer layer = this.layers.get(i);
            int n = layer.parameterCount();
            if (n == 0) {
                layer.bind(backend, null, null);
            } else {
                layer.bind(
                        backend, backend.view(parameters, offsets[i], 1, n), backend.view(gradients, offsets[i], 1, n));
            }
        }
        logitGradient = new BatchBuffer(backend, loss.logitWidth());
        predictionInput = new BatchBuffer(backend, inputSize());
    }

    /**
     * Draws fresh parameters from {@code seed}: {@link WeightInit#HE_NORMAL} for layers followed by
     * a ReLU, {@link WeightInit#GLOROT_UNIFORM} for the others, zero biases. The same seed gives
     * bit-identical parameters.
     */
    public void initialize(long seed) {
        SplittableRandom random = new SplittableRandom(seed);
        float[] host = new float[parameterCount];
        for (int i = 0; i < layers.size(); i++) {
            layers.get(i).initialize(weightInitFor(i), random, host, offsets[i]);
        }
        backend.copyFromHost(host, 0, parameters);
    }

    /** The initialization {@link #initialize} uses for layer {@code index}. */
    public WeightInit weightInitFor(int index) {
        if (index + 1 < layers.size()
                && layers.get(index + 1) instanceof ActivationLayer a
                && a.function() == Activation.RELU) {
            return WeightInit.HE_NORMAL;
        }
        return WeightInit.GLOROT_UNIFORM;
    }

    public TensorBackend backend() {
        return backend;
    }

    public List<Layer> layers() {
        return layers;
    }

    public Loss loss() {
        return loss;
    }

    /** Floats per input sample. */
    public int inputSize() {
        return layers.getFirst().inputSize();
    }

    /** Classes of the task (also the width of {@link #predictProbabilities} rows). */
    public int classes() {
        return loss.classes();
    }

    public int parameterCount() {
        return parameterCount;
    }

    /** Where layer {@code index}'s slice starts in the flat vector. */
    public int parameterOffset(int index) {
        return offsets[index];
    }

    /** The flat {@code 1 x parameterCount()} parameter tensor; layers hold views into it. */
    public Tensor parameters() {
        return parameters;
    }

    /** The flat gradient tensor, laid out like {@link #parameters()}; written by backward. */
    public Tensor gradients() {
        return gradients;
    }

    /** Copies the parameters into {@code dst[0 .. parameterCount())}. */
    public void copyParametersTo(float[] dst) {
        checkHost(dst, "destination");
        backend.copyToHost(parameters, dst, 0);
    }

    /** Copies the gradients of the last backward pass into {@code dst[0 .. parameterCount())}. */
    public void copyGradientsTo(float[] dst) {
        checkHost(dst, "destination");
        backend.copyToHost(gradients, dst, 0);
    }

    /** Replaces every parameter with {@code src}, which must hold exactly {@code parameterCount()}. */
    public void setParameters(float[] src) {
        if (src == null || src.length != parameterCount) {
            throw new IllegalArgumentException("expected " + parameterCount + " parameters, got "
                    + (src == null ? "null" : String.valueOf(src.length)));
        }
        backend.copyFromHost(src, 0, parameters);
    }

    private void checkHost(float[] dst, String what) {
        if (dst == null || dst.length < parameterCount) {
            throw new IllegalArgumentException(what + " must hold " + parameterCount + " floats, got "
                    + (dst == null ? "null" : String.valueOf(dst.length)));
        }
    }

    /** The logits ({@code batch x loss().logitWidth()}) of a {@code batch x inputSize()} input. */
    public Tensor forward(Tensor batch) {
        Tensor x = batch;
        for (Layer layer : layers) {
            x = layer.forward(x);
        }
        lastLogits = x;
        return x;
    }

    /**
     * Scores the last forward pass against {@code labels[offset .. offset + batch)}, writes the
     * gradient of the mean loss into {@link #gradients()}, and returns that mean loss.
     */
    public float backward(int[] labels, int offset) {
        if (lastLogits == null) {
            throw new IllegalStateException("backward before forward");
        }
        Tensor g = logitGradient.rows(lastLogits.rows());
        float value = loss.lossAndGradient(lastLogits, labels, offset, g);
        backward(g);
        return value;
    }

    /**
     * Back-propagates a given gradient with respect to the last logits through every layer, writing
     * {@link #gradients()}. The input gradient of the first layer is not computed.
     */
    public void backward(Tensor gradLogits) {
        Tensor g = gradLogits;
        for (int i = layers.size() - 1; i >= 0; i--) {
            g = layers.get(i).backward(g, i > 0);
        }
    }

    /**
     * Class probabilities of {@code rows} samples in {@code features} (row-major, {@code
     * inputSize()} per row): {@code rows x classes()} floats, row-major. For binary tasks (one
     * logit) each row is {@code [1 - p, p]} with {@code p = P(class 1)}.
     */
    public float[] predictProbabilities(float[] features, int rows) {
        int width = inputSize();
        if (rows < 0 || features == null || (long) rows * width > features.length) {
            throw new IllegalArgumentException(rows + " rows of " + width + " features need " + (long) rows * width
                    + " floats, got " + (features == null ? "null" : features.length));
        }
        float[] out = new float[rows * classes()];
        for (int start = 0; start < rows; start += PREDICTION_BATCH) {
            int n = Math.min(PREDICTION_BATCH, rows - start);
            Tensor x = predictionInput.rows(n);
            backend.copyFromHost(features, start * width, x);
            loss.probabilities(forward(x), out, start * classes());
        }
        lastLogits = null;
        return out;
    }

    /** {@link #predictProbabilities(float[], int)} over every row of a data set. */
    public float[] predictProbabilities(Dataset data) {
        checkData(data);
        return predictProbabilities(data.features(), data.rows());
    }

    /** The mean loss over a data set, without touching the gradients. */
    public double meanLoss(Dataset data) {
        checkData(data);
        int width = inputSize();
        double total = 0;
        for (int start = 0; start < data.rows(); start += PREDICTION_BATCH) {
            int n = Math.min(PREDICTION_BATCH, data.rows() - start);
            Tensor x = predictionInput.rows(n);
            backend.copyFromHost(data.features(), start * width, x);
            total += (double) loss.lossAndGradient(forward(x), data.labels(), start, null) * n;
        }
        lastLogits = null;
        return data.rows() == 0 ? Double.NaN : total / data.rows();
    }

    /** Fails with a one-line message unless {@code data} has this model's features and classes. */
    public void checkData(Dataset data) {
        if (data.cols() != inputSize()) {
            throw new IllegalArgumentException(
                    "data has " + data.cols() + " features but the model expects " + inputSize());
        }
        if (data.classes() != classes()) {
            throw new IllegalArgumentException(
                    "data has " + data.classes() + " classes but the model predicts " + classes());
        }
    }

    /** One line per layer with its parameter count, then the total. */
    public String describe() {
        List<String> lines = new ArrayList<>();
        for (int i = 0; i < layers.size(); i++) {
            Layer layer = layers.get(i);
            lines.add(layer.describe() + (layer.parameterCount() > 0 ? " (" + layer.parameterCount() + ")" : ""));
        }
        lines.add(loss.getClass().getSimpleName() + ", " + parameterCount + " parameters");
        return String.join("\n", lines);
    }

    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        for (Layer layer : layers) {
            layer.close();
        }
        loss.close();
        logitGradient.close();
        predictionInput.close();
        parameters.close();
        gradients.close();
    }
}
