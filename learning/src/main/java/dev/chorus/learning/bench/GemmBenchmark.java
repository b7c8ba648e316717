package dev.chorus.learning.bench;

import dev.chorus.learning.tensor.Tensor;
import dev.chorus.learning.tensor.TensorBackend;
import dev.chorus.learning.tensor.TensorBackends;
import dev.chorus.learning.tensor.nd4j.Nd4jBackend;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Random;
import java.util.function.Consumer;

/**
 * SGEMM throughput of a tensor backend ({@code C = A B}, square {@code n x n}) against the
 * machine's theoretical peak ({@link CpuPeak}). For each thread count it creates the backend anew,
 * warms up, then times {@code repetitions} samples per size (each sample repeats the product until
 * it spans at least 50 ms) and reports the median, min and max GFLOP/s, counting {@code 2 n^3}
 * flops per product.
 *
 * <p>Command line: {@code GemmBenchmark [--backend nd4j] [--sizes 1024,4096] [--threads 1,2]
 * [--repetitions 5] [--csv out.csv] [--json out.json]}. It prints a table and the load average
 * before and after: on a shared machine a high load means the figures are lower bounds.
 */
public final class GemmBenchmark {

    private static final double MIN_SAMPLE_SECONDS = 0.05;

    private GemmBenchmark() {}

    /**
     * One size at one thread count. The GFLOP/s samples and the peaks they are compared with are nested records:
     * a constructor takes at most 8 parameters (ArchitectureCodeSizeTest), and nine loose numbers are easy to swap.
     *
     * @param backend the backend's name
     * @param n the matrices' side
     * @param threads the backend's thread count
     * @param samples the timed GFLOP/s samples
     * @param peak the theoretical peaks at this thread count
     */
    public record Measurement(String backend, int n, int threads, Samples samples, Peak peak) {

        /** {@code repetitions} GFLOP/s samples: their median, minimum and maximum. */
        public record Samples(int repetitions, double median, double min, double max) {}

        /**
         * Peak GFLOP/s: the machine's ({@code gflops}) and, scaled to the width of the BLAS kernels in use, the
         * kernels' ({@code kernelGflops}).
         */
        public record Peak(double gflops, double kernelGflops) {}

        // The flat figures, as before the nesting: the table, CSV columns and JSON fields are built from these.
        public int repetitions() {
            return samples.repetitions();
        }

        public double medianGflops() {
            return samples.median();
        }

        public double minGflops() {
            return samples.min();
        }

        public double maxGflops() {
            return samples.max();
        }

        public double peakGflops() {
            return peak.gflops();
        }

        public double kernelPeakGflops() {
            return peak.kernelGflops();
        }

        public double fractionOfPeak() {
            return medianGflops() / peakGflops();
        }

        public double fractionOfKernelPeak() {
            return medianGflops() / kernelPeakGflops();
        }
    }

