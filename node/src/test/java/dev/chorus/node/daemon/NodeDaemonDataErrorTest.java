package dev.chorus.node.daemon;

import static org.assertj.core.api.Assertions.assertThat;

import dev.chorus.node.NodeTestDirs;
import dev.chorus.node.cli.Main;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
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
