package dev.chorus.learning.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class GemmBenchmarkTest {

    @Test
    void measuresEverySizeAndThreadCountAndWritesTableCsvAndJson() {
        List<String> progress = new ArrayList<>();
        GemmBenchmark.Report report =
                GemmBenchmark.run("reference", new int[] {8, 12}, new int[] {1}, 3, progress::add);
        assertThat(report.backend()).isEqualTo("reference");
        assertThat(report.measurements()).hasSize(2);
        assertThat(progress).hasSize(2);
        for (GemmBenchmark.Measurement m : report.measurements()) {
            assertThat(m.minGflops()).isPositive();
            assertThat(m.minGflops()).isLessThanOrEqualTo(m.medianGflops());
            assertThat(m.medianGflops()).isLessThanOrEqualTo(m.maxGflops());
            assertThat(m.peakGflops()).isEqualTo(report.cpu().peakGflops(1));
            assertThat(m.fractionOfPeak()).isEqualTo(m.medianGflops() / m.peakGflops());
        }
        assertThat(report.table()).contains("backend reference").contains("of peak");
        String[] csv = report.csv().split("\n");
        assertThat(csv).hasSize(3);
        assertThat(csv[0]).startsWith("backend,n,threads,");
        assertThat(csv[1]).startsWith("reference,8,1,3,");
        assertThat(report.json())
                .contains("\"measurements\": [")
                .contains("\"n\": 12")
                .contains("\"fma_units\": 2");
    }

    @Test
    void openBlasKernelFamiliesMapToTheirVectorWidth() {
        assertThat(GemmBenchmark.kernelFloats("Haswell")).isEqualTo(8);
        assertThat(GemmBenchmark.kernelFloats("Zen")).isEqualTo(8);
        assertThat(GemmBenchmark.kernelFloats("SkylakeX")).isEqualTo(16);
        assertThat(GemmBenchmark.kernelFloats("Cooperlake")).isEqualTo(16);
        assertThat(GemmBenchmark.kernelFloats("Prescott")).isZero();
    }

    @Test
    void badArgumentsAreRejectedWithTheirName() {
        assertThatThrownBy(() -> GemmBenchmark.run("reference", new int[] {0}, new int[] {1}, 3, null))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("matrix size must be positive, got 0");
        assertThatThrownBy(() -> GemmBenchmark.run("reference", new int[] {4}, new int[] {-1}, 3, null))
                .hasMessage("thread count must be positive, got -1");
        assertThatThrownBy(() -> GemmBenchmark.run("reference", new int[] {4}, new int[] {1}, 0, null))
                .hasMessage("repetitions must be positive, got 0");
    }
}
