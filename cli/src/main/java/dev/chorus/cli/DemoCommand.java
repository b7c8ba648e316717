package dev.chorus.cli;

import dev.chorus.learning.data.CsvLoader;
import dev.chorus.learning.data.CsvSchema;
import dev.chorus.learning.data.Dataset;
import dev.chorus.learning.data.MissingValuePolicy;
import dev.chorus.learning.json.JsonWriter;
import dev.chorus.learning.optim.LearningRateSchedule;
import dev.chorus.node.BundledData;
import dev.chorus.node.averaging.AveragingDefaults;
import dev.chorus.node.protocol.Dtype;
import dev.chorus.node.setup.UserError;
import dev.chorus.testnet.StrategyKind;
import dev.chorus.testnet.Testnet;
import dev.chorus.testnet.TestnetData;
import dev.chorus.testnet.TestnetRun;
import dev.chorus.testnet.TestnetSettings;
import java.io.Console;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code chorus demo}: four nodes in this JVM on the bundled breast cancer data, split non-IID, compared with each
 * node training alone and with one model trained on all the data.
 */
@Command(
        name = "demo",
        mixinStandardHelpOptions = true,
        sortOptions = false,
        description = {
            "Runs 4 nodes in this JVM on the bundled Breast Cancer Wisconsin data (non-IID split, dirichlet:0.5):"
                    + " each node alone, then Chorus (asynchronous averaging), then one centralized model.",
            "Shows every node's accuracy while it runs, then a table of the final accuracies and what it means."
        })
public final class DemoCommand implements Callable<Integer> {

    static final int NODES = 4;
    static final String PARTITION = TestnetCommand.DEFAULT_PARTITION;

    /** The three runs, in order: what each is called in the table and the JSON, and its strategy. */
    private static final List<Row> ROWS = List.of(
            new Row(StrategyKind.ALONE.id(), StrategyKind.ALONE),
            new Row("chorus", StrategyKind.ASYNC),
            new Row(StrategyKind.CENTRAL.id(), StrategyKind.CENTRAL));

    private record Row(String label, StrategyKind strategy) {}

    /** The shortest total: a second per run, so that each is scored a few times (every 250 ms at the least). */
    static final Duration MIN_DURATION = Duration.ofSeconds(3);

    /** How often the plain (non-terminal) view prints a line, at most. */
    private static final long PLAIN_EVERY_NANOS = Duration.ofSeconds(3).toNanos();

    @Spec
    picocli.CommandLine.Model.CommandSpec spec;

    @Option(
            names = "--duration",
            paramLabel = "TIME",
            description =
                    "Total training time, at least 3s, split evenly among the three runs (60s, 2m). Default: 60s.")
    String duration = "60s";

    @Mixin
    SeedOptions seedOptions = new SeedOptions();

    @Option(names = "--json", description = "Print one JSON object with the three accuracies only.")
    boolean json;

