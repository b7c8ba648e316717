package dev.chorus.node;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.CopyOption;
import java.nio.file.Files;
import java.nio.file.Path;

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

    private BundledData() {}

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
