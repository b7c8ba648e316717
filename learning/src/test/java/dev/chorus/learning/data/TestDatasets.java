package dev.chorus.learning.data;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.net.URISyntaxException;
import java.net.URL;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/** Where tests find the real data sets: the bundled CSVs, and Fashion-MNIST when present. */
public final class TestDatasets {

    private TestDatasets() {}

    /** A bundled CSV ({@code wdbc.csv}, {@code flchain.csv}, {@code nwtco.csv}). */
    public static Path csv(String name) {
        URL url = TestDatasets.class.getResource("/datasets/" + name);
        if (url == null) {
            throw new IllegalStateException("test resource datasets/" + name + " missing");
        }
        try {
            return Path.of(url.toURI());
        } catch (URISyntaxException e) {
            throw new IllegalStateException(e);
        }
    }

    /** The Fashion-MNIST directory; skips the calling test when it is absent. */
    public static Path fashionMnist() {
        for (Path candidate : List.of(
                Path.of("/work/shared/datasets/fashion-mnist"),
                Path.of("../shared/datasets/fashion-mnist"),
                Path.of("../../shared/datasets/fashion-mnist"))) {
            if (Files.isRegularFile(candidate.resolve("t10k-labels-idx1-ubyte.gz"))) {
                return candidate;
            }
        }
        assumeTrue(false, "Fashion-MNIST not found; skipped");
        throw new AssertionError("unreachable");
    }
}