    @Override
    public Integer call() throws Exception {
        TestnetSettings settings;
        try {
            Duration total = TestnetCommand.duration("--duration", duration);
            if (total.compareTo(MIN_DURATION) < 0) {
                throw new IllegalArgumentException("--duration must be at least " + MIN_DURATION.toSeconds()
                        + "s (1s for each of the " + ROWS.size() + " runs), got \"" + duration + "\"");
            }
            Duration perRun = total.dividedBy(ROWS.size());
            Duration evalEvery = Duration.ofMillis(Math.clamp(perRun.toMillis() / 4, 250, 2000));
            settings = new TestnetSettings(
                    new TestnetSettings.Topology(NODES, 0, 0),
                    new TestnetSettings.Training(
                            PARTITION,
                            "logreg",
                            "sgd:lr=0.01,momentum=0.9",
                            32,
                            "cpu",
                            LearningRateSchedule.cosine(LearningRateSchedule.DEFAULT_FLOOR),
                            0),
                    new TestnetSettings.Averaging(
                            AveragingDefaults.EXCHANGE_EVERY_STEPS,
                            AveragingDefaults.MAX_DRIFT_STEPS,
                            0,
                            AveragingDefaults.WEIGHT_BY_SAMPLES,
                            0,
                            3,
                            true,
                            Dtype.F32),
                    TestnetSettings.Impairments.NONE,
                    new TestnetSettings.Evaluation(perRun, evalEvery, Duration.ZERO, 0.9, 0),
                    seedOptions.seed);
        } catch (IllegalArgumentException e) {
            throw new UserError(e.getMessage());
        }
        PrintWriter pw = spec.commandLine().getOut();
        TestnetData data = TestnetData.of(bundled(), null, true, 0.2, settings);
        Console console = System.console();
        LiveView view = json ? null : new LiveView(pw, console != null && console.isTerminal());
        if (!json) {
            pw.printf(
                    Locale.ROOT,
                    "demo: %d nodes, wdbc.csv (bundled; %d training rows, %d test rows), %s, seed %d,"
                            + " %.0fs per run%n",
                    NODES,
                    data.train().rows(),
                    data.test().rows(),
                    data.partition(),
                    seedOptions.seed,
                    settings.evaluation().duration().toMillis() / 1000.0);
            pw.flush();
        }
        Testnet testnet = new Testnet(settings, data);
        double[][] finals = new double[ROWS.size()][];
        for (int i = 0; i < ROWS.size(); i++) {
            Row row = ROWS.get(i);
            if (view != null) {
                view.begin(row.label());
            }
            TestnetRun run = testnet.run(row.strategy(), false, line -> {}, scored -> {
                if (view != null) {
                    view.update(scored);
                }
            });
            if (view != null) {
                view.end();
            }
            finals[i] = run.scores().finalAccuracy();
        }
        if (json) {
            pw.println(json(settings, finals));
        } else {
            table(pw, finals);
            explain(pw, data.test().rows());
        }
        pw.flush();
        return 0;
    }

    private String json(TestnetSettings settings, double[][] finals) {
        StringBuilder sb = new StringBuilder();
        JsonWriter w = JsonWriter.compact(sb);
        w.beginObject();
        w.member("seed", seedOptions.seed);
        w.member("nodes", NODES);
        w.member("partition", PARTITION);
        w.member("secondsPerRun", settings.evaluation().duration().toMillis() / 1000.0);
        w.name("runs").beginArray();
        for (int i = 0; i < ROWS.size(); i++) {
            w.beginObject();
            w.member("label", ROWS.get(i).label());
            w.member("strategy", ROWS.get(i).strategy().id());
            w.member("nodes", finals[i].length);
            w.member("accuracy", TestnetRun.median(finals[i]));
            w.member("accuracyMean", Arrays.stream(finals[i]).average().orElse(Double.NaN));
            w.member("accuracyWorst", Arrays.stream(finals[i]).min().orElse(Double.NaN));
            w.endObject();
        }
        w.endArray();
        w.endObject();
        w.finish();
        return sb.toString();
    }

    private static void table(PrintWriter pw, double[][] finals) {
        pw.println();
        // The worst node beside the mean: a mean hides the member that the averaging left behind.
        pw.printf(Locale.ROOT, "%-26s %5s  %8s  %8s  %s%n", "setup", "nodes", "mean", "worst", "accuracy per node");
        String[] names = {"each node alone", "Chorus, async", "central (pooled data)"};
        for (int i = 0; i < ROWS.size(); i++) {
            StringBuilder perNode = new StringBuilder();
            if (finals[i].length > 1) {
                for (double a : finals[i]) {
                    perNode.append(String.format(Locale.ROOT, "%.4f ", a));
                }
            }
            pw.printf(
                    Locale.ROOT,
                    "%-26s %5d  %8.4f  %8.4f  %s%n",
                    names[i],
                    finals[i].length,
                    Arrays.stream(finals[i]).average().orElse(Double.NaN),
                    Arrays.stream(finals[i]).min().orElse(Double.NaN),
                    perNode.toString().strip());
        }
    }

