package dev.chorus.cli;

import dev.chorus.learning.model.ModelSpec;
import dev.chorus.learning.optim.OptimizerSpec;
import dev.chorus.node.setup.UserError;
import picocli.CommandLine.Option;

/**
 * What model to train, and with which optimizer: {@code --model} and {@code --optimizer}, mixed in ({@code @Mixin})
 * through {@link TrainingOptions} by {@code train} and {@code bench cv}, and directly by {@code bench train} and
 * {@code testnet}. {@link #modelSpec} and {@link #optimizerSpec} parse them, with the errors worded for these
 * options.
 *
 * <p>A command whose default model is not {@code logreg} passes its own to {@link #ModelOptions(String)} ({@code
 * bench train}: {@code mlp:256,256}): picocli takes the field's value when the command is built as the option's
 * default, shows it as {@code ${DEFAULT-VALUE}}, and sets the field back to it before every parse.
 */
public final class ModelOptions {

    @Option(
            names = "--model",
            paramLabel = "SPEC",
            description = "logreg, mlp:H[,H...][:relu|tanh|sigmoid] or cnn. Default: ${DEFAULT-VALUE}.")
    String model;

    @Option(
            names = "--optimizer",
            paramLabel = "SPEC",
            description = "sgd[:lr=..,momentum=..,nesterov=..,weight_decay=..] or adam[:lr=..,beta1=..,beta2=..,eps=..,"
                    + "weight_decay=..]. Default: ${DEFAULT-VALUE}.")
    String optimizer = "sgd:lr=0.01,momentum=0.9";

    /** The options with the default model, {@code logreg}. */
    public ModelOptions() {
        this("logreg");
    }

    /** The options with {@code defaultModel} as the default of {@code --model}. */
    public ModelOptions(String defaultModel) {
        this.model = defaultModel;
    }

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

    /** Parses both options, so that a bad one fails before any work starts. */
    void validate() {
        modelSpec();
        optimizerSpec();
    }
}
