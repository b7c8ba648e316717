package dev.chorus.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.chorus.learning.json.JsonReader;
import dev.chorus.node.NodeTestDirs;
import dev.chorus.node.logging.ChorusLogging;
import dev.chorus.node.logging.LogFormat;
import dev.chorus.node.logging.LogSettings;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.LoggerFactory;

/** {@code --log-format} and the {@code log.*} keys through the real command line. */
class LogFormatOptionTest {

    @TempDir
    Path dir;

    private final ByteArrayOutputStream err = new ByteArrayOutputStream();
    private PrintStream originalErr;

    @BeforeEach
    void captureStandardError() {
        originalErr = System.err;
        System.setErr(new PrintStream(err, true, StandardCharsets.UTF_8));
    }

    @AfterEach
    void restore() {
        ChorusLogging.configure(LogSettings.command(LogFormat.TEXT));
        System.setErr(originalErr);
    }

    private List<String> logLines() {
        return err.toString(StandardCharsets.UTF_8).lines().toList();
    }

    @Test
    void logFormatJsonBeforeTheCommandSwitchesEveryLogLineToJson() {
        CliRun run = CliRun.of("--log-format", "json", "--version");
        assertThat(run.exitCode()).isZero();
        LoggerFactory.getLogger("dev.chorus.test.Cli").warn("after the option");
        System.getLogger("dev.chorus.gossip.host.Host").log(System.Logger.Level.WARNING, "from {0}", "gossip");

        List<Map<String, Object>> lines =
                logLines().stream().map(JsonReader::parseObject).toList();
        assertThat(lines)
                .extracting(l -> l.get("logger") + " " + l.get("level") + " " + l.get("message"))
                .containsExactly(
                        "dev.chorus.test.Cli WARN after the option", "dev.chorus.gossip.host.Host WARN from gossip");
    }

    @Test
    void logFormatAfterTheSubcommandWorksTooAndTextIsTheDefault() {
        assertThat(CliRun.of("config", "docs", "--log-format", "json").exitCode())
                .isZero();
        LoggerFactory.getLogger("dev.chorus.test.Cli").warn("json");
        assertThat(CliRun.of("config", "docs").exitCode()).isZero();
        LoggerFactory.getLogger("dev.chorus.test.Cli").warn("text");

        List<String> lines = logLines();
        assertThat(lines).hasSize(2);
        assertThat(JsonReader.parseObject(lines.get(0))).containsEntry("message", "json");
        assertThat(lines.get(1)).endsWith(" WARN  Cli - text");
    }

    @Test
    void unknownLogFormatIsAUsageError() {
        CliRun run = CliRun.of("--log-format", "xml", "--version");
        assertThat(run.exitCode()).isEqualTo(Main.EXIT_USAGE);
        assertThat(run.err().strip().lines()).hasSize(1);
        assertThat(run.err()).contains("--log-format").contains("expected text, json or auto, got 'xml'");
    }

    @Test
    void badRootLevelInTheConfigIsAConfigErrorWithFileAndLine() throws IOException {
        Path yaml = NodeTestDirs.create(dir, "log:\n  level: loud\n");
        CliRun run = CliRun.of("node", "run", "--config", yaml.toString());

        assertThat(run.exitCode()).as(run.err()).isEqualTo(Main.EXIT_USAGE);
        assertThat(run.err().strip().lines()).hasSize(1);
        assertThat(run.err())
                .contains(yaml + ":" + lineOf(yaml, "  level: loud") + ": log.level: expected one of trace, debug,"
                        + " info, warn, error, off, got 'loud'")
                .doesNotContain("\tat ");
        assertThat(run.out()).isEmpty();
    }

    @Test
    void badLoggerLevelNamesTheItemAndItsLine() throws IOException {
        Path yaml = NodeTestDirs.create(dir, "log:\n  levels:\n    - io.netty=info\n    - dev.chorus.gossip=verbose\n");
        CliRun run = CliRun.of("node", "run", "--config", yaml.toString());

        assertThat(run.exitCode()).as(run.err()).isEqualTo(Main.EXIT_USAGE);
        assertThat(run.err().strip().lines()).hasSize(1);
        assertThat(run.err())
                .contains(yaml + ":" + lineOf(yaml, "    - dev.chorus.gossip=verbose")
                        + ": log.levels[1]: unknown level 'verbose' for dev.chorus.gossip");

        Path good = NodeTestDirs.create(dir.resolve("good"), "");
        CliRun noEquals = CliRun.of("config", "check", "--config", good.toString(), "--set", "log.levels=[debug]");
        assertThat(noEquals.exitCode()).isEqualTo(Main.EXIT_USAGE);
        assertThat(noEquals.err()).contains("log.levels[0]: expected logger=level (e.g. io.netty=debug), got 'debug'");
    }

    @Test
    void levelsFromTheConfigAreAccepted() throws IOException {
        Path yaml = NodeTestDirs.create(
                dir, "log:\n  level: warn\n  levels: [dev.chorus.gossip=debug, io.netty=off]\n  format: json\n");
        CliRun run = CliRun.of("config", "check", "--config", yaml.toString());
        assertThat(run.exitCode()).as(run.err()).isZero();
    }

    private static int lineOf(Path file, String line) throws IOException {
        return Files.readAllLines(file).indexOf(line) + 1;
    }
}
