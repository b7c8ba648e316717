package dev.chorus.learning.data;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.URISyntaxException;
import java.net.URL;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Where tests find the real data sets: the bundled CSVs (also from this module's test-jar, when
 * other modules' tests use them), and Fashion-MNIST when present.
 */
public final class TestDatasets {

    private static Path extracted;

    private TestDatasets() {}

    /** A bundled CSV ({@code wdbc.csv}, {@code flchain.csv}, {@code nwtco.csv}) as a file. */
    public static synchronized Path csv(String name) {
        URL url = TestDatasets.class.getResource("/datasets/" + name);
        if (url == null) {
            throw new IllegalStateException("test resource datasets/" + name + " missing");
        }
        try {
            if (url.getProtocol().equals("file")) {
                return Path.of(url.toURI());
            }
            // Inside a jar (another module's tests use this module's test-jar): copy it out once.
            if (extracted == null) {
                extracted = Files.createTempDirectory("chorus-datasets");
                extracted.toFile().deleteOnExit();
            }
            Path file = extracted.resolve(name);
            if (!Files.exists(file)) {
                try (InputStream in = url.openStream()) {
                    Files.copy(in, file);
                }
                file.toFile().deleteOnExit();
            }
            return file;
        } catch (URISyntaxException e) {
            throw new IllegalStateException(e);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The bundled WDBC data set: label {@code Diagnosis}, malignant ({@code M}) positive, {@code ID} dropped. */
    public static CsvData wdbc() {
        return CsvLoader.load(
                csv("wdbc.csv"),
                CsvSchema.builder("Diagnosis").positiveClass("M").drop("ID").build());
    }

    /**
     * The Fashion-MNIST directory: {@code CHORUS_FASHION_MNIST}, or {@code shared/datasets/fashion-mnist}
     * beside the repository; skips the calling test when it is absent.
     */
    public static Path fashionMnist() {
        List<Path> candidates = new ArrayList<>();
        String env = System.getenv("CHORUS_FASHION_MNIST");
        if (env != null && !env.isBlank()) {
            candidates.add(Path.of(env));
        }
        // Tests run in the module's directory: the repository root is one level up.
        candidates.add(Path.of("../../shared/datasets/fashion-mnist"));
        candidates.add(Path.of("../shared/datasets/fashion-mnist"));
        for (Path candidate : candidates) {
            if (Files.isRegularFile(candidate.resolve("t10k-labels-idx1-ubyte.gz"))) {
                return candidate;
            }
        }
        assumeTrue(false, "Fashion-MNIST not found (set CHORUS_FASHION_MNIST); skipped");
        throw new AssertionError("unreachable");
    }
}
