package dev.chorus.cli;

import dev.chorus.learning.data.CsvData;
import dev.chorus.learning.data.Dataset;
import dev.chorus.learning.data.DroppedRows;
import dev.chorus.learning.data.IdxData;
import dev.chorus.learning.data.TrainTestSplit;
import dev.chorus.learning.eval.Evaluation;
import dev.chorus.learning.json.JsonWriter;
import dev.chorus.learning.tensor.TensorBackend;
import dev.chorus.learning.train.ProgressBar;
import dev.chorus.learning.train.ProgressReporter;
import dev.chorus.learning.train.TrainingStats;
import dev.chorus.node.DataAdvice;
import dev.chorus.node.setup.UserError;
import java.io.PrintWriter;
import java.util.Locale;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code chorus train}: trains one model on local data and evaluates it on a held-out split. */
@Command(
        name = "train",
        mixinStandardHelpOptions = true,
        sortOptions = false,
        description = {
            "Trains a model on local data and evaluates it on a held-out test split.",
            "Without --data it trains on the bundled Breast Cancer Wisconsin data set."
        })
final class TrainCommand implements Callable<Integer> {

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

    @Option(
            names = "--test-fraction",
            paramLabel = "F",
            description =
                    "Share of the rows held out for testing (stratified), when the data has no test set of its own."
                            + " Default: ${DEFAULT-VALUE}.")
    double testFraction = 0.2;

    @Option(
            names = "--no-standardize",
            negatable = true,
            description = "Z-score the features with statistics of the training split (CSV data). Default: on.")
    boolean standardize = true;

    @Option(names = "--json", description = "Print one JSON object with the results, nothing else.")
    boolean json;

    @Override
    public Integer call() {
        if (!(testFraction > 0 && testFraction < 1)) {
            throw new UserError("--test-fraction must lie strictly between 0 and 1, got " + testFraction);
        }
        trainingOptions.validate();
        Split data = load();
        PrintWriter out = spec.commandLine().getOut();
        try (TensorBackend backend = backendOptions.create(threadOptions.threads())) {
            if (!json) {
                printHeader(out, data, backend);
            }
            ProgressReporter progress = json ? ProgressReporter.quiet() : ProgressBar.forTerminal();
            TrainingOptions.Outcome outcome =
                    trainingOptions.trainAndEvaluate(backend, data.train(), data.test(), data.scale(), progress);
            try (var net = outcome.model()) {
                if (json) {
                    writeJson(
                            out,
                            backend,
                            data.train(),
                            data.test(),
                            data.csv(),
                            net.parameterCount(),
                            outcome.stats(),
                            outcome.evaluation());
                } else {
                    writeText(out, data.train(), outcome.stats(), outcome.evaluation());
                }
            }
        }
        out.flush();
        return 0;
    }

    /**
     * The data to train and test on.
     *
     * @param scale whether the features are standardized (CSV data, unless {@code --no-standardize})
     * @param csv the CSV as loaded, for its notes; null for IDX data
     */
    private record Split(Dataset train, Dataset test, boolean scale, CsvData csv) {}

    /** Loads the data and splits it; IDX data with a test pair of its own keeps that pair as the test set. */
    private Split load() {
        if (dataOptions.idx()) {
            IdxData idx = dataOptions.loadIdx();
            Dataset all = idx.toDataset(idx.inferredClasses());
            Dataset given = dataOptions.loadIdxTest(all.classes());
            if (given != null) {
                return new Split(all, given, false, null);
            }
            TrainTestSplit split = split(all);
            return new Split(all.subset(split.train()), all.subset(split.test()), false, null);
        }
        CsvData csv = dataOptions.loadCsv();
        Dataset all = csv.dataset();
        TrainTestSplit split = split(all);
        return new Split(all.subset(split.train()), all.subset(split.test()), standardize, csv);
    }