    /**
     * Everything one run measured.
     *
     * @param blas what the backend computes GEMM with ({@code "-"} when it does not say)
     * @param kernelFloats floats per FMA of the BLAS kernels in use, 0 when unknown
     */
    public record Report(
            String backend,
            CpuPeak cpu,
            String blas,
            int kernelFloats,
            String loadBefore,
            String loadAfter,
            List<Measurement> measurements) {

        public Report {
            measurements = List.copyOf(measurements);
        }

        public String table() {
            StringBuilder s = new StringBuilder();
            s.append("SGEMM, backend ")
                    .append(backend)
                    .append(", BLAS ")
                    .append(blas)
                    .append('\n');
            s.append(String.format(
                    Locale.ROOT,
                    "CPU %s: peak %.1f GFLOP/s per core (%s)%n",
                    cpu.model(),
                    cpu.perCoreGflops(),
                    String.join("; ", cpu.assumptions())));
            if (kernelFloats > 0 && kernelFloats < cpu.vectorFloats()) {
                s.append(String.format(
                        Locale.ROOT,
                        "The BLAS kernels in use are %d floats wide, the CPU's vectors %d: 'kernel peak' scales the"
                                + " peak by %d/%d%n",
                        kernelFloats,
                        cpu.vectorFloats(),
                        kernelFloats,
                        cpu.vectorFloats()));
            }
            s.append("load average before: ")
                    .append(loadBefore)
                    .append(", after: ")
                    .append(loadAfter)
                    .append('\n');
            s.append(String.format(
                    Locale.ROOT,
                    "%6s %8s %10s %10s %10s %10s %9s %12s %9s%n",
                    "n",
                    "threads",
                    "median",
                    "min",
                    "max",
                    "peak",
                    "of peak",
                    "kernel peak",
                    "of kernel"));
            for (Measurement m : measurements) {
                s.append(String.format(
                        Locale.ROOT,
                        "%6d %8d %10.1f %10.1f %10.1f %10.1f %8.1f%% %12.1f %8.1f%%%n",
                        m.n(),
                        m.threads(),
                        m.medianGflops(),
                        m.minGflops(),
                        m.maxGflops(),
                        m.peakGflops(),
                        100 * m.fractionOfPeak(),
                        m.kernelPeakGflops(),
                        100 * m.fractionOfKernelPeak()));
            }
            double impliedGhz = impliedClockGhz();
            if (impliedGhz > cpu.clockGhz()) {
                s.append(String.format(
                        Locale.ROOT,
                        "The fastest median implies a clock of at least %.2f GHz (at %d FMA units x %d floats per"
                                + " core), above the %.3f GHz assumed: the peak above is understated%n",
                        impliedGhz,
                        cpu.fmaUnits(),
                        kernelFloats > 0 ? Math.min(kernelFloats, cpu.vectorFloats()) : cpu.vectorFloats(),
                        cpu.clockGhz()));
            }
            s.append("(GFLOP/s; median, min and max of ")
                    .append(measurements.isEmpty() ? 0 : measurements.get(0).repetitions())
                    .append(" samples)\n");
            return s.toString();
        }

        /**
         * The lowest clock at which the kernels in use could have reached the fastest median: each
         * core retires at most {@code fmaUnits} FMAs of the kernels' width per cycle.
         */
        public double impliedClockGhz() {
            int floats = kernelFloats > 0 ? Math.min(kernelFloats, cpu.vectorFloats()) : cpu.vectorFloats();
            double best = 0;
            for (Measurement m : measurements) {
                int cores = Math.min(m.threads(), cpu.cores());
                best = Math.max(best, m.medianGflops() / (cores * cpu.fmaUnits() * floats * 2.0));
            }
            return best;
        }

        public String csv() {
            StringBuilder s = new StringBuilder(
                    "backend,n,threads,repetitions,median_gflops,min_gflops,max_gflops,peak_gflops,fraction_of_peak,"
                            + "kernel_peak_gflops,fraction_of_kernel_peak\n");
            for (Measurement m : measurements) {
                s.append(String.format(
                        Locale.ROOT,
                        "%s,%d,%d,%d,%.3f,%.3f,%.3f,%.3f,%.4f,%.3f,%.4f%n",
                        m.backend(),
                        m.n(),
                        m.threads(),
                        m.repetitions(),
                        m.medianGflops(),
                        m.minGflops(),
                        m.maxGflops(),
                        m.peakGflops(),
                        m.fractionOfPeak(),
                        m.kernelPeakGflops(),
                        m.fractionOfKernelPeak()));
            }
            return s.toString();
        }

        public String json() {
            StringBuilder s = new StringBuilder("{\n");
            s.append("  \"backend\": ").append(quote(backend)).append(",\n");
            s.append("  \"blas\": ").append(quote(blas)).append(",\n");
            s.append("  \"cpu\": {\"model\": ")
                    .append(quote(cpu.model()))
                    .append(", \"cores\": ")
                    .append(cpu.cores())
                    .append(String.format(Locale.ROOT, ", \"clock_ghz\": %.4f", cpu.clockGhz()))
                    .append(", \"vector_floats\": ")
                    .append(cpu.vectorFloats())
                    .append(", \"fma_units\": ")
                    .append(cpu.fmaUnits())
                    .append(String.format(Locale.ROOT, ", \"per_core_peak_gflops\": %.3f", cpu.perCoreGflops()))
                    .append(", \"assumptions\": [");
            for (int i = 0; i < cpu.assumptions().size(); i++) {
                s.append(i == 0 ? "" : ", ").append(quote(cpu.assumptions().get(i)));
            }
            s.append("]},\n");
            s.append("  \"kernel_floats\": ").append(kernelFloats).append(",\n");
            s.append(String.format(Locale.ROOT, "  \"implied_min_clock_ghz\": %.4f,%n", impliedClockGhz()));
            s.append("  \"load_before\": ").append(quote(loadBefore)).append(",\n");
            s.append("  \"load_after\": ").append(quote(loadAfter)).append(",\n");
            s.append("  \"measurements\": [");
            for (int i = 0; i < measurements.size(); i++) {
                Measurement m = measurements.get(i);
                s.append(i == 0 ? "\n" : ",\n")
                        .append(String.format(
                                Locale.ROOT,
                                "    {\"n\": %d, \"threads\": %d, \"repetitions\": %d, \"median_gflops\": %.3f,"
                                        + " \"min_gflops\": %.3f, \"max_gflops\": %.3f, \"peak_gflops\": %.3f,"
                                        + " \"fraction_of_peak\": %.4f, \"kernel_peak_gflops\": %.3f,"
                                        + " \"fraction_of_kernel_peak\": %.4f}",
                                m.n(),
                                m.threads(),
                                m.repetitions(),
                                m.medianGflops(),
                                m.minGflops(),
                                m.maxGflops(),
                                m.peakGflops(),
                                m.fractionOfPeak(),
                                m.kernelPeakGflops(),
                                m.fractionOfKernelPeak()));
            }
            s.append("\n  ]\n}\n");
            return s.toString();
        }
    }

