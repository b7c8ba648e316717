package dev.chorus.node.cli;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The real data sets bundled with the learning module's tests (a test jar on this module's class
 * path), copied once into a temporary directory so that the CLI reads them as files.
 */
final class TestData {

    private static final Path DIR;

    static {
        try {
            DIR = Files.createTempDirectory("chorus-test-data");
            DIR.toFile().deleteOnExit();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private TestData() {}

    static synchronized Path path(String name) {
        Path file = DIR.resolve(name);
        if (Files.exists(file)) {
            return file;
        }
        try (InputStream in = TestData.class.getResourceAsStream("/datasets/" + name)) {
            if (in == null) {
                throw new IllegalStateException("test data set " + name + " not on the class path");
            }
            Files.copy(in, file);
            file.toFile().deleteOnExit();
            return file;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
