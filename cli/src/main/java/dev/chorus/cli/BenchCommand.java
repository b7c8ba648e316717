package dev.chorus.cli;

import dev.chorus.learning.bench.GemmBenchmark;
import dev.chorus.learning.data.AtomicFile;
import dev.chorus.learning.data.CsvData;
import dev.chorus.learning.data.Dataset;
import dev.chorus.learning.data.IdxData;
import dev.chorus.learning.data.StratifiedKFold;
import dev.chorus.learning.json.JsonWriter;
import dev.chorus.learning.model.Sequential;
import dev.chorus.learning.optim.OptimizerSpec;
import dev.chorus.learning.tensor.TensorBackend;
import dev.chorus.learning.train.ProgressReporter;
import dev.chorus.learning.train.Trainer;
import dev.chorus.learning.train.TrainingConfig;
import dev.chorus.learning.train.TrainingStats;
import dev.chorus.node.setup.UserError;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import java.util.stream.IntStream;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code chorus bench}: benchmarks whose figures go into docs/benchmarks.md. */
@Command(
        name = "bench",
        mixinStandardHelpOptions = true,
        description = "Benchmarks: training throughput, GEMM, cross-validated accuracy, libp2p, the daemon.",
        subcommands = {
            BenchCommand.Train.class,
            BenchCommand.Gemm.class,
            BenchCommand.CrossValidation.class,
            P2pBenchCommand.class,
            DaemonBenchCommand.class,
            SecAggBenchCommand.class
        })
final class BenchCommand implements Runnable {

    @Spec
    picocli.CommandLine.Model.CommandSpec spec;

    @Override
    public void run() {
        spec.commandLine().usage(spec.commandLine().getOut());
    }

    /** Training throughput (samples/s) for every (threads, batch) pair, one model per pair. */
    @Command(
            name = "train",
            mixinStandardHelpOptions = true,
            sortOptions = false,
            description =
                    "Training throughput in samples/s, per thread count and batch size (one epoch over --samples rows).")
    static final class Train implements Callable<Integer> {

        @Spec
        picocli.CommandLine.Model.CommandSpec spec;

        @Mixin
        DataOptions dataOptions = new DataOptions();

        @Mixin
        ModelOptions modelOptions = new ModelOptions("mlp:256,256");

        // Lists of sizes and counts to time, not BatchOptions or ThreadOptions: those take one of each.
        @Option(names = "--batch", paramLabel = "N", split = ",", description = "Batch sizes. Default: 64,256.")
        List<Integer> batches = new ArrayList<>(List.of(64, 256));

        @Option(names = "--threads", paramLabel = "N", split = ",", description = "Thread counts. Default: 1,2.")
        List<Integer> threads = new ArrayList<>(List.of(1, 2));

        @Option(
                names = "--samples",
                paramLabel = "N",
                description = "Rows timed per configuration. Default: ${DEFAULT-VALUE}.")
        int samples = 60000;

        @Option(
                names = "--warmup",
                paramLabel = "STEPS",
                description = "Untimed steps first. Default: ${DEFAULT-VALUE}.")
        int warmup = 100;

        @Mixin
        BackendOptions backendOptions = new BackendOptions();

        @Mixin
        SeedOptions seedOptions = new SeedOptions();

        @Option(names = "--json", description = "One JSON object per configuration instead of a table.")
        boolean json;

