package dev.chorus.cli;

import dev.chorus.learning.tensor.TensorBackend;
import dev.chorus.learning.tensor.TensorBackends;
import picocli.CommandLine.Option;

/**
 * {@code --backend}, the tensor backend that computes, mixed in ({@code @Mixin}) by every command that computes with
 * one: {@code train}, {@code bench cv} and {@code bench train} (default {@code auto}), {@code testnet} (every node,
 * one thread each) and {@code bench gemm} (both default {@code cpu}). {@link #create} creates the backend.
 *
 * <p>A command whose default is not {@code auto} passes its own to {@link #BackendOptions(String)}: picocli takes
 * the field's value when the command is built as the option's default, shows it as {@code ${DEFAULT-VALUE}}, and
 * sets the field back to it before every parse. {@link ThreadOptions} is the thread count of the commands that
 * take one.
 */
public final class BackendOptions {

    @Option(
            names = "--backend",
            paramLabel = "NAME",
            description = "Tensor backend: auto (the best available), cpu (the best CPU backend), or a backend name:"
                    + " nd4j, reference, cuda. Default: ${DEFAULT-VALUE}.")
    String backend;

    /** The option with {@code auto} as its default. */
    public BackendOptions() {
        this("auto");
    }

    /** The option with {@code defaultBackend} as its default. */
    public BackendOptions(String defaultBackend) {
        this.backend = defaultBackend;
    }

    /** The backend, computing on {@code threads} threads per operation (0: one per core). */
    TensorBackend create(int threads) {
        return TensorBackends.create(backend, threads);
    }
}
