package dev.chorus.cli.daemon;

import static org.assertj.core.api.Assertions.assertThat;

import dev.chorus.cli.Main;
import dev.chorus.learning.data.IdxData;
import dev.chorus.learning.data.IdxLoader;
import dev.chorus.node.NodeTestDirs;
import dev.chorus.node.config.ConfigLoader;
import dev.chorus.node.daemon.LocalData;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * {@code chorus node run} on data that a change of the config would make usable: exit code 2 and one line that
 * starts with the config file and key, as the daemon's other config errors do, and names the config keys that
 * make the change.
 */
class NodeDaemonDataErrorTest {

    @TempDir
    Path dir;

    @Test
    void aDropThatLeavesOneClassNamesTheConfigKeys() {
        Path csv = NodeTestDirs.missingForOneClass(dir.resolve("one-class.csv"));
        Path yaml = NodeTestDirs.create(dir, "");
        String config = NodeTestDirs.baseYaml()
                .replace("path: wdbc.csv", "path: one-class.csv")
                .replace("label: Diagnosis", "label: y")
                .replace("  positive: M\n", "")
                .replace("drop: [ID]", "drop: [b]");
        assertThat(config)
                .contains("path: one-class.csv", "label: y", "drop: [b]")
                .doesNotContain("positive");
        write(yaml, config);
        assertThat(nodeRun(yaml))
                .isEqualTo("chorus: " + yaml + ": data.path: only one class (\"1\") in label column y of " + csv
                        + " after dropping 20 rows with a missing value (column chapter: 20);"
                        + " try data.drop: [b, chapter] or data.missing: impute");
    }

    @Test
    void anIdentifierLabelNamesTheConfigKeys() {
        Path yaml = NodeTestDirs.create(dir, "");
        String config = NodeTestDirs.baseYaml()
                .replace("label: Diagnosis", "label: ID")
                .replace("  positive: M\n", "")
                .replace("  drop: [ID]\n", "");
        assertThat(config).contains("label: ID").doesNotContain("positive", "drop");
        write(yaml, config);
        assertThat(nodeRun(yaml))
                .startsWith("chorus: " + yaml + ": data.path: label column ID of ")
                .endsWith(" has 569 distinct values in 569 rows: it looks like an identifier or a continuous value;"
                        + " choose a categorical data.label, or set data.positive for a binary task");
    }

    /** A feature column that numbers the rows is a warning for the log, in config keys, not an error. */
    @Test
    void aColumnThatLooksLikeARowIdentifierIsAWarningInConfigKeys() {
        Path yaml = NodeTestDirs.create(dir, "");
        String config = NodeTestDirs.baseYaml().replace("drop: [ID]", "drop: [Area_mean]");
        assertThat(config).contains("drop: [Area_mean]");
        write(yaml, config);
        LocalData data = LocalData.load(ConfigLoader.load(yaml, List.of()));
        assertThat(data.warnings())
                .containsExactly("column ID looks like a row identifier (a different whole number in each of the 569"
                        + " rows) and is used as a feature; data.drop: [Area_mean, ID] leaves it out");
        write(yaml, NodeTestDirs.baseYaml());
        assertThat(LocalData.load(ConfigLoader.load(yaml, List.of())).warnings())
                .isEmpty();
    }

    /** An unknown label column is the fault of data.label, not of the file: the message names that key. */
    @Test
    void anUnknownLabelNamesTheLabelKey() {
        Path yaml = NodeTestDirs.create(dir, "");
        String config = NodeTestDirs.baseYaml().replace("label: Diagnosis", "label: Diagnosys");
        assertThat(config).contains("label: Diagnosys");
        write(yaml, config);
        assertThat(nodeRun(yaml))
                .startsWith("chorus: " + yaml + ": data.label: " + dir.resolve("wdbc.csv")
                        + ": unknown label column \"Diagnosys\"; available columns: ID, Diagnosis, ");
    }

