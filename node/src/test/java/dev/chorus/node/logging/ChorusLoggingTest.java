package dev.chorus.node.logging;

import static org.assertj.core.api.Assertions.assertThat;

import dev.chorus.learning.json.JsonReader;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.slf4j.MDC;

/**
 * The logging setup in this JVM: what reaches standard error (captured) and the log file, in which
 * format, at which levels, from SLF4J, {@code java.util.logging} and {@code System.Logger} alike.
 */
class ChorusLoggingTest {

    /** The logger the gossip module's multistream-select handler uses (it logs through System.Logger). */
    static final String GOSSIP_LOGGER = dev.chorus.gossip.multistream.MultistreamHandler.class.getName();

    private final ByteArrayOutputStream err = new ByteArrayOutputStream();
    private PrintStream originalErr;

    @BeforeEach
    void captureStandardError() {
        originalErr = System.err;
        System.setErr(new PrintStream(err, true, StandardCharsets.UTF_8));
    }

    @AfterEach
    void restore() {
        MDC.clear();
        ChorusLogging.configure(LogSettings.command(LogFormat.TEXT));
        System.setErr(originalErr);
    }

    /**
     * What the logging wrote to standard error. The fuzz tests' agent (Jazzer), loaded into the same test JVM by an
     * earlier test class, writes lines of its own there ({@code INFO: ...}, {@code WARN: ...}) whenever it hooks a
     * class; they are not this logging's, and are left out.
     */
    private List<String> errLines() {
        return err.toString(StandardCharsets.UTF_8)
                .lines()
                .filter(l -> !JAZZER_LINE.matcher(l).lookingAt())
                .toList();
    }

    private static final java.util.regex.Pattern JAZZER_LINE = java.util.regex.Pattern.compile("(INFO|WARN|DEBUG): ");

    private List<Map<String, Object>> jsonLines() {
        return errLines().stream().map(JsonReader::parseObject).toList();
    }

    @Test
    void jsonLineCarriesEveryFieldAndSurvivesQuotesAndLineBreaks() {
        ChorusLogging.configure(LogSettings.command(LogFormat.JSON));
        Logger log = LoggerFactory.getLogger("dev.chorus.test.Json");
        MDC.put("peer", "12D3KooWtest");
        Instant before = Instant.now().minusMillis(1);
        log.warn("a \"quoted\" {} with a\nline break, a tab\t, a backslash \\ and é ✓", "value");
        Instant after = Instant.now().plusMillis(1);

        assertThat(errLines()).hasSize(1);
        Map<String, Object> line = jsonLines().getFirst();
        assertThat(line)
                .containsEntry("level", "WARN")
                .containsEntry("logger", "dev.chorus.test.Json")
                .containsEntry("thread", Thread.currentThread().getName())
                .containsEntry("message", "a \"quoted\" value with a\nline break, a tab\t, a backslash \\ and é ✓")
                .containsEntry("mdc", Map.of("peer", "12D3KooWtest"))
                .doesNotContainKey("stack_trace");
        String timestamp = (String) line.get("timestamp");
        assertThat(timestamp).matches("\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\d\\.\\d{3}Z");
        assertThat(Instant.parse(timestamp)).isBetween(before, after);
    }

    @Test
    void exceptionStackTraceIsOneJsonString() {
        ChorusLogging.configure(LogSettings.command(LogFormat.JSON));
        IllegalStateException thrown =
                new IllegalStateException("outer failure", new java.io.IOException("disk \"full\""));
        LoggerFactory.getLogger("dev.chorus.test.Thrown").error("checkpoint failed", thrown);

        assertThat(errLines()).hasSize(1);
        Map<String, Object> line = jsonLines().getFirst();
        assertThat(line).containsEntry("level", "ERROR").containsEntry("message", "checkpoint failed");
        String trace = (String) line.get("stack_trace");
        assertThat(trace)
                .startsWith("java.lang.IllegalStateException: outer failure")
                .contains("\tat " + ChorusLoggingTest.class.getName() + ".exceptionStackTraceIsOneJsonString(")
                .contains("Caused by: java.io.IOException: disk \"full\"");
    }

    @Test
    void systemLoggerAndJulRecordsComeOutAsJsonAtTheConfiguredLevels() {
        ChorusLogging.configure(new LogSettings(LogFormat.JSON, "warn", Map.of("dev.chorus.gossip", "debug"), null));
        System.Logger gossip = System.getLogger(GOSSIP_LOGGER);
        gossip.log(System.Logger.Level.DEBUG, "multistream-select failed on {0}: {1}", "[id: 0x1]", "boom");
        gossip.log(System.Logger.Level.TRACE, "below the configured level");
        // Root is at warn: debug and info of other loggers stay out, on both APIs.
        System.getLogger("dev.chorus.node.Other").log(System.Logger.Level.INFO, "not shown");
        java.util.logging.Logger.getLogger("dev.chorus.node.Jul").fine("not shown either");
        java.util.logging.Logger.getLogger("dev.chorus.node.Jul").warning("a JUL warning");
        LoggerFactory.getLogger("dev.chorus.node.Slf4j").debug("not shown");

        List<Map<String, Object>> lines = jsonLines();
        assertThat(lines).hasSize(2);
        assertThat(lines.get(0))
                .containsEntry("level", "DEBUG")
                .containsEntry("logger", GOSSIP_LOGGER)
                .containsEntry("message", "multistream-select failed on [id: 0x1]: boom");
        assertThat(lines.get(1))
                .containsEntry("level", "WARN")
                .containsEntry("logger", "dev.chorus.node.Jul")
                .containsEntry("message", "a JUL warning");
    }

