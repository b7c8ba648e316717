package dev.chorus.learning.tensor.reference;

import dev.chorus.learning.tensor.TensorBackend;
import dev.chorus.learning.tensor.TensorBackendProvider;
import java.util.Optional;

/** Registers the reference backend; always available, ranked lowest. */
public final class ReferenceBackendProvider implements TensorBackendProvider {

    @Override
    public String name() {
        return "reference";
    }

    @Override
    public int rank() {
        return 0;
    }

    @Override
    public boolean cpu() {
        return true;
    }

    @Override
    public Optional<String> unavailableReason() {
        return Optional.empty();
    }

    @Override
    public TensorBackend create(int threads) {
        return new ReferenceBackend();
    }
}
