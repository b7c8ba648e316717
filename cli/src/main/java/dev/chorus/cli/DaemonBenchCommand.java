package dev.chorus.cli;

import dev.chorus.cli.bench.ApiOverhead;
import dev.chorus.cli.bench.DaemonStartup;
import dev.chorus.cli.bench.Measurement;
import dev.chorus.cli.bench.MeasurementReport;
import dev.chorus.node.config.ConfigSchema;
import dev.chorus.node.setup.ConfigSettings;
import dev.chorus.node.setup.UserError;
import dev.chorus.testnet.localnet.NodeProcess;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.stream.Stream;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code chorus bench daemon}: what the daemon costs. Start-up and idle memory of real node processes ({@link
 * DaemonStartup}), and training steps/s with the HTTP API on (and scraped) against off ({@link ApiOverhead}), the
 * on and off runs interleaved so that load from other processes hits both alike.
 */
@Command(
        name = "daemon",
        mixinStandardHelpOptions = true,
        sortOptions = false,
        description = {
            "Measures the daemon: start-up time, idle memory and the cost of the HTTP API.",
            "Time from spawn to /health, /ready and the first connected peer, and the resident memory of idle connected"
                    + " nodes (separate 'node run' processes on loopback); training steps/s with the HTTP API on and"
                    + " scraped (/api/status and /metrics) against off, interleaved, as ratios."
        })
final class DaemonBenchCommand implements Callable<Integer> {
    @Spec
    picocli.CommandLine.Model.CommandSpec spec;

    @Option(
            names = "--rounds",
            paramLabel = "N",
            description = "Start-up rounds (two node processes each). Default: ${DEFAULT-VALUE}.")
    int rounds = 5;

    @Option(
            names = "--poll-ms",
            paramLabel = "MS",
            description = "Interval of the start-up polls. Default: ${DEFAULT-VALUE}.")
    long pollMillis = 20;

    @Option(
            names = "--settle",
            paramLabel = "SECONDS",
            description = "Idle time before memory is read. Default: ${DEFAULT-VALUE}.")
    int settleSeconds = 10;

    @Option(
            names = "--rss-samples",
            paramLabel = "N",
            description = "VmRSS readings per node, 1 s apart (median). Default: ${DEFAULT-VALUE}.")
    int rssSamples = 5;

    @Option(
            names = "--repetitions",
            paramLabel = "N",
            description = "Interleaved rounds of API off and on runs. Default: ${DEFAULT-VALUE}.")
    int repetitions = 5;

    @Option(
            names = "--scrape-ms",
            paramLabel = "MS",
            split = ",",
            description = "Scrape intervals of the API-on runs, one run each per round. Default: 1000,50.")
    List<Long> scrapeMillis = new ArrayList<>(List.of(1000L, 50L));

    @Option(
            names = "--warmup",
            paramLabel = "SECONDS",
            description = "Untimed training before each window. Default: ${DEFAULT-VALUE}.")
    int warmupSeconds = 5;

    @Option(
            names = "--window",
            paramLabel = "SECONDS",
            description = "Timed training per run. Default: ${DEFAULT-VALUE}.")
    int windowSeconds = 10;

    @Option(
            names = "--warmup-rounds",
            paramLabel = "N",
            description = "Untimed rounds of every overhead variant first (JIT warm-up). Default: ${DEFAULT-VALUE}.")
    int warmupRounds = 1;

    @Option(
            names = "--set",
            paramLabel = "KEY=VALUE",
            description = "A config key for every node (repeatable), e.g. model.spec=mlp:64 or model.threads=1.")
    List<String> settings = new ArrayList<>();

    @Option(
            names = "--work",
            paramLabel = "DIR",
            description = "Keep the nodes' data directories and logs in DIR (a new directory). Default: a temporary"
                    + " directory, deleted at the end.")
    Path work;

    @Option(names = "--json", description = "Print one JSON object instead of the table.")
    boolean json;

    @Option(
            names = "--out",
            paramLabel = "FILE",
            description = "Also write the results to FILE (repeatable): CSV when it ends in .csv, else JSON.")
    List<Path> out = new ArrayList<>();