    private static String quote(String text) {
        StringBuilder s = new StringBuilder("\"");
        for (char c : text.toCharArray()) {
            switch (c) {
                case '"' -> s.append("\\\"");
                case '\\' -> s.append("\\\\");
                case '\n' -> s.append("\\n");
                case '\t' -> s.append("\\t");
                default -> {
                    if (c < 0x20) {
                        s.append(String.format("\\u%04x", (int) c));
                    } else {
                        s.append(c);
                    }
                }
            }
        }
        return s.append('"').toString();
    }

    /**
     * Measures {@code backendName} (as {@code --backend} takes it) at every size and thread count.
     *
     * @param progress receives one line per finished measurement (may be null)
     */
    public static Report run(
            String backendName, int[] sizes, int[] threadCounts, int repetitions, Consumer<String> progress) {
        if (sizes.length == 0 || threadCounts.length == 0) {
            throw new IllegalArgumentException("give at least one size and one thread count");
        }
        for (int n : sizes) {
            if (n <= 0) {
                throw new IllegalArgumentException("matrix size must be positive, got " + n);
            }
        }
        for (int t : threadCounts) {
            if (t <= 0) {
                throw new IllegalArgumentException("thread count must be positive, got " + t);
            }
        }
        if (repetitions <= 0) {
            throw new IllegalArgumentException("repetitions must be positive, got " + repetitions);
        }
        CpuPeak cpu = CpuPeak.detect();
        String loadBefore = loadAverage();
        List<Measurement> results = new ArrayList<>();
        String name = backendName;
        String blas = "-";
        int kernelFloats = 0;
        for (int threads : threadCounts) {
            try (TensorBackend backend = TensorBackends.create(backendName, threads)) {
                name = backend.name();
                if (backend instanceof Nd4jBackend nd4j) {
                    blas = nd4j.blasDescription();
                    kernelFloats = kernelFloats(nd4j.blasCore());
                }
                double kernelShare = kernelFloats > 0 ? Math.min(kernelFloats, cpu.vectorFloats()) : cpu.vectorFloats();
                for (int n : sizes) {
                    double[] gflops = measure(backend, n, repetitions);
                    double peak = cpu.peakGflops(threads);
                    Measurement m = new Measurement(
                            name,
                            n,
                            threads,
                            new Measurement.Samples(
                                    repetitions, gflops[gflops.length / 2], gflops[0], gflops[gflops.length - 1]),
                            new Measurement.Peak(peak, peak * kernelShare / cpu.vectorFloats()));
                    results.add(m);
                    if (progress != null) {
                        progress.accept(String.format(
                                Locale.ROOT,
                                "n=%d threads=%d: median %.1f GFLOP/s (%.1f%% of %.1f peak)",
                                n,
                                threads,
                                m.medianGflops(),
                                100 * m.fractionOfPeak(),
                                peak));
                    }
                }
            }
        }
        return new Report(name, cpu, blas, kernelFloats, loadBefore, loadAverage(), results);
    }

