package dev.chorus.cli;

import picocli.CommandLine.Option;

/**
 * {@code --seed}, the seed of a command's random choices, mixed in ({@code @Mixin}) by every command that draws any
 * from it: through {@link TrainingOptions} by {@code train} and {@code bench cv}, and directly by {@code bench
 * train}, {@code partition}, {@code testnet}, {@code demo}, and (through {@link LocalnetOptions}) {@code testnet up}
 * and {@code testnet compose}, which also write it into every node's {@code training.seed}.
 *
 * <p>({@code p2p send} has a {@code --seed} of its own, with another default: the seed of its pseudo-random payload,
 * not of any data or model.)
 */
public final class SeedOptions {

    @Option(
            names = "--seed",
            paramLabel = "S",
            description = "Random seed: the same seed gives the same split, partition, initialization and"
                    + " shuffling. Default: ${DEFAULT-VALUE}.")
    long seed = 42;
}