    /** Keys the benchmark sets itself. */
    private static final Set<String> OWN_KEYS = Set.of(
            ConfigSchema.CONSORTIUM,
            ConfigSchema.DATA_DIR,
            ConfigSchema.KEY_FILE,
            ConfigSchema.LISTEN,
            ConfigSchema.BOOTSTRAP,
            ConfigSchema.DATA_PATH,
            ConfigSchema.DATA_FORMAT,
            ConfigSchema.DATA_LABEL,
            ConfigSchema.DATA_POSITIVE,
            ConfigSchema.DATA_DROP,
            ConfigSchema.TRAINING_EPOCHS,
            ConfigSchema.AVERAGING_STRATEGY,
            ConfigSchema.API_ENABLED,
            ConfigSchema.API_HOST,
            ConfigSchema.API_PORT);

    @Override
    public Integer call() throws Exception {
        checkOptions();
        Map<String, String> extra = settings();
        Path dir = workDir();
        PrintWriter console = spec.commandLine().getErr();
        double loadBefore = MeasurementReport.loadAverage();
        List<Measurement> results = new ArrayList<>();
        String nodeFlags;
        try {
            nodeFlags = measureStartup(dir, extra, console, results);
            measureOverhead(dir, extra, console, results);
        } finally {
            if (work == null) {
                deleteTree(dir);
            }
        }
        double loadAfter = MeasurementReport.loadAverage();
        String context = String.format(
                Locale.ROOT,
                "%d CPUs, load average %.2f before and %.2f after, Java %s",
                Runtime.getRuntime().availableProcessors(),
                loadBefore,
                loadAfter,
                Runtime.version());
        String processFlags = String.join(" ", NodeProcess.JVM_FLAGS) + " (final: " + nodeFlags + ")";
        String benchFlags =
                String.join(" ", ManagementFactory.getRuntimeMXBean().getInputArguments());
        String doc = json(extra, processFlags, benchFlags, context, results);
        PrintWriter stdout = spec.commandLine().getOut();
        if (json) {
            stdout.println(doc);
        } else {
            printTable(stdout, extra, context, processFlags, benchFlags, results);
        }
        stdout.flush();
        try {
            MeasurementReport.write(out, MeasurementReport.csv(results), doc);
        } catch (IOException e) {
            throw new UserError("cannot write " + out + ": " + e.getMessage(), e);
        }
        return 0;
    }

    private void checkOptions() {
        if (rounds < 1 || repetitions < 1 || rssSamples < 1 || warmupRounds < 0) {
            throw new UserError(
                    "--rounds, --repetitions and --rss-samples must be positive, --warmup-rounds not negative");
        }
        if (pollMillis < 1 || pollMillis > 10_000) {
            throw new UserError("--poll-ms must be between 1 and 10000, got " + pollMillis);
        }
        if (settleSeconds < 0 || warmupSeconds < 0 || windowSeconds < 1) {
            throw new UserError("--settle and --warmup must not be negative, --window must be at least 1 second");
        }
        if (scrapeMillis.isEmpty() || scrapeMillis.stream().anyMatch(ms -> ms < 1 || ms > 60_000)) {
            throw new UserError("--scrape-ms: each interval must be between 1 and 60000, got " + scrapeMillis);
        }
        if (!Files.isReadable(Path.of("/proc/self/status"))) {
            throw new UserError("bench daemon reads /proc/PID/status and needs Linux");
        }
    }

    /**
     * Runs the start-up rounds, adds their figures to {@code results}, and returns the JVM flags a node process
     * ended up with.
     */
    private String measureStartup(Path dir, Map<String, String> extra, PrintWriter console, List<Measurement> results)
            throws IOException, InterruptedException {
        progress(console, rounds + " start-up rounds of two node processes");
        DaemonStartup startup = new DaemonStartup(
                Main.class, dir.resolve("startup"), pollMillis, Duration.ofSeconds(settleSeconds), rssSamples, extra);
        List<DaemonStartup.Round> done = new ArrayList<>();
        for (int r = 0; r < rounds; r++) {
            done.add(startup.run(r));
        }
        results.addAll(startupFigures(done));
        return done.getFirst().memory().getFirst().vmFlags();
    }

    /** Runs the interleaved rounds with the API off and on, and adds their figures to {@code results}. */
    private void measureOverhead(Path dir, Map<String, String> extra, PrintWriter console, List<Measurement> results)
            throws IOException, InterruptedException {
        progress(
                console,
                (warmupRounds + repetitions) + " interleaved rounds of API off and on (scraped every " + scrapeMillis
                        + " ms), " + (warmupSeconds + windowSeconds) + " s each run");
        results.addAll(overhead(new ApiOverhead(
                dir.resolve("overhead"), Duration.ofSeconds(warmupSeconds), Duration.ofSeconds(windowSeconds), extra)));
    }

