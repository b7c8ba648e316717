package dev.chorus.node.cli;

import dev.chorus.learning.data.CsvData;
import dev.chorus.learning.data.CsvLoader;
import dev.chorus.learning.data.CsvSchema;
import dev.chorus.learning.data.DataException;
import dev.chorus.learning.data.Dataset;
import dev.chorus.learning.data.IdxData;
import dev.chorus.learning.data.IdxLoader;
import dev.chorus.learning.data.MissingValuePolicy;
import dev.chorus.node.BundledData;
import dev.chorus.node.DataAdvice;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import picocli.CommandLine.Option;

/**
 * The options that say which data set to read and how: shared by {@code train}, {@code partition}
 * and {@code bench}. Without {@code --data}, the bundled Breast Cancer Wisconsin CSV is used.
 */
final class DataOptions {

    static final String EMBEDDED_NAME = "wdbc.csv (bundled)";

    enum Format {
        auto,
        csv,
        idx
    }

    @Option(
            names = "--data",
            paramLabel = "PATH",
            description = "CSV file, or directory of IDX files (train-*/t10k-*). Default: the bundled WDBC data set.")
    Path data;

    @Option(
            names = "--format",
            paramLabel = "csv|idx",
            description = "Data format; default: idx for a directory, csv otherwise.")
    Format format = Format.auto;

    @Option(
            names = "--idx-prefix",
            paramLabel = "PREFIX",
            description = "File prefix of the IDX pair to train on (train, or node-000 for a shard). Default: train.")
    String idxPrefix = "train";

    @Option(names = "--label", paramLabel = "COLUMN", description = "Label column of a CSV file.")
    String label;

    @Option(
            names = "--positive",
            paramLabel = "VALUE",
            description = "Label value of the positive class (binary tasks); other values are negative.")
    String positive;

    @Option(names = "--drop", paramLabel = "COL", split = ",", description = "Columns to leave out of the features.")
    List<String> drop = new ArrayList<>();

    @Option(
            names = "--categorical",
            paramLabel = "COL",
            split = ",",
            description = "Columns to one-hot encode (non-numeric columns are detected as categorical anyway).")
    List<String> categorical = new ArrayList<>();

    @Option(
            names = "--missing",
            paramLabel = "drop|impute",
            description = "Missing values (empty or NA): drop the row, or impute the median/most frequent value"
                    + " of this node's own data. Default: drop.",
            converter = MissingConverter.class)
    MissingValuePolicy missing;

    /** The missing-value policy for CSV data: {@code --missing}, or dropping the row when it is not given. */
    MissingValuePolicy missingPolicy() {
        return missing == null ? MissingValuePolicy.DROP_ROW : missing;
    }

    /** Parses {@code drop} and {@code impute}. */
    static final class MissingConverter implements picocli.CommandLine.ITypeConverter<MissingValuePolicy> {
        @Override
        public MissingValuePolicy convert(String value) {
            return switch (value.toLowerCase(Locale.ROOT)) {
                case "drop", "drop_row" -> MissingValuePolicy.DROP_ROW;
                case "impute" -> MissingValuePolicy.IMPUTE;
                default ->
                    throw new picocli.CommandLine.TypeConversionException(
                            "expected drop or impute, got '" + value + "'");
            };
        }
    }

    boolean embedded() {
        return data == null;
    }

    boolean idx() {
        return switch (format) {
            case idx -> true;
            case csv -> false;
            case auto -> data != null && Files.isDirectory(data);
        };
    }

    /** Where the data comes from, for reports. */
    String describe() {
        if (embedded()) {
            return EMBEDDED_NAME;
        }
        return idx() ? data + " (" + idxPrefix + ")" : data.toString();
    }

    /** The CSV schema the options describe (the bundled data set has its own defaults). */
    CsvSchema schema() {
        String labelColumn = label;
        String positiveClass = positive;
        List<String> dropped = new ArrayList<>(drop);
        if (embedded()) {
            if (labelColumn == null) {
                labelColumn = "Diagnosis";
                if (positiveClass == null) {
                    positiveClass = "M";
                }
                if (dropped.isEmpty()) {
                    dropped.add("ID");
                }
            }
        } else if (labelColumn == null) {
            throw new UserError("--label is required for a CSV file: name the column that holds the label");
        }
        CsvSchema.Builder b = CsvSchema.builder(labelColumn).drop(dropped).missing(missingPolicy());
        if (positiveClass != null) {
            b.positiveClass(positiveClass);
        }
        if (!categorical.isEmpty()) {
            b.categorical(categorical);
        }
        return b.build();
    }

    /** Loads the CSV file (or the bundled one). */
    CsvData loadCsv() {
        if (idx()) {
            throw new UserError("expected a CSV file, got the IDX directory " + data);
        }
        CsvSchema schema = schema();
        try {
            return loadCsv(schema);
        } catch (DataException e) {
            if (e.remedy().isEmpty()) {
                throw e;
            }
            throw new UserError(DataAdvice.OPTIONS.message(e, schema.drop()), e);
        }
    }

    private CsvData loadCsv(CsvSchema schema) {
        if (!embedded()) {
            requireReadable(data);
            return CsvLoader.load(data, schema);
        }
        try {
            Path tmp = Files.createTempFile("chorus-wdbc", ".csv");
            try {
                BundledData.copyTo(tmp, StandardCopyOption.REPLACE_EXISTING);
                return CsvLoader.load(tmp, schema);
            } finally {
                Files.deleteIfExists(tmp);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Loads the IDX pair {@code idxPrefix} from the data directory. */
    IdxData loadIdx() {
        if (data == null) {
            throw new UserError("--format idx needs --data DIR, a directory of IDX files (train-*, t10k-*)");
        }
        // IDX labels are class bytes 0..N-1 with no column to name or value to pick, and no value is
        // missing: the CSV options would be silently ignored, so they are refused.
        if (positive != null) {
            throw new UserError("--positive applies to CSV labels; IDX data keeps its classes (the label bytes)");
        }
        if (label != null) {
            throw new UserError(
                    "--label applies to CSV files; IDX data has its labels in the *-labels-idx1-ubyte file");
        }
        if (missing != null) {
            throw new UserError(
                    "--missing applies to CSV files; IDX data has no missing values (every pixel is a byte)");
        }
        requireReadable(data);
        if (!Files.isDirectory(data)) {
            throw new UserError("--format idx needs a directory of IDX files, got the file " + data);
        }
        return IdxLoader.readDirectory(data, idxPrefix);
    }

    /** The IDX test pair ({@code t10k}) of the data directory, or null when there is none. */
    Dataset loadIdxTest(int classes) {
        try (var files = Files.list(data)) {
            boolean present = files.anyMatch(p -> p.getFileName().toString().startsWith("t10k-images-idx3-ubyte"));
            return present ? IdxLoader.readDirectory(data, "t10k").toDataset(classes) : null;
        } catch (IOException e) {
            throw new UserError("cannot list " + data + ": " + e.getMessage());
        }
    }

    static void requireReadable(Path path) {
        if (!Files.exists(path)) {
            throw new UserError("data file not found: " + path);
        }
        if (!Files.isReadable(path)) {
            throw new UserError("data file not readable: " + path);
        }
    }
}
