package dev.chorus.gpu;

import dev.chorus.gpu.cuda.CudaAvailability;
import dev.chorus.learning.tensor.BackendUnavailableException;
import dev.chorus.learning.tensor.TensorBackend;
import dev.chorus.learning.tensor.TensorBackendProvider;
import java.util.Optional;
import java.util.function.Supplier;

/**
 * Registers the CUDA backend: name {@code cuda}, rank 200 (above ND4J), not a CPU backend. It is
 * available when {@link CudaAvailability} finds the driver, a device and cuBLAS; otherwise {@link
 * #unavailableReason()} names what is missing in one line. The GEMM precision comes from {@code
 * CHORUS_CUDA_GEMM} ({@code fp32}, the default, {@code tf32} or {@code bf16}).
 */
public final class CudaBackendProvider implements TensorBackendProvider {

    private final Supplier<CudaAvailability.Outcome> probe;

    /** The provider that {@link java.util.ServiceLoader} creates: probes this machine once. */
    public CudaBackendProvider() {
        this(CudaAvailability::system);
    }

    CudaBackendProvider(Supplier<CudaAvailability.Outcome> probe) {
        this.probe = probe;
    }

    @Override
    public String name() {
        return "cuda";
    }

    @Override
    public int rank() {
        return 200;
    }

    @Override
    public boolean cpu() {
        return false;
    }

    @Override
    public Optional<String> unavailableReason() {
        try {
            return probe.get().problem();
        } catch (Throwable t) {
            return Optional.of("the CUDA probe failed: " + t);
        }
    }

    /**
     * Opens device 0 (choose another with {@code CUDA_VISIBLE_DEVICES}); {@code threads} is ignored,
     * since one host thread drives the device.
     *
     * @throws BackendUnavailableException naming what is missing
     */
    @Override
    public TensorBackend create(int threads) {
        CudaAvailability.Outcome outcome = probe.get();
        if (outcome.problem().isPresent()) {
            throw new BackendUnavailableException(
                    "backend 'cuda' is not usable: " + outcome.problem().get());
        }
        CudaDevice device =
                new CudaDevice(outcome.driver().orElseThrow(), outcome.cublas().orElseThrow(), 0);
        return new CudaBackend(device, GemmPrecision.fromEnvironment());
    }
}
