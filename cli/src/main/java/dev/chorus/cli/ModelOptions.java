package dev.chorus.cli;

import dev.chorus.learning.data.Dataset;
import dev.chorus.learning.data.Standardizer;
import dev.chorus.learning.eval.Evaluation;
import dev.chorus.learning.model.ModelSpec;
import dev.chorus.learning.model.Sequential;
import dev.chorus.learning.optim.OptimizerSpec;
import dev.chorus.learning.tensor.TensorBackend;
import dev.chorus.learning.train.ProgressReporter;
import dev.chorus.learning.train.Trainer;
import dev.chorus.learning.train.TrainingConfig;
import dev.chorus.learning.train.TrainingStats;
import dev.chorus.node.setup.UserError;
import picocli.CommandLine.Option;

/**
 * What to train and how: model, optimizer, epochs, batch size and seed, mixed in ({@code @Mixin}) by {@code train}
 * and {@code bench cv}. {@link #validate} checks every option before any work starts, so that bad input fails fast;
 * {@link #trainAndEvaluate} trains and scores one model with them.
 *
 * <p>{@code testnet} trains for a duration rather than for epochs, and {@code bench train} times lists of batch
 * sizes: each declares its model options itself.
 */
public final class ModelOptions {

    @Option(
            names = "--model",
            paramLabel = "SPEC",
            description = "logreg, mlp:H[,H...][:relu|tanh|sigmoid] or cnn. Default: ${DEFAULT-VALUE}.")
    String model = "logreg";

    @Option(
            names = "--optimizer",
            paramLabel = "SPEC",
            description = "sgd[:lr=..,momentum=..,nesterov=..,weight_decay=..] or adam[:lr=..,beta1=..,beta2=..,eps=..,"
                    + "weight_decay=..]. Default: ${DEFAULT-VALUE}.")
    String optimizer = "sgd:lr=0.01,momentum=0.9";

    @Option(
            names = "--epochs",
            paramLabel = "N",
            description = "Passes over the training data. Default: ${DEFAULT-VALUE}.")
    int epochs = 20;

    @Option(names = "--batch", paramLabel = "N", description = "Mini-batch size. Default: ${DEFAULT-VALUE}.")
    int batch = 32;

    @Option(
            names = "--seed",
            paramLabel = "S",
            description = "Seed of the split, initialization and shuffling. Default: ${DEFAULT-VALUE}.")
    long seed = 42;

    ModelSpec modelSpec() {
        try {
            return ModelSpec.parse(model);
        } catch (IllegalArgumentException e) {
            throw new UserError(e.getMessage());
        }
    }

    OptimizerSpec optimizerSpec() {
        try {
            return OptimizerSpec.parse(optimizer);
        } catch (IllegalArgumentException e) {
            throw new UserError("--optimizer: " + e.getMessage());
        }
    }

    TrainingConfig trainingConfig() {
        try {
            return new TrainingConfig(epochs, batch, seed);
        } catch (IllegalArgumentException e) {
            throw new UserError(e.getMessage());
        }
    }

    /** Validates every option before any work starts, so that bad input fails fast. */
    void validate() {
        modelSpec();
        optimizerSpec();
        trainingConfig();
    }

    /** The result of one training run evaluated on held-out data. */
    record Outcome(Sequential model, TrainingStats stats, Evaluation evaluation) {}

    /**
     * Standardizes (when asked) with statistics of {@code train} only, trains a fresh model on
     * {@code train}, and evaluates it on {@code test}. The caller closes the returned model.
     */
    Outcome trainAndEvaluate(
            TensorBackend backend, Dataset train, Dataset test, boolean standardize, ProgressReporter progress) {
        if (standardize) {
            Standardizer s = Standardizer.fit(train);
            train = s.apply(train);
            test = s.apply(test);
        }
        Sequential net;
        try {
            net = modelSpec().build(backend, train.cols(), train.classes(), seed);
        } catch (IllegalArgumentException e) {
            throw new UserError(e.getMessage());
        }
        Trainer trainer = new Trainer(net, optimizerSpec().create(), trainingConfig()).progress(progress);
        TrainingStats stats = trainer.train(train);
        Evaluation evaluation = Evaluation.of(test.labels(), net.predictProbabilities(test), test.classes());
        return new Outcome(net, stats, evaluation);
    }
}
