package dev.chorus.cli;

import dev.chorus.learning.data.AtomicFile;
import dev.chorus.node.setup.UserError;
import dev.chorus.testnet.faults.FaultReport;
import dev.chorus.testnet.localnet.LocalnetManifest;
import dev.chorus.testnet.soak.SoakException;
import dev.chorus.testnet.soak.SoakJudge;
import dev.chorus.testnet.soak.SoakPlot;
import dev.chorus.testnet.soak.SoakProbe;
import dev.chorus.testnet.soak.SoakSample;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code chorus testnet soak}: starts a {@code testnet up} on loopback (through {@link LocalnetUpCommand}, with the
 * same options), samples every node process each {@code --every} seconds for {@code --minutes} ({@link SoakProbe}),
 * stops the nodes (also on a failure or an interrupt), judges whether each node's resources stayed flat after the
 * warm-up ({@link SoakJudge}), prints the report and writes it as JSON, the samples as CSV (rewritten after every
 * round, so that an interrupted soak keeps what it measured) and a plot as PNG. Exit code 0 when every node stayed
 * within the tolerance and trained on, 1 when not.
 */
@Command(
        name = "soak",
        mixinStandardHelpOptions = true,
        sortOptions = false,
        description = {
            "Runs a testnet of real node processes on loopback for a long time and checks that none leaks: each"
                    + " node's resident memory, threads, open file descriptors and heap after a full garbage"
                    + " collection (forced with jcmd when the JDK has it) are sampled every --every seconds, and after"
                    + " --warmup minutes each must stay within --tolerance of its value then; every node must keep"
                    + " training.",
            "Writes DIR/soak.csv (every sample), DIR/soak.json (the report) and DIR/soak.png (each resource summed"
                    + " over the nodes, as a percentage of its value after the warm-up). The report (a row per"
                    + " round, the figures, and a last line 'soak: passed|failed: REASON') goes to standard output.",
            "Exit code 0: passed, 1: failed, 2: bad input."
        })
public final class LocalnetSoakCommand implements Callable<Integer> {

    @Spec
    picocli.CommandLine.Model.CommandSpec spec;

    @Option(names = "--nodes", paramLabel = "N", description = "Number of nodes (2 to 64). Default: ${DEFAULT-VALUE}.")
    int nodes = 16;

    @Option(names = "--dir", required = true, paramLabel = "DIR", description = "Directory of the testnet (new).")
    Path dir;

    @Mixin
    LocalnetOptions options = new LocalnetOptions();

    @Mixin
    JvmOptions jvm = new JvmOptions();

    @Option(
            names = "--minutes",
            paramLabel = "M",
            description = "How long the soak samples, in minutes. Default: ${DEFAULT-VALUE}.")
    double minutes = 120;

    @Option(
            names = "--every",
            paramLabel = "SECONDS",
            description = "Time between two sampling rounds (at least 1). Default: ${DEFAULT-VALUE}.")
    double everySeconds = 60;

    @Option(
            names = "--warmup",
            paramLabel = "M",
            description = "Minutes before the judging starts: the JVMs size their heaps, the peers connect."
                    + " Default: ${DEFAULT-VALUE}.")
    double warmupMinutes = 10;

    @Option(
            names = "--tolerance",
            paramLabel = "F",
            description = "The largest drift from a node's value after the warm-up, as a fraction. Default:"
                    + " ${DEFAULT-VALUE}.")
    double tolerance = 0.10;

    @Option(
            names = "--no-gc",
            description = "Do not force a full collection before each sample: the heap figure is then what survived"
                    + " each pool's latest collection, young garbage in the old generation included.")
    boolean noGc;

    @Option(
            names = "--base-port",
            paramLabel = "P",
            description = "Node i listens on P+2i and serves its API on P+2i+1. Default: 4600.")
    Integer basePort;

