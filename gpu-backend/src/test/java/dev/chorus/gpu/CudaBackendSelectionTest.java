package dev.chorus.gpu;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeFalse;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.chorus.gpu.cuda.CudaAvailability;
import dev.chorus.learning.tensor.BackendUnavailableException;
import dev.chorus.learning.tensor.TensorBackend;
import dev.chorus.learning.tensor.TensorBackendProvider;
import dev.chorus.learning.tensor.TensorBackends;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** How the CUDA provider takes part in {@link TensorBackends}' choice. */
class CudaBackendSelectionTest {

    @Test
    void theProviderIsFoundAndRankedAboveTheCpuBackends() {
        TensorBackendProvider cuda = TensorBackends.providers().stream()
                .filter(p -> p.name().equals("cuda"))
                .findFirst()
                .orElseThrow(() -> new AssertionError("ServiceLoader does not find the cuda provider"));
        assertThat(cuda.rank()).isEqualTo(200);
        assertThat(cuda.cpu()).isFalse();
        assertThat(TensorBackends.providers().getFirst().name()).isEqualTo("cuda");
        assertThat(cuda.unavailableReason()).isEqualTo(CudaAvailability.system().problem());
    }

    @Test
    void withoutADriverCudaIsRefusedInOneLineAndAutoFallsBackToTheCpu() {
        CudaAvailability.Outcome here = CudaAvailability.system();
        assumeFalse(here.usable(), "this machine has a usable GPU: " + here.summary());
        assertThatThrownBy(() -> TensorBackends.pick("cuda"))
                .isInstanceOf(BackendUnavailableException.class)
                .hasMessageStartingWith("backend 'cuda' is not usable: ")
                .satisfies(e -> assertThat(e.getMessage()).doesNotContain("\n"));
        assertThat(TensorBackends.pick("auto").cpu()).isTrue();
        assertThat(TensorBackends.pick(null).cpu()).isTrue();
        assertThat(TensorBackends.pick("cpu").cpu()).isTrue();
    }

    @Test
    void onThisMachineTheMissingPieceIsTheDriver() {
        CudaAvailability.Outcome here = CudaAvailability.system();
        assumeTrue(
                here.problem().map(p -> p.startsWith("no NVIDIA driver")).orElse(false),
                "this machine has an NVIDIA driver: " + here.summary());
        assertThatThrownBy(() -> TensorBackends.pick("cuda"))
                .isInstanceOf(BackendUnavailableException.class)
                .hasMessageContaining("libcuda.so.1");
    }

    @Test
    void withAUsableGpuAutoPicksCudaAndCpuDoesNot() {
        CudaAvailability.Outcome here = CudaAvailability.system();
        assumeTrue(here.usable(), "no usable GPU here: " + here.summary());
        assertThat(TensorBackends.pick("auto").name()).isEqualTo("cuda");
        assertThat(TensorBackends.pick("cpu").cpu()).isTrue();
    }

    @Test
    void theProviderCreatesABackendWhenTheProbeSucceeds() {
        try (FakeCuda cuda = new FakeCuda()) {
            CudaAvailability.Outcome ok = CudaAvailability.probe(cuda.opener(true, true), Map.of(), null);
            CudaBackendProvider provider = new CudaBackendProvider(() -> ok);
            assertThat(provider.unavailableReason()).isEmpty();
            try (TensorBackend b = provider.create(8)) {
                assertThat(b.name()).isEqualTo("cuda");
                assertThat(b.threads()).isEqualTo(1);
                assertThat(((CudaBackend) b).deviceDescription()).isEqualTo("Fake CUDA device (2 multiprocessors)");
            }
            cuda.rethrowFailures();
        }
    }

    @Test
    void theProviderRefusesWithTheProbesReason() {
        CudaAvailability.Outcome missing = new CudaAvailability.Outcome(
                Optional.of("no cuBLAS: none of libcublas.so.13 could be loaded"),
                Optional.empty(),
                Optional.empty(),
                "no cuBLAS");
        CudaBackendProvider provider = new CudaBackendProvider(() -> missing);
        assertThat(provider.unavailableReason()).hasValue("no cuBLAS: none of libcublas.so.13 could be loaded");
        assertThatThrownBy(() -> provider.create(0))
                .isInstanceOf(BackendUnavailableException.class)
                .hasMessage("backend 'cuda' is not usable: no cuBLAS: none of libcublas.so.13 could be loaded");
        CudaBackendProvider broken = new CudaBackendProvider(() -> {
            throw new IllegalStateException("boom");
        });
        assertThat(broken.unavailableReason())
                .hasValueSatisfying(r -> assertThat(r).contains("boom"));
    }
}
