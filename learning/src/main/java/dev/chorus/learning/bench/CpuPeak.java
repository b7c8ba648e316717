package dev.chorus.learning.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * The theoretical single-precision peak of this CPU: {@code cores x FMA units x floats per vector x
 * 2 flops per FMA x clock}. What the OS tells is read from {@code /proc/cpuinfo} (and the cpufreq
 * maximum, where the kernel exposes it); what it cannot tell (the FMA units per core) is an
 * assumption listed in {@link #assumptions()}.
 *
 * @param model the CPU's model name
 * @param cores logical processors the OS reports
 * @param clockGhz the clock used for the peak
 * @param vectorFloats floats per FMA instruction of the widest vector extension present
 * @param fmaUnits FMA pipes per core (assumed)
 * @param assumptions where each number came from, for the report
 */
public record CpuPeak(
        String model, int cores, double clockGhz, int vectorFloats, int fmaUnits, List<String> assumptions) {

    /** FMA pipes per core assumed when nothing says otherwise: two on every x86 core since Haswell. */
    static final int ASSUMED_FMA_UNITS = 2;

    public CpuPeak {
        assumptions = List.copyOf(assumptions);
    }

    /** Peak GFLOP/s of one core. */
    public double perCoreGflops() {
        return clockGhz * fmaUnits * vectorFloats * 2;
    }

    /** Peak GFLOP/s when {@code threads} threads each have a core (capped at the core count). */
    public double peakGflops(int threads) {
        return Math.min(Math.max(threads, 1), cores) * perCoreGflops();
    }

    /** The same peak for kernels that use only {@code kernelFloats}-wide vectors (e.g. AVX2 on an AVX-512 CPU). */
    public double peakGflops(int threads, int kernelFloats) {
        return peakGflops(threads) * Math.min(kernelFloats, vectorFloats) / vectorFloats;
    }

    /** Reads this machine's {@code /proc/cpuinfo}; without it, falls back to the JVM's processor count. */
    public static CpuPeak detect() {
        String cpuinfo = "";
        try {
            cpuinfo = Files.readString(Path.of("/proc/cpuinfo"));
        } catch (IOException | RuntimeException e) {
            // not Linux: the parse below falls back and says so
        }
        Double maxGhz = null;
        try {
            Path max = Path.of("/sys/devices/system/cpu/cpu0/cpufreq/cpuinfo_max_freq");
            if (Files.isReadable(max)) {
                maxGhz = Long.parseLong(Files.readString(max).trim()) / 1e6;
            }
        } catch (IOException | RuntimeException e) {
            maxGhz = null;
        }
        return parse(cpuinfo, maxGhz, Runtime.getRuntime().availableProcessors());
    }

    /**
     * Derives the peak from the text of {@code /proc/cpuinfo}.
     *
     * @param maxClockGhz the cpufreq maximum when known, else null (then {@code cpu MHz} is used)
     * @param fallbackCores the core count to use when the text lists no processor
     */
    public static CpuPeak parse(String cpuinfo, Double maxClockGhz, int fallbackCores) {
        String model = "unknown CPU";
        String flagLine = "";
        double mhz = Double.NaN;
        int processors = 0;
        for (String line : cpuinfo.split("\n")) {
            int colon = line.indexOf(':');
            if (colon < 0) {
                continue;
            }
            String key = line.substring(0, colon).trim();
            String value = line.substring(colon + 1).trim();
            switch (key) {
                case "processor" -> processors++;
                case "model name" -> model = processors <= 1 ? value : model;
                case "flags" -> flagLine = processors <= 1 ? value : flagLine;
                case "cpu MHz" -> mhz = processors <= 1 ? parseOr(value, Double.NaN) : mhz;
                default -> {}
            }
        }
        List<String> notes = new ArrayList<>();
        int cores = processors > 0 ? processors : fallbackCores;
        notes.add(
                processors > 0
                        ? cores + " logical processors listed in /proc/cpuinfo"
                        : cores + " processors as the JVM reports (no /proc/cpuinfo)");
        Set<String> flags = Set.of(flagLine.toLowerCase(Locale.ROOT).split("\\s+"));
        int floats;
        if (flags.contains("avx512f")) {
            floats = 16;
            notes.add("avx512f => 16 floats per FMA");
        } else if (flags.contains("fma") || flags.contains("avx2")) {
            floats = 8;
            notes.add("fma/avx2 => 8 floats per FMA");
        } else if (flags.contains("sse")) {
            floats = 4;
            notes.add("no AVX FMA: 4-float SSE multiply + add counted as one FMA");
        } else {
            floats = 4;
            notes.add("CPU flags unknown: 4 floats per vector assumed");
        }
        notes.add(ASSUMED_FMA_UNITS + " FMA units per core (assumed; not visible to the OS)");
        double ghz;
        if (maxClockGhz != null && maxClockGhz > 0) {
            ghz = maxClockGhz;
            notes.add(String.format(Locale.ROOT, "clock %.3f GHz: cpufreq maximum", ghz));
        } else if (!Double.isNaN(mhz) && mhz > 0) {
            ghz = mhz / 1000;
            notes.add(String.format(
                    Locale.ROOT,
                    "clock %.3f GHz: 'cpu MHz' of /proc/cpuinfo (no cpufreq maximum; under a hypervisor this is"
                            + " the nominal rate and boost clocks can push measured fractions above 1)",
                    ghz));
        } else {
            ghz = 1.0;
            notes.add("clock unknown: 1 GHz assumed, so the peak is per GHz");
        }
        return new CpuPeak(model, cores, ghz, floats, ASSUMED_FMA_UNITS, notes);
    }

    private static double parseOr(String s, double fallback) {
        try {
            return Double.parseDouble(s);
        } catch (NumberFormatException e) {
            return fallback;
        }
    }
}