    private String json(
            Map<String, String> extra,
            String processFlags,
            String benchFlags,
            String context,
            List<Measurement> results) {
        return MeasurementReport.json(
                "daemon",
                w -> {
                    w.member("rounds", rounds);
                    w.member("pollMillis", pollMillis);
                    w.member("settleSeconds", settleSeconds);
                    w.member("repetitions", repetitions);
                    w.member("warmupSeconds", warmupSeconds);
                    w.member("windowSeconds", windowSeconds);
                    w.member("warmupRounds", warmupRounds);
                    w.name("settings").beginObject();
                    extra.forEach(w::member);
                    w.endObject();
                    w.member("nodeProcessJvmFlags", processFlags);
                    w.member("benchJvmFlags", benchFlags);
                    w.member("context", context);
                },
                results);
    }

    private void printTable(
            PrintWriter stdout,
            Map<String, String> extra,
            String context,
            String processFlags,
            String benchFlags,
            List<Measurement> results) {
        stdout.printf(
                Locale.ROOT,
                "daemon: %d start-up rounds (polled every %d ms, memory after %d s idle), %d interleaved"
                        + " overhead rounds of %d s windows after %d s warm-up%s (%s)%n",
                rounds,
                pollMillis,
                settleSeconds,
                repetitions,
                windowSeconds,
                warmupSeconds,
                extra.isEmpty() ? "" : ", settings " + extra,
                context);
        stdout.println("node processes: " + processFlags);
        stdout.println("in-process nodes: this JVM, " + (benchFlags.isEmpty() ? "no flags" : benchFlags));
        MeasurementReport.printRows(stdout, results, 64);
    }

    private List<Measurement> startupFigures(List<DaemonStartup.Round> done) {
        String note = "ms from spawning the second node (bootstrapped to the first) to";
        List<Measurement> m = new ArrayList<>();
        m.add(new Measurement(
                "start to /health 200 (JVM and node start-up)",
                "ms",
                done.stream().map(DaemonStartup.Round::healthMillis).toList(),
                note + " its first /health 200"));
        m.add(new Measurement(
                "start to /ready (first training step taken)",
                "ms",
                done.stream().map(DaemonStartup.Round::readyMillis).toList(),
                note + " its first /ready 200"));
        m.add(new Measurement(
                "start to first connected peer, seen by the dialed node",
                "ms",
                done.stream().map(DaemonStartup.Round::peerSeenByDialedMillis).toList(),
                note + " the first node's /api/peers count >= 1"));
        m.add(new Measurement(
                "start to first connected peer, seen by the new node's API",
                "ms",
                done.stream().map(DaemonStartup.Round::peerSeenByNewMillis).toList(),
                note + " its own /api/peers count >= 1 (never before its API is up)"));
        double mib = 1024.0 * 1024.0;
        List<DaemonStartup.Memory> memory =
                done.stream().flatMap(r -> r.memory().stream()).toList();
        String memNote = "both nodes of every round, connected to each other, training finished (one epoch), after "
                + settleSeconds + " s idle";
        m.add(new Measurement(
                "idle node: resident memory (VmRSS, median of " + rssSamples + ")",
                "MiB",
                memory.stream().map(x -> x.rss() / mib).toList(),
                memNote));
        m.add(new Measurement(
                "idle node: peak resident memory (VmHWM)",
                "MiB",
                memory.stream().map(x -> x.hwm() / mib).toList(),
                memNote));
        if (memory.stream().allMatch(x -> x.heapUsed() >= 0)) {
            m.add(new Measurement(
                    "idle node: heap in use (jcmd GC.heap_info)",
                    "MiB",
                    memory.stream().map(x -> x.heapUsed() / mib).toList(),
                    memNote + "; the node's API does not report its heap"));
        } else {
            m.add(Measurement.skipped(
                    "idle node: heap in use (jcmd GC.heap_info)", "MiB", "jcmd is missing or did not answer"));
        }
        return m;
    }