    @Test
    void aLevelCanSilenceALibraryOrOpenItUp() {
        ChorusLogging.configure(
                new LogSettings(LogFormat.JSON, "info", Map.of("io.netty", "debug", "dev.chorus.quiet", "off"), null));
        LoggerFactory.getLogger("io.netty.channel.Test").debug("netty detail");
        LoggerFactory.getLogger("org.bytedeco.javacpp.Loader").warn("loader notice"); // built-in: error
        LoggerFactory.getLogger("dev.chorus.quiet.X").error("silenced");
        LoggerFactory.getLogger("dev.chorus.loud.X").info("shown at info");

        assertThat(jsonLines())
                .extracting(l -> l.get("logger") + " " + l.get("message"))
                .containsExactly("io.netty.channel.Test netty detail", "dev.chorus.loud.X shown at info");
    }

    @Test
    void textLinesShowTimeLevelShortLoggerAndMessage() {
        ChorusLogging.configure(LogSettings.command(LogFormat.TEXT));
        LoggerFactory.getLogger("dev.chorus.node.daemon.NodeDaemon").warn("peer {} gone", "abc");
        LoggerFactory.getLogger("dev.chorus.node.daemon.NodeDaemon").info("not shown at the command level");

        assertThat(errLines())
                .singleElement()
                .asString()
                .matches("\\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d:\\d\\d\\.\\d{3} WARN  NodeDaemon - peer abc gone");
    }

    @Test
    void aLogFileThatCannotBeOpenedIsReportedOnStandardError(@TempDir Path dir) throws IOException {
        Path notADirectory = Files.writeString(dir.resolve("logs"), "a file where the directory should be");
        ChorusLogging.configure(new LogSettings(LogFormat.TEXT, "info", Map.of(), notADirectory.resolve("chorus.log")));
        LoggerFactory.getLogger("dev.chorus.test.File").warn("still on standard error");

        String err = this.err.toString(StandardCharsets.UTF_8);
        assertThat(err)
                .contains("ERROR")
                .contains(notADirectory.resolve("chorus.log").toString());
        assertThat(err).contains("WARN  File - still on standard error");
    }

    @Test
    void logFileRollsBySizeAndKeepsFiveFiles(@TempDir Path dir) throws IOException, InterruptedException {
        Path file = dir.resolve("logs").resolve("chorus.log");
        long max = 256 * 1024;
        ChorusLogging.configure(new LogSettings(LogFormat.JSON, "info", Map.of(), file, max));
        Logger log = LoggerFactory.getLogger("dev.chorus.test.Rolling");
        String kib = "x".repeat(1024);
        log.info("first line");
        // 3 MiB through a 256 KiB x 5 window, in 64 KiB bursts: the size is checked every quarter
        // second, so each pause lets a roll happen and the oldest files are dropped.
        for (int burst = 0; burst < 48; burst++) {
            for (int i = 0; i < 64; i++) {
                log.info("{} {}", burst * 64 + i, kib);
            }
            Thread.sleep(ChorusLogging.SIZE_CHECK_PERIOD.getMilliseconds() + 50);
        }
        ChorusLogging.configure(LogSettings.command(LogFormat.TEXT)); // closes the file

        List<String> names;
        try (Stream<Path> files = Files.list(file.getParent())) {
            names = files.map(p -> p.getFileName().toString()).sorted().toList();
        }
        assertThat(names).containsExactly("chorus.1.log", "chorus.2.log", "chorus.3.log", "chorus.4.log", "chorus.log");
        for (String name : names) {
            Path p = file.resolveSibling(name);
            // At most one burst past the limit (a burst is 64 lines of about 1.1 KiB).
            assertThat(Files.size(p)).as(name).isLessThan(max + 80 * 1024);
            try (Stream<String> lines = Files.lines(p)) {
                lines.forEach(l -> assertThat(JsonReader.parseObject(l)).containsKey("message"));
            }
        }
        try (Stream<String> lines = Files.lines(file.resolveSibling("chorus.4.log"))) {
            assertThat(lines.findFirst().orElseThrow()).doesNotContain("first line"); // rolled away
        }
        assertThat(errLines()).hasSize(1 + 48 * 64); // standard error got every line too
    }
}