    /** A file that is not CSV has no remedy in the config; the message still starts with the file and key. */
    @Test
    void aFileThatIsNotCsvNamesTheConfigFileAndPathKey() throws IOException {
        Path binary = Files.write(dir.resolve("image.csv"), new byte[] {(byte) 0xff, (byte) 0xfe, 0, 1, (byte) 0xc3});
        Path yaml = NodeTestDirs.create(dir, "");
        String config = NodeTestDirs.baseYaml().replace("path: wdbc.csv", "path: image.csv");
        assertThat(config).contains("path: image.csv");
        write(yaml, config);
        assertThat(nodeRun(yaml))
                .isEqualTo("chorus: " + yaml + ": data.path: " + binary + ": not UTF-8 text (is it a CSV file?)");
    }

    /** The schema builder's "label column X is also listed as dropped" named neither the file nor the key. */
    @Test
    void aLabelListedAsDroppedOrCategoricalNamesTheFileLineAndKey() {
        Path yaml = NodeTestDirs.create(dir, "");
        String dropped = NodeTestDirs.baseYaml().replace("drop: [ID]", "drop: [ID, Diagnosis]");
        assertThat(dropped).contains("drop: [ID, Diagnosis]");
        write(yaml, dropped);
        assertThat(nodeRun(yaml))
                .isEqualTo("chorus: " + yaml + ":" + lineOf(dropped, "  drop: [ID, Diagnosis]")
                        + ": data.drop: lists Diagnosis, the label column (data.label): the label is never a"
                        + " feature; take it out of data.drop");
        String text = NodeTestDirs.baseYaml().replace("  drop: [ID]\n", "  drop: [ID]\n  categorical: [Diagnosis]\n");
        assertThat(text).contains("  categorical: [Diagnosis]\nmodel:");
        write(yaml, text);
        assertThat(nodeRun(yaml))
                .isEqualTo("chorus: " + yaml + ":" + lineOf(text, "  categorical: [Diagnosis]")
                        + ": data.categorical: lists Diagnosis, the label column (data.label): the label is never a"
                        + " feature; take it out of data.categorical");
    }

    /** A data set of one usable row cannot be split; the message starts with the config file, as the others. */
    @Test
    void tooFewRowsNamesTheConfigFile() throws IOException {
        Path idx = Files.createDirectories(dir.resolve("one-image"));
        IdxData one = new IdxData(null, null, null, null, 2, 2, new byte[] {0, 1, 2, 3}, new byte[] {1});
        try (var images = Files.newOutputStream(idx.resolve("train-images-idx3-ubyte.gz"));
                var labels = Files.newOutputStream(idx.resolve("train-labels-idx1-ubyte.gz"))) {
            IdxLoader.writeImages(one, images);
            IdxLoader.writeLabels(one, labels);
        }
        Path yaml = NodeTestDirs.create(dir, "");
        String config = NodeTestDirs.baseYaml()
                .replace("path: wdbc.csv", "path: one-image")
                .replace("  label: Diagnosis\n", "")
                .replace("  positive: M\n", "")
                .replace("  drop: [ID]\n", "");
        assertThat(config).contains("path: one-image").doesNotContain("label", "positive", "drop");
        write(yaml, config);
        assertThat(nodeRun(yaml))
                .isEqualTo("chorus: " + yaml + ": data.path: " + idx
                        + " has 1 usable rows: too few to train and validate");
    }

    /** The 1-based number of the line {@code line} in {@code text}. */
    private static int lineOf(String text, String line) {
        int index = text.lines().toList().indexOf(line);
        assertThat(index).as(line).isNotNegative();
        return index + 1;
    }

    private static void write(Path file, String text) {
        try {
            Files.writeString(file, text);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Runs {@code chorus node run --config yaml}, which must fail with one line: that line. */
    private static String nodeRun(Path yaml) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        CommandLine cl = Main.commandLine();
        cl.setOut(new PrintWriter(out, true));
        cl.setErr(new PrintWriter(err, true));
        int code = cl.execute("node", "run", "--config", yaml.toString());
        assertThat(code).as(err.toString()).isEqualTo(Main.EXIT_USAGE);
        assertThat(out.toString()).isEmpty();
        assertThat(err.toString().strip().lines()).as(err.toString()).hasSize(1);
        return err.toString().strip();
    }
}
