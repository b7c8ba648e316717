package dev.chorus.learning.tensor;

import java.util.Optional;

/**
 * A factory for one kind of {@link TensorBackend}, found with {@link java.util.ServiceLoader}.
 * {@link TensorBackends} picks the available provider with the highest {@link #rank()}, unless the
 * user names one.
 */
public interface TensorBackendProvider {

    /** The name accepted by {@code --backend}. */
    String name();

    /** Higher wins when no backend is named. Reference: 0; ND4J: 100; CUDA: 200. */
    int rank();

    /** Whether this backend computes on the CPU ({@code --backend cpu} picks the best of those). */
    boolean cpu();

    /** Empty when the backend can be created here, else one line saying what is missing. */
    Optional<String> unavailableReason();

    /** Creates the backend; {@code threads <= 0} means the backend's default. */
    TensorBackend create(int threads);
}
