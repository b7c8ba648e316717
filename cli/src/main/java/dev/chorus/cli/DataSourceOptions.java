package dev.chorus.cli;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import picocli.CommandLine.Option;

/**
 * Which data set, and which of its CSV columns are the label and the features: {@code --data}, {@code --label},
 * {@code --positive} and {@code --drop}, the options every command that reads a data set takes. {@link DataOptions}
 * mixes it in ({@code @Mixin}) for the commands that load the data in this process ({@code train}, {@code
 * partition}, {@code bench train}, {@code bench cv} and {@code testnet}), and {@link LocalnetOptions} for {@code
 * testnet up} and {@code testnet compose}, whose nodes read CSV shards of it. Without {@code --data}, the bundled
 * Breast Cancer Wisconsin CSV is used, with its own label, positive class and dropped column unless {@code --label}
 * is given.
 *
 * <p>It only declares the options: what a command makes of them (and which it refuses for the data it got) is the
 * command's or its loader's.
 */
public final class DataSourceOptions {

    @Option(
            names = "--data",
            paramLabel = "PATH",
            description = "CSV file, or (not for 'testnet up' and 'testnet compose') directory of IDX files"
                    + " (train-*/t10k-*). Default: the bundled WDBC data set.")
    Path data;

    @Option(
            names = "--label",
            paramLabel = "COLUMN",
            description = "Label column of a CSV file; required with a --data CSV file.")
    String label;

    @Option(
            names = "--positive",
            paramLabel = "VALUE",
            description = "Label value of the positive class (binary tasks); other values are negative.")
    String positive;

    @Option(names = "--drop", paramLabel = "COL", split = ",", description = "Columns to leave out of the features.")
    List<String> drop = new ArrayList<>();

    /** Whether {@code --data} is not given, so that the bundled data set is read. */
    boolean bundled() {
        return data == null;
    }
}