    /**
     * Runs {@code warmupRounds + repetitions} rounds of every variant (API off, then on per scrape interval), the
     * order rotated each round so that no variant always runs first; each round's ratios divide its on runs by its
     * off run.
     */
    private List<Measurement> overhead(ApiOverhead bench) throws IOException, InterruptedException {
        List<Long> variants = new ArrayList<>();
        variants.add(0L);
        variants.addAll(scrapeMillis);
        Map<Long, List<Double>> steps = new LinkedHashMap<>();
        Map<Long, List<Double>> ratios = new LinkedHashMap<>();
        Map<Long, long[]> scrapes = new LinkedHashMap<>();
        Map<Long, List<Double>> cpuPerScrape = new LinkedHashMap<>();
        Map<Long, List<Double>> cpuShare = new LinkedHashMap<>();
        String trained = "";
        for (long v : variants) {
            steps.put(v, new ArrayList<>());
            ratios.put(v, new ArrayList<>());
            scrapes.put(v, new long[2]);
            cpuPerScrape.put(v, new ArrayList<>());
            cpuShare.put(v, new ArrayList<>());
        }
        for (int r = 0; r < warmupRounds + repetitions; r++) {
            Map<Long, Double> round = new LinkedHashMap<>();
            for (int i = 0; i < variants.size(); i++) {
                long v = variants.get((i + r) % variants.size());
                ApiOverhead.Run run = bench.run(v);
                round.put(v, run.stepsPerSecond());
                trained = "model " + run.model() + " on the " + run.backend() + " backend";
                if (r >= warmupRounds) {
                    scrapes.get(v)[0] += run.scrapes();
                    scrapes.get(v)[1] += run.scrapeFailures();
                    if (v > 0 && run.windowScrapes() > 0) {
                        cpuPerScrape.get(v).add(run.apiCpuNanos() / 1e3 / run.windowScrapes());
                        cpuShare.get(v).add(100.0 * run.apiCpuNanos() / run.windowNanos());
                    }
                }
            }
            if (r >= warmupRounds) {
                for (long v : variants) {
                    steps.get(v).add(round.get(v));
                    ratios.get(v).add(round.get(v) / round.get(0L));
                }
            }
        }
        List<Measurement> m = new ArrayList<>();
        String note = "in-process node, averaging none, " + trained
                + ", fresh data directory per run; steps of the training loop over " + windowSeconds + " s after "
                + warmupSeconds + " s";
        m.add(new Measurement("training steps/s, API off (api.enabled: false)", "steps/s", steps.get(0L), note));
        for (long v : scrapeMillis) {
            long[] s = scrapes.get(v);
            m.add(new Measurement(
                    "training steps/s, API on, scraped every " + v + " ms",
                    "steps/s",
                    steps.get(v),
                    note + "; " + s[0] + " scrapes of /api/status + /metrics answered, " + s[1] + " failed"));
        }
        String cpuNote = "CPU time of the API server's threads (Vert.x event loop) over the window, from the JVM's"
                + " thread CPU clocks; the scraping client's own CPU is not in it";
        for (long v : scrapeMillis) {
            m.add(cpuFigure(
                    "API server CPU per scrape (status + metrics), every " + v + " ms",
                    "us",
                    cpuPerScrape.get(v),
                    cpuNote));
            m.add(cpuFigure(
                    "API server CPU, share of one core, scraped every " + v + " ms", "%", cpuShare.get(v), cpuNote));
        }
        for (long v : scrapeMillis) {
            m.add(new Measurement(
                    "ratio API on / off, scraped every " + v + " ms",
                    "x",
                    ratios.get(v),
                    "per round: the on run's steps/s over the same round's off run"));
        }
        return m;
    }

    private static Measurement cpuFigure(String name, String unit, List<Double> runs, String note) {
        return runs.isEmpty()
                ? Measurement.skipped(name, unit, "no thread CPU clock in this JVM, or no scrape in the window")
                : new Measurement(name, unit, runs, note);
    }

    /** {@code --set} values by key, checked against the schema. */
    private Map<String, String> settings() {
        return ConfigSettings.parse(settings, OWN_KEYS, "set by the benchmark itself");
    }

    private Path workDir() throws IOException {
        if (work == null) {
            return Files.createTempDirectory("chorus-bench-daemon");
        }
        if (Files.exists(work)) {
            try (Stream<Path> entries = Files.list(work)) {
                if (entries.findAny().isPresent()) {
                    throw new UserError("--work: " + work + " is not empty; pick a new directory");
                }
            }
        }
        return Files.createDirectories(work).toAbsolutePath();
    }

    private static void deleteTree(Path dir) throws IOException {
        if (!Files.exists(dir)) {
            return;
        }
        try (Stream<Path> all = Files.walk(dir)) {
            all.sorted(Comparator.reverseOrder()).forEach(p -> {
                try {
                    Files.delete(p);
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
            });
        }
    }

    private static void progress(PrintWriter console, String what) {
        console.println("bench daemon: " + what + " ...");
        console.flush();
    }
}
