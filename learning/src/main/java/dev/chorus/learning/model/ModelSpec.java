package dev.chorus.learning.model;

import dev.chorus.learning.tensor.Activation;
import dev.chorus.learning.tensor.ConvGeometry;
import dev.chorus.learning.tensor.PoolGeometry;
import dev.chorus.learning.tensor.TensorBackend;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The architecture named on the command line, independent of the data it will meet:
 *
 * <ul>
 *   <li>{@code logreg}: logistic (binary) or multinomial (multi-class) regression, one dense
 *       layer;
 *   <li>{@code mlp:H[,H...][:relu|tanh|sigmoid]}: dense hidden layers of the given widths, each
 *       followed by the activation (ReLU by default), then a dense output layer;
 *   <li>{@code cnn}: for square single-channel images (28x28x1 for MNIST): conv 5x5x16 pad 2, ReLU,
 *       max-pool 2, conv 5x5x32 pad 2, ReLU, max-pool 2, dense output (LeCun et al., "Gradient-based
 *       learning applied to document recognition", 1998, in its modern ReLU/max-pool form).
 * </ul>
 *
 * Every model ends in one logit and a {@link BinaryCrossEntropyLoss} for two classes, or one logit
 * per class and a {@link SoftmaxCrossEntropyLoss} otherwise.
 *
 * @param hidden widths of the hidden layers ({@code mlp} only; empty otherwise)
 * @param activation the hidden activation ({@code mlp}; ReLU for {@code cnn}; unused for logreg)
 */
public record ModelSpec(Kind kind, List<Integer> hidden, Activation activation) {

    /** The architecture families. */
    public enum Kind {
        LOGREG,
        MLP,
        CNN
    }

    private static final String EXPECTED = "expected logreg, mlp:H[,H...][:relu|tanh|sigmoid] or cnn";

    /** Filters of the two convolutions of {@code cnn}. */
    private static final int CNN_FILTERS_1 = 16, CNN_FILTERS_2 = 32;

    public ModelSpec {
        if (kind == null || activation == null) {
            throw new IllegalArgumentException("model spec needs a kind and an activation");
        }
        hidden = List.copyOf(hidden);
        if (kind == Kind.MLP && hidden.isEmpty()) {
            throw new IllegalArgumentException("an mlp needs at least one hidden layer");
        }
        if (kind != Kind.MLP && !hidden.isEmpty()) {
            throw new IllegalArgumentException(kind + " takes no hidden widths");
        }
        for (int width : hidden) {
            if (width <= 0) {
                throw new IllegalArgumentException("hidden widths must be positive, got " + width);
            }
        }
        if (activation == Activation.IDENTITY) {
            throw new IllegalArgumentException("hidden activation must be relu, tanh or sigmoid");
        }
    }

    /**
     * Parses the command-line form (case-insensitive, surrounding blanks ignored).
     *
     * @throws IllegalArgumentException naming the bad part of {@code text}
     */
    public static ModelSpec parse(String text) {
        if (text == null) {
            throw new IllegalArgumentException("missing model spec; " + EXPECTED);
        }
        String spec = text.trim().toLowerCase(Locale.ROOT);
        if (spec.equals("logreg")) {
            return new ModelSpec(Kind.LOGREG, List.of(), Activation.RELU);
        }
        if (spec.equals("cnn")) {
            return new ModelSpec(Kind.CNN, List.of(), Activation.RELU);
        }
        if (spec.equals("mlp") || spec.equals("mlp:")) {
            throw new IllegalArgumentException(
                    "model spec '" + text + "' needs hidden widths, e.g. mlp:64 or mlp:64,32:tanh");
        }
        if (!spec.startsWith("mlp:")) {
            throw new IllegalArgumentException("unknown model spec '" + text + "'; " + EXPECTED);
        }
        String[] parts = spec.substring(4).split(":", -1);
        if (parts.length > 2) {
            throw new IllegalArgumentException("unknown model spec '" + text + "'; " + EXPECTED);
        }
        List<Integer> widths = new ArrayList<>();
        for (String w : parts[0].split(",", -1)) {
            int width;
            try {
                width = Integer.parseInt(w.trim());
            } catch (NumberFormatException e) {
                width = -1;
            }
            if (width <= 0) {
                throw new IllegalArgumentException(
                        "hidden width '" + w + "' in model spec '" + text + "' is not a positive integer");
            }
            widths.add(width);
        }
        Activation activation = Activation.RELU;
        if (parts.length == 2) {
            activation = switch (parts[1].trim()) {
                case "relu" -> Activation.RELU;
                case "tanh" -> Activation.TANH;
                case "sigmoid" -> Activation.SIGMOID;
                default ->
                    throw new IllegalArgumentException("unknown activation '" + parts[1] + "' in model spec '" + text
                            + "'; expected relu, tanh or sigmoid");
            };
        }
        return new ModelSpec(Kind.MLP, widths, activation);
    }

    /**
     * Builds and initializes the model for data of {@code features} columns and {@code classes}
     * classes.
     *
     * @throws IllegalArgumentException when the architecture does not fit the data (e.g. {@code cnn}
     *     on data that is not square single-channel images)
     */
    public Sequential build(TensorBackend backend, int features, int classes, long seed) {
        if (features <= 0) {
            throw new IllegalArgumentException("need at least one feature, got " + features);
        }
        if (classes < 2) {
            throw new IllegalArgumentException("need at least 2 classes, got " + classes);
        }
        int logits = classes == 2 ? 1 : classes;
        List<Layer> layers = new ArrayList<>();
        switch (kind) {
            case LOGREG -> layers.add(new Dense(features, logits));
            case MLP -> {
                int in = features;
                for (int width : hidden) {
                    layers.add(new Dense(in, width));
                    layers.add(new ActivationLayer(activation, width));
                    in = width;
                }
                layers.add(new Dense(in, logits));
            }
            case CNN -> cnnLayers(features, logits, layers);
        }
        Loss loss = classes == 2 ? new BinaryCrossEntropyLoss(backend) : new SoftmaxCrossEntropyLoss(backend, classes);
        Sequential model = new Sequential(backend, layers, loss);
        model.initialize(seed);
        return model;
    }

    private static void cnnLayers(int features, int logits, List<Layer> layers) {
        int side = (int) Math.round(Math.sqrt(features));
        if (side * side != features || side < 4) {
            throw new IllegalArgumentException("model spec 'cnn' expects square single-channel images of at least"
                    + " 4x4 (e.g. 28x28x1 = 784 features), but the data has " + features + " features");
        }
        ConvGeometry conv1 = new ConvGeometry(side, side, 1, 5, 5, 1, 2);
        layers.add(new Conv2d(conv1, CNN_FILTERS_1));
        layers.add(new ActivationLayer(Activation.RELU, layers.getLast().outputSize()));
        PoolGeometry pool1 = new PoolGeometry(conv1.outHeight(), conv1.outWidth(), CNN_FILTERS_1, 2, 2);
        layers.add(new MaxPool2d(pool1));
        ConvGeometry conv2 = new ConvGeometry(pool1.outHeight(), pool1.outWidth(), CNN_FILTERS_1, 5, 5, 1, 2);
        layers.add(new Conv2d(conv2, CNN_FILTERS_2));
        layers.add(new ActivationLayer(Activation.RELU, layers.getLast().outputSize()));
        PoolGeometry pool2 = new PoolGeometry(conv2.outHeight(), conv2.outWidth(), CNN_FILTERS_2, 2, 2);
        layers.add(new MaxPool2d(pool2));
        layers.add(new Dense(pool2.outputSize(), logits));
    }

    /** The canonical command-line form, which {@link #parse} accepts. */
    @Override
    public String toString() {
        return switch (kind) {
            case LOGREG -> "logreg";
            case CNN -> "cnn";
            case MLP ->
                "mlp:" + String.join(",", hidden.stream().map(String::valueOf).toList()) + ":"
                        + activation.name().toLowerCase(Locale.ROOT);
        };
    }
}
