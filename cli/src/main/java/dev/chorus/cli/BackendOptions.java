package dev.chorus.cli;

import dev.chorus.learning.tensor.TensorBackend;
import dev.chorus.learning.tensor.TensorBackends;
import dev.chorus.node.setup.UserError;
import picocli.CommandLine.Option;

/**
 * Which tensor backend computes, and with how many threads, mixed in ({@code @Mixin}) by {@code train} and {@code
 * bench cv}; {@link #create} checks the thread count and creates the backend.
 *
 * <p>{@code testnet} gives every node one thread (there is no {@code --threads}) of the best CPU backend by default,
 * and {@code bench train} and {@code bench gemm} take lists of thread counts: each declares {@code --backend} itself.
 */
public final class BackendOptions {

    @Option(
            names = "--backend",
            paramLabel = "NAME",
            description =
                    "auto (the best available), cpu (the best CPU backend), or a backend name: nd4j, reference, cuda."
                            + " Default: ${DEFAULT-VALUE}.")
    String backend = "auto";

    @Option(
            names = "--threads",
            paramLabel = "N",
            description = "Threads per operation (0: one per core). Default: ${DEFAULT-VALUE}.")
    int threads = 0;

    TensorBackend create() {
        if (threads < 0) {
            throw new UserError("--threads must be 0 (one per core) or positive, got " + threads);
        }
        return TensorBackends.create(backend, threads);
    }
}