    @Override
    public Integer call() throws IOException, InterruptedException {
        checkOptions();
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        SoakProbe probe = new SoakProbe(noGc ? null : SoakProbe.jcmdBesideJava().orElse(null));
        if (!noGc && !probe.forcesGc()) {
            err.println("chorus: no jcmd beside this java: the heap figure is what survived each pool's latest"
                    + " collection (as with --no-gc)");
        }
        LocalnetUpCommand up = new LocalnetUpCommand();
        up.nodes = nodes;
        up.dir = dir;
        up.basePortOption = basePort;
        up.options = options;
        up.jvm = jvm.orCheckedDefault();
        up.stopsItself = true;
        // Many JVMs start slowly on a small machine: at least five minutes for all of them to get ready.
        up.readyTimeoutSeconds = Math.max(up.readyTimeoutSeconds, 300);
        int code = up.start(err, err);
        if (code != 0) {
            return code;
        }
        List<SoakSample> samples = new ArrayList<>();
        String stopped;
        Thread onExit = new Thread(() -> stopNodes(err));
        Runtime.getRuntime().addShutdownHook(onExit);
        try (probe) {
            stopped = sampleRounds(probe, samples, err);
        } finally {
            stopNodes(err);
            try {
                Runtime.getRuntime().removeShutdownHook(onExit);
            } catch (IllegalStateException shuttingDown) {
                // the hook runs already: it finds the nodes stopped
            }
        }
        FaultReport report = SoakJudge.judge(samples, nodes, warmupMinutes, tolerance, stopped);
        report.figure("full collection before each sample", probe.forcesGc());
        report.figure("node JVM options", String.join(" ", jvm.options()));
        report.print(out);
        report.write(dir.resolve("soak.json"));
        SoakPlot.write(samples, warmupMinutes, tolerance, dir.resolve("soak.png"));
        err.println("report written to " + dir.resolve("soak.json") + ", samples to " + dir.resolve("soak.csv")
                + ", plot to " + dir.resolve("soak.png"));
        err.flush();
        return report.passed() ? 0 : 1;
    }

    private void checkOptions() {
        if (nodes < 2 || nodes > 64) {
            throw new UserError("--nodes: expected 2 to 64, got " + nodes);
        }
        if (!(minutes > 0 && minutes <= 7 * 24 * 60)) {
            throw new UserError("--minutes: expected above 0 and at most a week (10080), got " + minutes);
        }
        if (!(everySeconds >= 1 && everySeconds <= minutes * 60)) {
            throw new UserError("--every: expected 1 to the soak's length in seconds, got " + everySeconds);
        }
        if (!(warmupMinutes >= 0 && warmupMinutes < minutes)) {
            throw new UserError("--warmup: expected 0 up to (not including) --minutes, got " + warmupMinutes);
        }
        if (!(tolerance > 0 && tolerance < 1)) {
            throw new UserError("--tolerance: expected a fraction above 0 and below 1, got " + tolerance);
        }
    }

    /**
     * Samples every node once a round until {@code --minutes} have passed; the CSV is rewritten after each round.
     *
     * @return null when the soak ran its course, otherwise why it stopped (a node gone or not answering)
     */
    private String sampleRounds(SoakProbe probe, List<SoakSample> samples, PrintWriter err)
            throws IOException, InterruptedException {
        List<LocalnetManifest.Node> running = LocalnetManifest.read(dir).nodes();
        long start = System.nanoTime();
        long every = Duration.ofMillis(Math.round(everySeconds * 1000)).toNanos();
        long end = start + Duration.ofMillis(Math.round(minutes * 60_000)).toNanos();
        for (long round = 0; ; round++) {
            long at = start + round * every;
            if (at > end) {
                return null;
            }
            long wait = at - System.nanoTime();
            if (wait > 0) {
                Thread.sleep(Duration.ofNanos(wait));
            }
            double minute = Math.round(round * everySeconds / 60.0 * 100) / 100.0;
            List<SoakSample> taken = new ArrayList<>();
            try {
                for (int i = 0; i < running.size(); i++) {
                    taken.add(probe.sample(i, running.get(i), minute));
                }
            } catch (SoakException e) {
                return "at minute " + minute + ": " + e.getMessage();
            }
            samples.addAll(taken);
            AtomicFile.writeString(dir.resolve("soak.csv"), SoakJudge.csv(samples));
            progress(err, minute, taken);
        }
    }

    private static void progress(PrintWriter err, double minute, List<SoakSample> round) {
        long rss = 0;
        long threads = 0;
        long fds = 0;
        long heap = 0;
        long steps = 0;
        int peers = Integer.MAX_VALUE;
        for (SoakSample s : round) {
            rss += s.residentBytes();
            threads += s.threads();
            fds += s.openFds();
            heap += s.heapAfterGcBytes();
            steps += s.steps();
            peers = Math.min(peers, s.peers());
        }
        err.printf(
                Locale.ROOT,
                "minute %.1f: resident %.0f MiB, threads %d, fds %d, heap after GC %.1f MiB, steps %d, fewest"
                        + " peers %d%n",
                minute,
                rss / 1048576.0,
                threads,
                fds,
                heap / 1048576.0,
                steps,
                peers);
        err.flush();
    }

    private synchronized void stopNodes(PrintWriter err) {
        try {
            if (Files.exists(dir.resolve(LocalnetManifest.FILE))) {
                LocalnetDownCommand.stop(LocalnetManifest.read(dir).nodes(), Duration.ofSeconds(30), err);
            }
        } catch (IOException | RuntimeException e) {
            err.println("chorus: cleanup: " + e.getMessage() + "; run 'chorus testnet down --dir " + dir + "'");
            err.flush();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
