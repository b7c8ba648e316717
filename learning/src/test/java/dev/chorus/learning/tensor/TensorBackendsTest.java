package dev.chorus.learning.tensor;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.chorus.learning.tensor.nd4j.Nd4jBackendProvider;
import dev.chorus.learning.tensor.reference.ReferenceBackend;
import dev.chorus.learning.tensor.reference.ReferenceBackendProvider;
import org.junit.jupiter.api.Test;

class TensorBackendsTest {

    @Test
    void serviceLoaderFindsBothCpuBackendsBestRankFirst() {
        assertThat(TensorBackends.providers())
                .extracting(TensorBackendProvider::name)
                .containsExactly("nd4j", "reference");
        assertThat(TensorBackends.providers().get(0)).isInstanceOf(Nd4jBackendProvider.class);
        assertThat(TensorBackends.providers()).allMatch(TensorBackendProvider::cpu);
    }

    @Test
    void nd4jIsPickedByDefaultAndForCpu() {
        for (String request : new String[] {null, "", "  ", "auto", "AUTO", "cpu", " Cpu "}) {
            assertThat(TensorBackends.pick(request).name())
                    .as("request %s", request)
                    .isEqualTo("nd4j");
        }
    }

    @Test
    void referenceIsPickedByName() {
        assertThat(TensorBackends.pick("reference")).isInstanceOf(ReferenceBackendProvider.class);
        assertThat(TensorBackends.pick(" Reference ")).isInstanceOf(ReferenceBackendProvider.class);
        try (TensorBackend backend = TensorBackends.create("reference", 4)) {
            assertThat(backend).isInstanceOf(ReferenceBackend.class);
            assertThat(backend.threads()).isEqualTo(1);
        }
    }

    @Test
    void createHonoursTheThreadCount() {
        try (TensorBackend backend = TensorBackends.create("nd4j", 1)) {
            assertThat(backend.name()).isEqualTo("nd4j");
            assertThat(backend.threads()).isEqualTo(1);
        }
    }

    @Test
    void anUnknownNameListsTheKnownOnes() {
        assertThatThrownBy(() -> TensorBackends.pick("tpu"))
                .isInstanceOf(BackendUnavailableException.class)
                .hasMessage("unknown backend 'tpu'; known: auto, cpu, nd4j, reference");
    }
}
