package dev.chorus.node;

import dev.chorus.learning.data.CsvSchema;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.CopyOption;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * The Breast Cancer Wisconsin CSV bundled in the jar (see docs/data.md): the embedded default of
 * {@code train}, {@code partition}, {@code testnet} and {@code demo}. Label {@code Diagnosis},
 * positive class {@code M}, column {@code ID} not a feature.
 */
public final class BundledData {

    /** Class-path location of the CSV. */
    public static final String RESOURCE = "/dev/chorus/node/data/wdbc.csv";

    /** How messages and reports name the bundled data set. */
    public static final String NAME = "wdbc.csv (bundled)";

    /** The label column used when no label is given. */
    public static final String LABEL = "Diagnosis";

    /** The positive class of {@link #LABEL} (malignant). */
    public static final String POSITIVE = "M";

    /** The identifier column, left out of the features with {@link #LABEL}. */
    public static final String ID = "ID";

    private BundledData() {}

    /**
     * The schema of the bundled data set for a command's {@code --label}, {@code --positive} and {@code --drop}
     * (null or empty when not given). Without a label, the data set's own task: label {@link #LABEL}, positive
     * class {@link #POSITIVE} unless one is given, {@link #ID} dropped unless columns are. With a label, the
     * options as given and none of the defaults: they describe the diagnosis task, and {@code --label ID} must not
     * fail on an {@code ID} that the user never asked to drop.
     */
    public static CsvSchema.Builder schema(String label, String positive, List<String> drop) {
        if (label == null) {
            return CsvSchema.builder(LABEL)
                    .positiveClass(positive == null ? POSITIVE : positive)
                    .drop(drop.isEmpty() ? List.of(ID) : drop);
        }
        CsvSchema.Builder b = CsvSchema.builder(label).drop(drop);
        if (positive != null) {
            b.positiveClass(positive);
        }
        return b;
    }

    /** Copies the bundled CSV to {@code target} (the loaders read files). */
    public static void copyTo(Path target, CopyOption... options) throws IOException {
        try (InputStream in = BundledData.class.getResourceAsStream(RESOURCE)) {
            if (in == null) {
                throw new IllegalStateException("the bundled data set " + RESOURCE + " is missing from the jar");
            }
            Files.copy(in, target, options);
        }
    }

    /**
     * {@code message} with the path of {@code copy}, a copy made by {@link #copyTo}, replaced by {@link #NAME}:
     * the copy is temporary, and a message that names it would send the reader to a file that is gone.
     */
    public static String named(String message, Path copy) {
        return message == null ? null : message.replace(copy.toString(), NAME);
    }
}
