package dev.chorus.learning.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

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

    /** Two measurements of a 2-core AVX-512 machine at 2 GHz whose BLAS kernels are 8 floats wide. */
    private static GemmBenchmark.Report exampleReport() {
        CpuPeak cpu =
                CpuPeak.parse("processor : 0\nflags : fma avx2 avx512f\ncpu MHz : 2000\nprocessor : 1\n", null, 2);
        GemmBenchmark.Measurement oneThread = new GemmBenchmark.Measurement(
                "nd4j",
                1024,
                1,
                new GemmBenchmark.Measurement.Samples(5, 102.4, 100, 104),
                new GemmBenchmark.Measurement.Peak(cpu.peakGflops(1), 64));
        GemmBenchmark.Measurement twoThreads = new GemmBenchmark.Measurement(
                "nd4j",
                1024,
                2,
                new GemmBenchmark.Measurement.Samples(5, 192.0, 180, 200),
                new GemmBenchmark.Measurement.Peak(cpu.peakGflops(2), 128));
        return new GemmBenchmark.Report("nd4j", cpu, "OpenBLAS", 8, "0 0 0", "0 0 0", List.of(oneThread, twoThreads));
    }

    @Test
    void theFastestMedianBoundsTheClockFromBelow() {
        GemmBenchmark.Report report = exampleReport();
        // 102.4 GFLOP/s on one core with 2 FMA units of 8 floats needs 102.4 / 32 = 3.2 GHz.
        assertThat(report.impliedClockGhz()).isCloseTo(3.2, within(1e-9));
        assertThat(report.table()).contains("implies a clock of at least 3.20 GHz");
        assertThat(report.json()).contains("\"implied_min_clock_ghz\": 3.2000");
    }

    @Test
    void csvColumnsAndJsonFieldsStayFlat() {
        GemmBenchmark.Report report = exampleReport();
        assertThat(report.csv())
                .isEqualTo("backend,n,threads,repetitions,median_gflops,min_gflops,max_gflops,peak_gflops,"
                        + "fraction_of_peak,kernel_peak_gflops,fraction_of_kernel_peak\n"
                        + "nd4j,1024,1,5,102.400,100.000,104.000,128.000,0.8000,64.000,1.6000\n"
                        + "nd4j,1024,2,5,192.000,180.000,200.000,256.000,0.7500,128.000,1.5000\n");
        assertThat(report.json())
                .contains("    {\"n\": 1024, \"threads\": 1, \"repetitions\": 5, \"median_gflops\": 102.400,"
                        + " \"min_gflops\": 100.000, \"max_gflops\": 104.000, \"peak_gflops\": 128.000,"
                        + " \"fraction_of_peak\": 0.8000, \"kernel_peak_gflops\": 64.000,"
                        + " \"fraction_of_kernel_peak\": 1.6000}");
        assertThat(report.table())
                .contains(
                        "  1024        1      102.4      100.0      104.0      128.0     80.0%         64.0    160.0%");
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
