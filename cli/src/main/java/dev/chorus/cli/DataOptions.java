package dev.chorus.cli;

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
import dev.chorus.node.setup.UserError;
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
 * The options that say which data set to read and how, mixed in ({@code @Mixin}) by the commands that read one data
 * set as a whole: {@code train}, {@code partition}, {@code bench train} and {@code bench cv}. Without {@code --data},
 * the bundled Breast Cancer Wisconsin CSV is used; a directory is read as IDX files unless {@code --format} says
 * otherwise. The loaders ({@link #loadCsv}, {@link #loadIdx}) refuse, as a {@link UserError}, an option that the
 * data's format would ignore, so that no option is silently dropped.
 *
 * <p>{@code testnet}, {@code testnet up} and {@code testnet compose} declare their data options themselves: they take
 * fewer of them (no {@code --format}, {@code --idx-prefix} or {@code --categorical}), and a mixin brings every one of
 * its options, each with one description.
 */
public final class DataOptions {

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
    String idxPrefix;

    /** The IDX file prefix: {@code --idx-prefix}, or {@code train} when it is not given. */
    String idxPrefix() {
        return idxPrefix == null ? "train" : idxPrefix;
    }

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
                    + " of this node's own data. Default: drop. Not for partition, which copies rows as they are.",
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
            return BundledData.NAME;
        }
        return idx() ? data + " (" + idxPrefix() + ")" : data.toString();
    }

    /** The CSV schema the options describe (the bundled data set has its own defaults). */
    CsvSchema schema() {
        CsvSchema.Builder b;
        if (embedded()) {
            b = BundledData.schema(label, positive, drop);
        } else if (label == null) {
            throw new UserError("--label is required for a CSV file: name the column that holds the label");
        } else {
            b = CsvSchema.builder(label).drop(drop);
            if (positive != null) {
                b.positiveClass(positive);
            }
        }
        b.missing(missingPolicy());
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
        // The IDX-only option would be silently ignored, as the CSV options are for IDX data.
        if (idxPrefix != null) {
            throw new UserError(DataAdvice.idxOnly("--idx-prefix"));
        }
        CsvSchema schema = schema();
        if (!embedded()) {
            requireReadable(data);
            try {
                return CsvLoader.load(data, schema);
            } catch (DataException e) {
                throw worded(e, schema, null);
            }
        }
        try {
            Path tmp = Files.createTempFile("chorus-wdbc", ".csv");
            try {
                BundledData.copyTo(tmp, StandardCopyOption.REPLACE_EXISTING);
                return CsvLoader.load(tmp, schema);
            } catch (DataException e) {
                throw worded(e, schema, tmp);
            } finally {
                Files.deleteIfExists(tmp);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * {@code e} with its remedy in these options, and the bundled data set named for its temporary copy {@code
     * copy} (null when the data is the user's own file); {@code e} itself when neither changes its message.
     */
    private static RuntimeException worded(DataException e, CsvSchema schema, Path copy) {
        if (e.remedy().isEmpty() && copy == null) {
            return e;
        }
        String message = DataAdvice.OPTIONS.message(e, schema.drop());
        return new UserError(copy == null ? message : BundledData.named(message, copy), e);
    }

    /** Loads the IDX pair {@code idxPrefix} from the data directory. */
    IdxData loadIdx() {
        if (data == null) {
            throw new UserError("--format idx needs --data DIR, a directory of IDX files (train-*, t10k-*)");
        }
        // The CSV options would be silently ignored: each is refused, in the order the help lists them.
        refuseForIdx("--label", label != null);
        refuseForIdx("--positive", positive != null);
        refuseForIdx("--drop", !drop.isEmpty());
        refuseForIdx("--categorical", !categorical.isEmpty());
        refuseForIdx("--missing", missing != null);
        requireReadable(data);
        if (!Files.isDirectory(data)) {
            throw new UserError("--format idx needs a directory of IDX files, got the file " + data);
        }
        return IdxLoader.readDirectory(data, idxPrefix());
    }

    private static void refuseForIdx(String option, boolean given) {
        if (given) {
            throw new UserError(DataAdvice.csvOnly(option));
        }
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