        @Override
        public Integer call() {
            modelOptions.validate();
            Dataset data = load(dataOptions);
            if (samples < 1 || warmup < 0) {
                throw new UserError("--samples must be positive and --warmup not negative");
            }
            PrintWriter out = spec.commandLine().getOut();
            if (!json) {
                out.printf(
                        Locale.ROOT, "%-10s %7s %6s %12s %10s%n", "backend", "threads", "batch", "samples/s", "loss");
            }
            for (int t : threads) {
                try (TensorBackend b = backendOptions.create(t)) {
                    for (int batch : batches) {
                        TrainingStats stats = run(b, data, batch, modelOptions.optimizerSpec(), modelOptions);
                        if (json) {
                            StringBuilder sb = new StringBuilder();
                            JsonWriter w = JsonWriter.compact(sb);
                            w.beginObject();
                            w.member("impl", "chorus");
                            w.member("backend", b.name());
                            w.member("model", modelOptions.modelSpec().toString());
                            w.member("optimizer", modelOptions.optimizer);
                            w.member("threads", t);
                            w.member("batch", batch);
                            w.member("samples", stats.samples());
                            w.member("seconds", stats.seconds());
                            w.member("samplesPerSecond", stats.samplesPerSecond());
                            w.member("loss", stats.finalLoss());
                            w.endObject();
                            w.finish();
                            out.println(sb);
                        } else {
                            out.printf(
                                    Locale.ROOT,
                                    "%-10s %7d %6d %12.0f %10.4f%n",
                                    b.name(),
                                    t,
                                    batch,
                                    stats.samplesPerSecond(),
                                    stats.finalLoss());
                        }
                        out.flush();
                    }
                }
            }
            return 0;
        }

        private TrainingStats run(TensorBackend b, Dataset data, int batch, OptimizerSpec opt, ModelOptions specs) {
            if (batch < 1) {
                throw new UserError("--batch sizes must be positive, got " + batch);
            }
            long seed = seedOptions.seed;
            try (Sequential net = specs.modelSpec().build(b, data.cols(), data.classes(), seed)) {
                var optimizer = opt.create();
                int warmRows = (int) Math.min(data.rows(), (long) warmup * batch);
                if (warmRows > 0) {
                    new Trainer(net, optimizer, new TrainingConfig(1, batch, seed))
                            .progress(ProgressReporter.quiet())
                            .train(data.subset(IntStream.range(0, warmRows).toArray()));
                }
                Dataset timed = data.subset(
                        IntStream.range(0, samples).map(i -> i % data.rows()).toArray());
                return new Trainer(net, optimizer, new TrainingConfig(1, batch, seed + 1))
                        .progress(ProgressReporter.quiet())
                        .train(timed);
            }
        }
    }

    /** SGEMM GFLOP/s of a backend against the machine's peak. */
    @Command(
            name = "gemm",
            mixinStandardHelpOptions = true,
            sortOptions = false,
            description =
                    "Matrix multiply (SGEMM) GFLOP/s at each size and thread count, as a fraction of the CPU's peak.")
    static final class Gemm implements Callable<Integer> {

        @Spec
        picocli.CommandLine.Model.CommandSpec spec;

        @Mixin
        BackendOptions backendOptions = new BackendOptions("cpu");

        @Option(names = "--sizes", paramLabel = "N", split = ",", description = "Square sizes. Default: 1024,4096.")
        int[] sizes = {1024, 4096};

        // A list of counts to time, not ThreadOptions: that takes one.
        @Option(names = "--threads", paramLabel = "N", split = ",", description = "Thread counts. Default: 1,2.")
        int[] threads = {1, 2};

        @Option(
                names = "--repetitions",
                paramLabel = "N",
                description = "Timed runs per point (median). Default: ${DEFAULT-VALUE}.")
        int repetitions = 5;

        @Option(names = "--csv", paramLabel = "FILE", description = "Also write the table as CSV.")
        Path csv;

        @Option(names = "--json", paramLabel = "FILE", description = "Also write the results as JSON.")
        Path jsonFile;

        @Override
        public Integer call() throws IOException {
            GemmBenchmark.Report report;
            try {
                report = GemmBenchmark.run(backendOptions.backend, sizes, threads, repetitions, line -> {});
            } catch (IllegalArgumentException e) {
                throw new UserError(e.getMessage());
            }
            PrintWriter out = spec.commandLine().getOut();
            out.print(report.table());
            if (csv != null) {
                AtomicFile.writeString(csv, report.csv());
            }
            if (jsonFile != null) {
                AtomicFile.writeString(jsonFile, report.json());
            }
            out.flush();
            return 0;
        }
    }

