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
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * The data set and how to read it in this process: {@link DataSourceOptions} ({@code --data}, {@code --label},
 * {@code --positive}, {@code --drop}) and the options of the CSV and IDX loaders ({@code --format}, {@code
 * --idx-prefix}, {@code --categorical}, {@code --missing}). Mixed in ({@code @Mixin}) by the commands that load one
 * data set as a whole: {@code train}, {@code partition}, {@code bench train}, {@code bench cv} and {@code testnet}.
 * Without {@code --data}, the bundled Breast Cancer Wisconsin CSV is used; a directory is read as IDX files unless
 * {@code --format} says otherwise. The loaders ({@link #loadCsv}, {@link #loadIdx}) refuse, as a {@link UserError},
 * an option that the data's format would ignore ({@link #refuseIgnored}), so that no option is silently dropped.
 *
 * <p>{@code testnet up} and {@code testnet compose} take {@link DataSourceOptions} only: their nodes read CSV shards
 * with their own config, so these loader options would not reach them.
 */
public final class DataOptions {

    enum Format {
        auto,
        csv,
        idx
    }

    @Mixin
    DataSourceOptions source = new DataSourceOptions();

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

    @Option(
            names = "--categorical",
            paramLabel = "COL",
            split = ",",
            description = "Columns to one-hot encode (non-numeric columns are detected as categorical anyway).")
    List<String> categorical = new ArrayList<>();

    @Option(
            names = "--missing",
            paramLabel = "drop|impute",
            description = "Missing values (empty or NA): drop the row, or impute the column's median/most frequent"
                    + " value over the rows read. Default: drop. Not for partition, which copies rows as they are.",
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
        return source.bundled();
    }

    boolean idx() {
        return switch (format) {
            case idx -> true;
            case csv -> false;
            case auto -> source.data != null && Files.isDirectory(source.data);
        };
    }

    /** Where the data comes from, for reports. */
    String describe() {
        if (embedded()) {
            return BundledData.NAME;
        }
        return idx() ? source.data + " (" + idxPrefix() + ")" : source.data.toString();
    }

    /** The CSV schema the options describe (the bundled data set has its own defaults). */
    CsvSchema schema() {
        CsvSchema.Builder b;
        if (embedded()) {
            b = BundledData.schema(source.label, source.positive, source.drop);
        } else if (source.label == null) {
            throw new UserError("--label is required for a CSV file: name the column that holds the label");
        } else {
            b = CsvSchema.builder(source.label).drop(source.drop);
            if (source.positive != null) {
                b.positiveClass(source.positive);
            }
        }
        b.missing(missingPolicy());
        if (!categorical.isEmpty()) {
            b.categorical(categorical);
        }
        return b.build();
    }

    /**
     * Refuses, as a {@link UserError}, the first given option that the data's format would silently ignore: with
     * IDX data ({@code --format idx} without {@code --data} first) the CSV options, in the order the help lists
     * them; with CSV data {@code --idx-prefix}. It reads no file, so a command can call it before it starts any
     * work; the loaders call it too.
     */
    void refuseIgnored() {
        if (!idx()) {
            if (idxPrefix != null) {
                throw new UserError(DataAdvice.idxOnly("--idx-prefix"));
            }
            return;
        }
        if (source.data == null) {
            throw new UserError("--format idx needs --data DIR, a directory of IDX files (train-*, t10k-*)");
        }
        refuseForIdx("--label", source.label != null);
        refuseForIdx("--positive", source.positive != null);
        refuseForIdx("--drop", !source.drop.isEmpty());
        refuseForIdx("--categorical", !categorical.isEmpty());
        refuseForIdx("--missing", missing != null);
    }

    /** Loads the CSV file (or the bundled one). */
    CsvData loadCsv() {
        if (idx()) {
            throw new UserError("expected a CSV file, got the IDX directory " + source.data);
        }
        refuseIgnored();
        CsvSchema schema = schema();
        if (!embedded()) {
            requireReadable(source.data);
            try {
                return CsvLoader.load(source.data, schema);
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
        refuseIgnored();
        Path data = source.data;
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

    /**
     * The IDX test pair ({@code t10k}) of the data directory, to score a model trained on the {@code train} pair;
     * null when the directory has none, or when {@code --idx-prefix} names another pair (a shard, which the caller
     * splits itself).
     */
    Dataset loadIdxTest(int classes) {
        if (!idxPrefix().equals("train")) {
            return null;
        }
        Path data = source.data;
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
