package dev.chorus.gpu.cuda;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SymbolLookup;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * Every downcall handle of the bindings can be created: against a lookup that answers any name
 * with a placeholder address, {@link CudaDriver} and {@link Cublas} build all their handles (the
 * linker validates each descriptor then) and ask for exactly the symbols their enums list. No
 * handle is invoked.
 */
class NativeBindingsTest {

    /** Answers every name with the same non-null address and records what was asked. */
    private static final class RecordingLookup implements SymbolLookup {
        final List<String> asked = new ArrayList<>();

        @Override
        public Optional<MemorySegment> find(String name) {
            asked.add(name);
            return Optional.of(MemorySegment.ofAddress(0x1000));
        }
    }

    @Test
    void everyDriverFunctionBinds() {
        RecordingLookup lookup = new RecordingLookup();
        new CudaDriver(lookup, "placeholder libcuda");
        assertThat(lookup.asked)
                .containsExactlyElementsOf(Arrays.stream(DriverFunction.values())
                        .map(DriverFunction::symbol)
                        .toList());
    }

    @Test
    void everyCublasFunctionBinds() {
        RecordingLookup lookup = new RecordingLookup();
        new Cublas(lookup, "placeholder libcublas");
        assertThat(lookup.asked)
                .containsExactlyElementsOf(Arrays.stream(CublasFunction.values())
                        .map(CublasFunction::symbol)
                        .toList());
    }

    @Test
    void aMissingSymbolIsNamed() {
        SymbolLookup withoutElapsedTime = name ->
                name.equals("cuEventElapsedTime_v2") ? Optional.empty() : Optional.of(MemorySegment.ofAddress(0x1000));
        assertThatThrownBy(() -> new CudaDriver(withoutElapsedTime, "libcuda.so.1"))
                .isInstanceOf(UnsatisfiedLinkError.class)
                .hasMessageContaining("libcuda.so.1")
                .hasMessageContaining("cuEventElapsedTime_v2");
    }

    @Test
    void everyFunctionReturnsAStatusAndTakesOnlyScalarsAndAddresses() {
        List<NativeFunction> all = new ArrayList<>(List.of(DriverFunction.values()));
        all.addAll(List.of(CublasFunction.values()));
        for (NativeFunction f : all) {
            assertThat(f.descriptor().returnLayout())
                    .as("%s returns a status", f.symbol())
                    .contains(ValueLayout.JAVA_INT);
            for (MemoryLayout arg : f.descriptor().argumentLayouts()) {
                assertThat(arg)
                        .as("argument of %s", f.symbol())
                        .isIn(ValueLayout.JAVA_INT, ValueLayout.JAVA_LONG, ValueLayout.JAVA_FLOAT, ValueLayout.ADDRESS);
            }
        }
    }

    @Test
    void versionedSymbolsKeepTheirHeaderNames() {
        assertThat(DriverFunction.CU_MEM_ALLOC.symbol()).isEqualTo("cuMemAlloc_v2");
        assertThat(DriverFunction.CU_MEM_ALLOC.headerName()).isEqualTo("cuMemAlloc");
        assertThat(CublasFunction.CUBLAS_SGEMM.symbol()).isEqualTo("cublasSgemm_v2");
        assertThat(CublasFunction.CUBLAS_GEMM_EX.descriptor().argumentLayouts()).hasSize(19);
        assertThat(CublasFunction.CUBLAS_SGEMM.descriptor().argumentLayouts()).hasSize(14);
        assertThat(DriverFunction.CU_LAUNCH_KERNEL.descriptor().argumentLayouts())
                .hasSize(11);
    }
}