    /** Stratified k-fold cross-validation; writes the folds so other tools can use the same ones. */
    @Command(
            name = "cv",
            mixinStandardHelpOptions = true,
            sortOptions = false,
            description = "Stratified k-fold cross-validated accuracy and ROC AUC (features standardized per fold).")
    static final class CrossValidation implements Callable<Integer> {

        @Spec
        picocli.CommandLine.Model.CommandSpec spec;

        @Mixin
        DataOptions dataOptions = new DataOptions();

        @Mixin
        TrainingOptions trainingOptions = new TrainingOptions();

        @Mixin
        BackendOptions backendOptions = new BackendOptions();

        @Mixin
        ThreadOptions threadOptions = new ThreadOptions();

        @Option(names = "--folds", paramLabel = "K", description = "Number of folds. Default: ${DEFAULT-VALUE}.")
        int folds = 5;

        @Option(names = "--folds-out", paramLabel = "FILE", description = "Write the fold of every row (row,fold CSV).")
        Path foldsOut;

        @Option(names = "--json", description = "One JSON object instead of a table.")
        boolean json;

        @Override
        public Integer call() throws IOException {
            trainingOptions.validate();
            Dataset data = load(dataOptions);
            if (folds < 2) {
                throw new UserError("--folds must be at least 2, got " + folds);
            }
            StratifiedKFold kfold = StratifiedKFold.split(data.labels(), data.classes(), folds, trainingOptions.seed());
            if (foldsOut != null) {
                kfold.writeCsv(foldsOut);
            }
            double[] accuracy = new double[folds];
            double[] auc = new double[folds];
            try (TensorBackend b = backendOptions.create(threadOptions.threads())) {
                for (int f = 0; f < folds; f++) {
                    TrainingOptions.Outcome o = trainingOptions.trainAndEvaluate(
                            b,
                            data.subset(kfold.train(f)),
                            data.subset(kfold.test(f)),
                            !dataOptions.idx(),
                            ProgressReporter.quiet());
                    o.model().close();
                    accuracy[f] = o.evaluation().accuracy();
                    auc[f] = o.evaluation().auc();
                }
            }
            double meanAccuracy = mean(accuracy);
            double meanAuc = mean(auc);
            PrintWriter out = spec.commandLine().getOut();
            if (json) {
                StringBuilder sb = new StringBuilder();
                JsonWriter w = JsonWriter.compact(sb);
                w.beginObject();
                w.member("impl", "chorus");
                w.member("model", trainingOptions.model().modelSpec().toString());
                w.member("optimizer", trainingOptions.model().optimizerSpec().toString());
                w.member("seed", trainingOptions.seed());
                w.name("foldAccuracy").beginArray();
                for (double a : accuracy) {
                    w.value(a);
                }
                w.endArray();
                w.member("accuracy", meanAccuracy);
                w.member("auc", meanAuc);
                w.endObject();
                w.finish();
                out.println(sb);
            } else {
                for (int f = 0; f < folds; f++) {
                    out.printf(Locale.ROOT, "fold %d: accuracy %.4f, ROC AUC %.4f%n", f, accuracy[f], auc[f]);
                }
                out.printf(
                        Locale.ROOT,
                        "mean:   accuracy %.4f, ROC AUC %.4f (%s, seed %d)%n",
                        meanAccuracy,
                        meanAuc,
                        trainingOptions.model().modelSpec(),
                        trainingOptions.seed());
            }
            out.flush();
            return 0;
        }
    }

    static double mean(double[] values) {
        double s = 0;
        for (double v : values) {
            s += v;
        }
        return s / values.length;
    }

    static Dataset load(DataOptions options) {
        if (options.idx()) {
            IdxData idx = options.loadIdx();
            return idx.toDataset(idx.inferredClasses());
        }
        CsvData csv = options.loadCsv();
        return csv.dataset();
    }
}