    /** Sorted GFLOP/s samples of {@code n x n} products. */
    private static double[] measure(TensorBackend backend, int n, int repetitions) {
        Random rnd = new Random(n);
        float[] host = new float[n * n];
        for (int i = 0; i < host.length; i++) {
            host[i] = rnd.nextFloat() - 0.5f;
        }
        try (Tensor a = backend.fromHost(host, n, n);
                Tensor b = backend.fromHost(host, n, n);
                Tensor c = backend.zeros(n, n)) {
            double flops = 2.0 * n * n * n;
            // Warm-up: at least two products and 0.2 s, which also sizes the samples.
            long start = System.nanoTime();
            int warm = 0;
            do {
                backend.gemm(false, false, 1f, a, b, 0f, c);
                warm++;
            } while (warm < 2 || System.nanoTime() - start < 200_000_000L);
            double perProduct = (System.nanoTime() - start) / 1e9 / warm;
            int inner = (int) Math.max(1, Math.ceil(MIN_SAMPLE_SECONDS / perProduct));
            double[] gflops = new double[repetitions];
            for (int r = 0; r < repetitions; r++) {
                long t0 = System.nanoTime();
                for (int i = 0; i < inner; i++) {
                    backend.gemm(false, false, 1f, a, b, 0f, c);
                }
                double seconds = (System.nanoTime() - t0) / 1e9;
                gflops[r] = flops * inner / seconds / 1e9;
            }
            Arrays.sort(gflops);
            return gflops;
        }
    }

    /** Floats per FMA of an OpenBLAS kernel family; 0 when the name is not known here. */
    static int kernelFloats(String core) {
        String c = core.toLowerCase(Locale.ROOT);
        if (c.contains("skylakex") || c.contains("cooperlake") || c.contains("sapphirerapids")) {
            return 16;
        }
        if (c.contains("haswell") || c.contains("zen") || c.contains("sandybridge") || c.contains("excavator")) {
            return 8;
        }
        return 0;
    }

    private static String loadAverage() {
        try {
            String[] parts = Files.readString(Path.of("/proc/loadavg")).trim().split("\\s+");
            return parts[0] + " " + parts[1] + " " + parts[2];
        } catch (IOException | RuntimeException e) {
            return "unknown";
        }
    }

    public static void main(String[] args) {
        String backend = "nd4j";
        int[] sizes = {1024, 4096};
        int[] threads = {1, 2};
        int repetitions = 5;
        Path csv = null;
        Path json = null;
        try {
            for (int i = 0; i < args.length; i++) {
                String flag = args[i];
                if (flag.equals("--help") || flag.equals("-h")) {
                    System.out.println("usage: GemmBenchmark [--backend nd4j] [--sizes 1024,4096] [--threads 1,2]"
                            + " [--repetitions 5] [--csv FILE] [--json FILE]");
                    return;
                }
                if (i + 1 >= args.length) {
                    throw new IllegalArgumentException("option " + flag + " needs a value");
                }
                String value = args[++i];
                switch (flag) {
                    case "--backend" -> backend = value;
                    case "--sizes" -> sizes = ints(flag, value);
                    case "--threads" -> threads = ints(flag, value);
                    case "--repetitions" -> repetitions = ints(flag, value)[0];
                    case "--csv" -> csv = Path.of(value);
                    case "--json" -> json = Path.of(value);
                    default -> throw new IllegalArgumentException("unknown option " + flag + " (try --help)");
                }
            }
            PrintStream out = System.out;
            Report report = run(backend, sizes, threads, repetitions, line -> System.err.println(line));
            out.print(report.table());
            if (csv != null) {
                Files.writeString(csv, report.csv());
                out.println("wrote " + csv);
            }
            if (json != null) {
                Files.writeString(json, report.json());
                out.println("wrote " + json);
            }
        } catch (IOException | RuntimeException e) {
            System.err.println("GemmBenchmark: " + e.getMessage());
            System.exit(2);
        }
    }

    private static int[] ints(String flag, String value) {
        try {
            return Arrays.stream(value.split(","))
                    .map(String::trim)
                    .mapToInt(Integer::parseInt)
                    .toArray();
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(flag + " takes comma-separated integers, got '" + value + "'");
        }
    }
}
