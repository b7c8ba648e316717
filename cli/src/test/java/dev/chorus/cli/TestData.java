package dev.chorus.cli;

import dev.chorus.learning.data.TestDatasets;
import java.nio.file.Path;

/** The real CSV data sets bundled with the learning module's tests. */
final class TestData {

    private TestData() {}

    static Path path(String name) {
        return TestDatasets.csv(name);
    }
}
