package dev.chorus.cli;

import dev.chorus.learning.data.Dataset;
import dev.chorus.learning.data.Standardizer;
import dev.chorus.learning.eval.Evaluation;
import dev.chorus.learning.model.Sequential;
import dev.chorus.learning.tensor.TensorBackend;
import dev.chorus.learning.train.ProgressReporter;
import dev.chorus.learning.train.Trainer;
import dev.chorus.learning.train.TrainingConfig;
import dev.chorus.learning.train.TrainingStats;
import dev.chorus.node.setup.UserError;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * How to train one model for a number of epochs: {@link ModelOptions} ({@code --model}, {@code --optimizer}), {@code
 * --epochs}, {@link BatchOptions} ({@code --batch}) and {@link SeedOptions} ({@code --seed}), mixed in
 * ({@code @Mixin}) by {@code train} and {@code bench cv}. {@link #validate} checks every option before any work
 * starts, so that bad input fails fast; {@link #trainAndEvaluate} trains and scores one model with them.
 *
 * <p>{@code testnet} trains for a duration rather than for epochs: it mixes in the other three groups itself.
 */
public final class TrainingOptions {

    @Mixin
    ModelOptions modelOptions = new ModelOptions();

    @Option(
            names = "--epochs",
            paramLabel = "N",
            description = "Passes over the training data. Default: ${DEFAULT-VALUE}.")
    int epochs = 20;

    @Mixin
    BatchOptions batchOptions = new BatchOptions();

    @Mixin
    SeedOptions seedOptions = new SeedOptions();

    ModelOptions model() {
        return modelOptions;
    }

    int batch() {
        return batchOptions.batch;
    }

    long seed() {
        return seedOptions.seed;
    }

    TrainingConfig trainingConfig() {
        try {
            return new TrainingConfig(epochs, batch(), seed());
        } catch (IllegalArgumentException e) {
            throw new UserError(e.getMessage());
        }
    }

    /** Validates every option before any work starts, so that bad input fails fast. */
    void validate() {
        modelOptions.validate();
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
            net = modelOptions.modelSpec().build(backend, train.cols(), train.classes(), seed());
        } catch (IllegalArgumentException e) {
            throw new UserError(e.getMessage());
        }
        Trainer trainer = new Trainer(net, modelOptions.optimizerSpec().create(), trainingConfig()).progress(progress);
        TrainingStats stats = trainer.train(train);
        Evaluation evaluation = Evaluation.of(test.labels(), net.predictProbabilities(test), test.classes());
        return new Outcome(net, stats, evaluation);
    }
}
