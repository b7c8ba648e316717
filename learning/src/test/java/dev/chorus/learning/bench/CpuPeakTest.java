package dev.chorus.learning.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import org.junit.jupiter.api.Test;

class CpuPeakTest {

    private static String cpuinfo(int processors, String flags, String mhz) {
        StringBuilder s = new StringBuilder();
        for (int p = 0; p < processors; p++) {
            s.append("processor\t: ").append(p).append('\n');
            s.append("model name\t: AMD EPYC\n");
            s.append("cpu MHz\t\t: ").append(mhz).append('\n');
            s.append("flags\t\t: ").append(flags).append("\n\n");
        }
        return s.toString();
    }

    @Test
    void avx512CoresCountSixteenFloatsPerFmaAndTwoUnits() {
        CpuPeak peak = CpuPeak.parse(cpuinfo(2, "fpu sse sse2 fma avx avx2 avx512f avx512dq", "2096.040"), null, 99);
        assertThat(peak.model()).isEqualTo("AMD EPYC");
        assertThat(peak.cores()).isEqualTo(2);
        assertThat(peak.vectorFloats()).isEqualTo(16);
        assertThat(peak.fmaUnits()).isEqualTo(2);
        assertThat(peak.clockGhz()).isCloseTo(2.09604, within(1e-9));
        assertThat(peak.perCoreGflops()).isCloseTo(2.09604 * 2 * 16 * 2, within(1e-9));
        assertThat(peak.peakGflops(2)).isCloseTo(2 * peak.perCoreGflops(), within(1e-9));
        assertThat(peak.peakGflops(8)).as("capped at the core count").isCloseTo(peak.peakGflops(2), within(1e-9));
        assertThat(peak.peakGflops(1, 8)).isCloseTo(peak.perCoreGflops() / 2, within(1e-9));
        assertThat(peak.assumptions()).anyMatch(a -> a.contains("avx512f => 16"));
        assertThat(peak.assumptions()).anyMatch(a -> a.contains("assumed"));
    }

    @Test
    void avx2OnlyCountsEightFloatsAndTheCpufreqMaximumWins() {
        CpuPeak peak = CpuPeak.parse(cpuinfo(4, "fpu sse fma avx avx2", "1200.000"), 3.5, 99);
        assertThat(peak.vectorFloats()).isEqualTo(8);
        assertThat(peak.cores()).isEqualTo(4);
        assertThat(peak.clockGhz()).isEqualTo(3.5);
        assertThat(peak.perCoreGflops()).isCloseTo(3.5 * 2 * 8 * 2, within(1e-9));
    }

    @Test
    void withoutCpuinfoItFallsBackAndSaysSo() {
        CpuPeak peak = CpuPeak.parse("", null, 6);
        assertThat(peak.cores()).isEqualTo(6);
        assertThat(peak.clockGhz()).isEqualTo(1.0);
        assertThat(peak.assumptions()).anyMatch(a -> a.contains("clock unknown"));
    }
}
