package dev.chorus.cli;

import dev.chorus.node.setup.UserError;
import picocli.CommandLine.Option;

/**
 * {@code --threads}, the threads per operation of the tensor backend ({@link BackendOptions}), mixed in
 * ({@code @Mixin}) by {@code train} and {@code bench cv}.
 *
 * <p>{@code testnet} gives each node one thread and takes no {@code --threads}; {@code bench train} and {@code bench
 * gemm} take lists of thread counts to time, a {@code --threads} of another type, declared there.
 */
public final class ThreadOptions {

    @Option(
            names = "--threads",
            paramLabel = "N",
            description = "Threads per operation (0: one per core). Default: ${DEFAULT-VALUE}.")
    int threads = 0;

    /** The thread count, checked: 0 (one per core) or positive. */
    int threads() {
        if (threads < 0) {
            throw new UserError("--threads must be 0 (one per core) or positive, got " + threads);
        }
        return threads;
    }
}
