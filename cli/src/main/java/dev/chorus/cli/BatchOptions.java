package dev.chorus.cli;

import picocli.CommandLine.Option;

/**
 * {@code --batch}, the mini-batch size of training, mixed in ({@code @Mixin}) through {@link TrainingOptions} by
 * {@code train} and {@code bench cv}, and directly by {@code testnet}; each command checks the value where it uses
 * it, in its own words.
 *
 * <p>({@code bench train} takes a list of batch sizes to time, a {@code --batch} of another type, declared there.)
 */
public final class BatchOptions {

    @Option(names = "--batch", paramLabel = "N", description = "Mini-batch size. Default: ${DEFAULT-VALUE}.")
    int batch = 32;
}