    private void printHeader(PrintWriter out, Split data, TensorBackend backend) {
        Dataset train = data.train();
        CsvData csv = data.csv();
        out.printf(
                Locale.ROOT,
                "data %s: %d training rows, %d test rows, %d features, %d classes%n",
                dataOptions.describe(),
                train.rows(),
                data.test().rows(),
                train.cols(),
                train.classes());
        if (csv != null && csv.droppedRows() > 0) {
            out.println(droppedLine(csv));
        }
        String identifiers = csv == null ? null : DataAdvice.OPTIONS.identifierNote(csv);
        if (identifiers != null) {
            out.println("note: " + identifiers);
        }
        out.printf(
                Locale.ROOT,
                "model %s, optimizer %s, %d epochs, batch %d, backend %s (%d threads), seed %d%n",
                trainingOptions.model().modelSpec(),
                trainingOptions.model().optimizerSpec(),
                trainingOptions.epochs,
                trainingOptions.batch(),
                backend.name(),
                backend.threads(),
                trainingOptions.seed());
        out.flush();
    }

    private TrainTestSplit split(Dataset all) {
        if (all.rows() < 2) {
            throw new UserError("the data set has " + all.rows() + " usable rows: too few to train and test");
        }
        return TrainTestSplit.stratified(all.labels(), all.classes(), testFraction, trainingOptions.seed());
    }

    /** What loading left out: {@code dropped 1350 rows with a missing value (column creatinine: 1350), of 7874 rows}. */
    static String droppedLine(CsvData csv) {
        DroppedRows dropped = csv.dropped();
        String line = "dropped " + dropped.describe(csv.schema().label()) + ", of "
                + csv.table().records().size() + " rows";
        return dropped.missingByColumn().isEmpty() ? line : line + "; --missing impute keeps them";
    }

    private void writeText(PrintWriter out, Dataset train, TrainingStats stats, Evaluation e) {
        out.printf(
                Locale.ROOT,
                "trained %d epochs (%d steps) in %.2f s: %.0f samples/s, final training loss %.4f%n",
                stats.epochs(),
                stats.steps(),
                stats.seconds(),
                stats.samplesPerSecond(),
                stats.finalLoss());
        out.printf(Locale.ROOT, "test accuracy %.4f", e.accuracy());
        if (!Double.isNaN(e.auc())) {
            out.printf(Locale.ROOT, ", ROC AUC %.4f", e.auc());
        }
        out.printf(Locale.ROOT, ", log loss %.4f (%d rows)%n", e.logLoss(), e.rows());
        out.println("confusion matrix (rows: true class, columns: predicted):");
        long[][] m = e.confusion().toArray();
        for (int i = 0; i < m.length; i++) {
            StringBuilder line = new StringBuilder(
                    String.format(Locale.ROOT, "  %-12s", train.classNames().get(i)));
            for (long v : m[i]) {
                line.append(String.format(Locale.ROOT, " %7d", v));
            }
            out.println(line);
        }
    }

    private void writeJson(
            PrintWriter out,
            TensorBackend backend,
            Dataset train,
            Dataset test,
            CsvData csv,
            int parameters,
            TrainingStats stats,
            Evaluation e) {
        StringBuilder sb = new StringBuilder();
        JsonWriter w = JsonWriter.compact(sb);
        w.beginObject();
        w.member("data", dataOptions.describe());
        w.member("model", trainingOptions.model().modelSpec().toString());
        w.member("optimizer", trainingOptions.model().optimizerSpec().toString());
        w.member("parameters", parameters);
        w.member("backend", backend.name());
        w.member("threads", backend.threads());
        w.member("seed", trainingOptions.seed());
        w.member("epochs", stats.epochs());
        w.member("batch", trainingOptions.batch());
        w.member("steps", stats.steps());
        w.member("trainRows", train.rows());
        w.member("testRows", test.rows());
        w.member("features", train.cols());
        w.member("classes", train.classes());
        if (csv != null) {
            w.member("droppedRows", csv.droppedRows());
            w.name("identifierColumns").beginArray();
            csv.identifierColumns().forEach(w::value);
            w.endArray();
        }
        w.member("accuracy", e.accuracy());
        w.member("auc", e.auc());
        w.member("loss", e.logLoss());
        w.member("trainLoss", stats.finalLoss());
        w.member("samplesPerSecond", stats.samplesPerSecond());
        w.member("seconds", stats.seconds());
        w.name("evaluation");
        e.writeJson(w);
        w.endObject();
        w.finish();
        out.println(sb);
    }
}
