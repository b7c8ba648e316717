package dev.chorus.testnet;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.chorus.learning.data.CsvData;
import dev.chorus.learning.data.CsvLoader;
import dev.chorus.learning.data.CsvSchema;
import dev.chorus.learning.data.MissingValuePolicy;
import dev.chorus.learning.data.Sha256;
import dev.chorus.node.BundledData;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The data sets of the quality suite, as {@code bench/data/suite.tsv} lists them, and its held-out tables, as {@code
 * bench/data/holdout.tsv} does (docs/data.md, "The quality suite"): each file is the one the manifest names (its SHA-256), and it loads, with the options the manifest gives
 * and the schema {@code ./chorus train} builds from {@code --label}, {@code --positive}, {@code --drop} and {@code
 * --missing}, into a binary task with both classes and enough rows to split over 8 nodes. The files under {@code
 * ../shared} are outside the repository and skip when absent; those in the repository must be there.
 */
class QualitySuiteDataTest {

    /** The repository root: tests run in the module's directory. */
    private static final Path ROOT = Path.of("..");

    private static final Path MANIFEST = ROOT.resolve("bench/data/suite.tsv");

    /** The tables kept out of every choice of a default, to check on data the defaults were not chosen on. */
    private static final Path HOLDOUT = ROOT.resolve("bench/data/holdout.tsv");

    private static final List<String> HEADER =
            List.of("name", "path", "label", "positive", "drop", "missing", "sha256");

    /** Fewer rows would leave some of 8 nodes under Dirichlet(0.5) label skew with next to nothing to train on. */
    private static final int MIN_ROWS = 150;

    /** One line of the manifest. */
    record Entry(
            String name, String path, String label, String positive, List<String> drop, String missing, String sha256) {

        static Entry parse(String line) {
            String[] f = line.split("\t", -1);
            assertThat(f).as("fields of %s", line).hasSize(HEADER.size());
            List<String> drop = f[4].equals("-") ? List.of() : Arrays.asList(f[4].split(","));
            return new Entry(f[0], f[1], f[2], f[3], drop, f[5], f[6]);
        }

        Path file() {
            return ROOT.resolve(path);
        }

        /** Whether the file lives outside the repository (the shared data directory), so may be absent. */
        boolean external() {
            return path.startsWith("../");
        }

        /** {@code --missing} as the command line reads it. */
        MissingValuePolicy missingPolicy() {
            return switch (missing) {
                case "drop" -> MissingValuePolicy.DROP_ROW;
                case "impute" -> MissingValuePolicy.IMPUTE;
                default -> throw new IllegalArgumentException("missing policy " + missing + " of " + name);
            };
        }

        @Override
        public String toString() {
            return name;
        }
    }

    static Stream<Entry> entries(Path manifest) throws IOException {
        return Files.readAllLines(manifest).stream()
                .skip(1)
                .filter(line -> !line.isBlank())
                .map(Entry::parse);
    }

    /** The suite's entries, then the held-out ones. */
    static Stream<Entry> entries() throws IOException {
        return Stream.concat(entries(MANIFEST), entries(HOLDOUT));
    }

    @Test
    void eachManifestHasItsHeaderAndTheyNameEachDataSetOnce() throws IOException {
        for (Path manifest : List.of(MANIFEST, HOLDOUT)) {
            assertThat(Arrays.asList(Files.readAllLines(manifest).getFirst().split("\t")))
                    .as("header of %s", manifest)
                    .isEqualTo(HEADER);
        }
        assertThat(entries(MANIFEST).map(Entry::name).toList())
                .contains("flchain", "nwtco", "wdbc")
                .hasSizeGreaterThanOrEqualTo(11);
        assertThat(entries(HOLDOUT).map(Entry::name).toList()).hasSizeGreaterThanOrEqualTo(5);
        assertThat(entries().map(Entry::name).toList()).doesNotHaveDuplicates();
    }

    /** Every CSV under bench/data is listed, so none is committed without its row in a manifest. */
    @Test
    void everyCsvUnderBenchDataIsInTheManifest() throws IOException {
        List<String> listed = entries().map(Entry::path).toList();
        try (Stream<Path> files = Files.list(ROOT.resolve("bench/data"))) {
            List<String> csvs = files.map(p -> "bench/data/" + p.getFileName())
                    .filter(p -> p.endsWith(".csv"))
                    .toList();
            assertThat(listed).containsAll(csvs);
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("entries")
    void theFileIsTheOneListedAndLoadsAsABinaryTask(Entry entry) throws IOException {
        Path file = entry.file();
        if (entry.external()) {
            assumeTrue(Files.isRegularFile(file), () -> file + " is absent (the shared data directory)");
        } else {
            assertThat(file).as("%s is in the repository", entry.path()).isRegularFile();
        }
        assertThat(Sha256.hex(Files.readAllBytes(file)))
                .as("SHA-256 of %s", file)
                .isEqualTo(entry.sha256());

        // The command line's schema for --label, --positive, --drop, --missing (DataOptions.schema()).
        CsvSchema schema = BundledData.schema(entry.label(), entry.positive(), entry.drop())
                .missing(entry.missingPolicy())
                .build();
        CsvData data = CsvLoader.load(file, schema);

        assertThat(data.dataset().binary()).isTrue();
        assertThat(data.dataset().rows()).isGreaterThanOrEqualTo(MIN_ROWS);
        int[] counts = data.dataset().labelCounts();
        assertThat(counts[1]).as("rows of class %s", entry.positive()).isPositive();
        assertThat(counts[0]).as("rows of the other class").isPositive();
        assertThat(data.identifierColumns())
                .as("features that look like record numbers")
                .isEmpty();
    }
}