    /**
     * What the table says, and what it cannot: the accuracies are over a small common test set, so a difference of a
     * row or two is noise, and the central model is one reference run, not a bound that averaging cannot pass. Runs
     * are bounded by time, not by steps, so figures vary a little between runs with the same seed.
     */
    static void explain(PrintWriter pw, int testRows) {
        double row = 100.0 / testRows;
        pw.printf(
                Locale.ROOT,
                "%nEvery model is scored on the same %d held-out test rows: one row is %.1f points of accuracy,%n"
                        + "so differences of a row or two are noise. Alone, each node learns only its own skewed share;%n"
                        + "with Chorus the nodes average their models and approach the central model, trained on all%n"
                        + "the data pooled in one place, which no consortium can do. The central model is%n"
                        + "a reference, not a ceiling: on so few test rows, and with averaging acting as a regularizer,%n"
                        + "Chorus can score above it. The seed fixes the split and the initial models; each run lasts%n"
                        + "a fixed time, so the number of steps, and the order in which asynchronous averaging merges%n"
                        + "models, follow the machine's load: the same seed gives close, not identical, figures.%n",
                testRows,
                row);
    }

    /** The bundled WDBC data: label Diagnosis, positive class M, ID dropped. */
    static Dataset bundled() throws IOException {
        Path file = Files.createTempFile("chorus-wdbc", ".csv");
        try {
            BundledData.copyTo(file, StandardCopyOption.REPLACE_EXISTING);
            CsvSchema schema = CsvSchema.builder("Diagnosis")
                    .positiveClass("M")
                    .drop(List.of("ID"))
                    .missing(MissingValuePolicy.DROP_ROW)
                    .build();
            return CsvLoader.load(file, schema).dataset();
        } finally {
            Files.deleteIfExists(file);
        }
    }

    /**
     * Every node's latest accuracy and model version. On a terminal the block of lines is redrawn in place;
     * otherwise one plain line is printed every few seconds, and one at the end of each run.
     */
    static final class LiveView {
        private final PrintWriter out;
        private final boolean terminal;
        private String label = "";
        private int drawn;
        private long lastPlain;
        private List<TestnetRun.Sample> latest = List.of();

        LiveView(PrintWriter out, boolean terminal) {
            this.out = out;
            this.terminal = terminal;
        }

        void begin(String label) {
            this.label = label;
            this.drawn = 0;
            this.latest = List.of();
            this.lastPlain = System.nanoTime();
        }

        void update(List<TestnetRun.Sample> scored) {
            if (scored.isEmpty()) {
                return;
            }
            latest = scored;
            if (terminal) {
                redraw();
            } else if (System.nanoTime() - lastPlain >= PLAIN_EVERY_NANOS) {
                plain();
            }
        }

        void end() {
            if (!terminal && !latest.isEmpty()) {
                plain();
            }
            out.flush();
        }

        private void redraw() {
            StringBuilder sb = new StringBuilder();
            if (drawn > 0) {
                sb.append("\033[").append(drawn).append('A');
            }
            List<String> lines = lines();
            for (String line : lines) {
                sb.append('\r').append("\033[2K").append(line).append('\n');
            }
            out.print(sb);
            out.flush();
            drawn = lines.size();
        }

        List<String> lines() {
            double t =
                    latest.stream().mapToDouble(TestnetRun.Sample::time).max().orElse(0);
            double[] acc =
                    latest.stream().mapToDouble(TestnetRun.Sample::accuracy).toArray();
            List<String> lines = new java.util.ArrayList<>();
            lines.add(String.format(
                    Locale.ROOT,
                    "%-8s t=%5.1fs  accuracy mean %.4f, worst %.4f",
                    label,
                    t,
                    Arrays.stream(acc).average().orElse(Double.NaN),
                    Arrays.stream(acc).min().orElse(Double.NaN)));
            for (TestnetRun.Sample s : latest) {
                lines.add(String.format(Locale.ROOT, "  %-22s accuracy %.4f", member(s), s.accuracy()));
            }
            return lines;
        }

        /** Who a sample is of: a node, or the one model of the central run, trained on every node's data. */
        private String member(TestnetRun.Sample s) {
            return label.equals(StrategyKind.CENTRAL.id()) ? "central (pooled data)" : "node " + s.node();
        }

        private void plain() {
            double t =
                    latest.stream().mapToDouble(TestnetRun.Sample::time).max().orElse(0);
            StringBuilder sb = new StringBuilder(String.format(Locale.ROOT, "%-8s t=%5.1fs", label, t));
            for (TestnetRun.Sample s : latest) {
                sb.append(String.format(Locale.ROOT, "  %s: %.4f", member(s), s.accuracy()));
            }
            out.println(sb);
            out.flush();
            lastPlain = System.nanoTime();
        }
    }
}
