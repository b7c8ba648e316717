package dev.chorus.cli.daemon;

import static org.assertj.core.api.Assertions.assertThat;

import dev.chorus.learning.json.JsonReader;
import dev.chorus.node.NodeTestDirs;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The logs of {@code chorus node run} as a child process: JSON lines on standard error and in
 * {@code logs/chorus.log}, levels from the config file, records of the gossip module (which logs
 * through {@code System.Logger}) among them; and an operator's own {@code logback.xml} instead.
 */
class NodeLogProcessTest {

    @TempDir
    Path dir;

    private final List<Process> started = new ArrayList<>();

    @AfterEach
    void stopAll() throws InterruptedException {
        for (Process p : started) {
            if (p.isAlive()) {
                p.destroyForcibly();
                p.waitFor(30, TimeUnit.SECONDS);
            }
        }
    }

    private Process start(List<String> jvmOptions, String... args) throws IOException {
        List<String> cmd = new ArrayList<>(List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "--enable-native-access=ALL-UNNAMED",
                "--sun-misc-unsafe-memory-access=allow"));
        cmd.addAll(jvmOptions);
        cmd.addAll(List.of("-cp", System.getProperty("java.class.path"), "dev.chorus.cli.Main"));
        cmd.addAll(List.of(args));
        ProcessBuilder pb = new ProcessBuilder(cmd);
        pb.redirectOutput(dir.resolve("stdout.txt").toFile());
        pb.redirectError(dir.resolve("stderr.txt").toFile());
        Process p = pb.start();
        started.add(p);
        p.getOutputStream().close();
        return p;
    }

    private String read(String name) throws IOException {
        Path p = dir.resolve(name);
        return Files.exists(p) ? Files.readString(p) : "";
    }

    /** Waits (generously: a loaded machine starts a JVM and ND4J slowly) until {@code file} holds a matching line. */
    private void waitForLine(Path file, Predicate<String> line, Process p) throws Exception {
        long deadline = System.nanoTime() + Duration.ofSeconds(120).toNanos();
        while (!Files.exists(file) || Files.readAllLines(file).stream().noneMatch(line)) {
            assertThat(p.isAlive())
                    .as("the node is running; stderr:\n%s", read("stderr.txt"))
                    .isTrue();
            assertThat(System.nanoTime())
                    .as("a matching line in %s; stderr:\n%s", file, read("stderr.txt"))
                    .isLessThan(deadline);
            Thread.sleep(100);
        }
    }

    /**
     * Waits for the API address on standard output: printed once the node has started and handles
     * SIGTERM (a SIGTERM before that ends the JVM with 143, without a checkpoint).
     */
    private void waitForStarted(Process p) throws Exception {
        waitForLine(dir.resolve("stdout.txt"), l -> l.startsWith("api http://"), p);
    }

    private void stop(Process p) throws InterruptedException, IOException {
        p.destroy(); // SIGTERM
        assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
        assertThat(p.exitValue()).as("stderr:\n%s", read("stderr.txt")).isZero();
    }

    @Test
    void jsonLinesOnStandardErrorAndInTheLogFileAtTheConfiguredLevels() throws Exception {
        Path home = dir.resolve("home");
        Path yaml = NodeTestDirs.create(home, "log:\n  levels: [dev.chorus.gossip.transport=debug]\n");
        Process p = start(List.of(), "--log-format", "json", "node", "run", "--config", yaml.toString());
        Path logFile = home.resolve("logs").resolve("chorus.log");
        waitForStarted(p);
        stop(p);

        List<Map<String, Object>> file = Files.readAllLines(logFile).stream()
                .map(JsonReader::parseObject)
                .toList();
        for (Map<String, Object> line : file) {
            assertThat(line).containsKeys("timestamp", "level", "logger", "thread", "message");
            // Root is at info: the only debug lines are those of the logger the config opened up.
            if (line.get("level").equals("DEBUG")) {
                assertThat((String) line.get("logger")).startsWith("dev.chorus.gossip.transport.");
            }
        }
        assertThat(file)
                .extracting(l -> l.get("level") + " " + l.get("logger") + " " + l.get("message"))
                .anyMatch(s -> s.startsWith("INFO dev.chorus.node.daemon.NodeDaemon data "))
                .anyMatch(s -> s.matches("DEBUG dev\\.chorus\\.gossip\\.transport\\.TcpTransport TCP transport on"
                        + " (epoll|NIO) with \\d+ I/O threads"))
                .anyMatch(s -> s.startsWith("INFO dev.chorus.node.daemon.NodeDaemon node stopped at model version"));

        // Standard error carries the same lines, every one JSON; standard output stays for the CLI.
        List<String> stderr = read("stderr.txt").lines().toList();
        assertThat(stderr).hasSize(file.size());
        stderr.forEach(l -> assertThat(JsonReader.parseObject(l)).containsKey("message"));
        assertThat(read("stdout.txt")).doesNotContain("|-INFO");
        assertThat(read("stdout.txt").lines()).first().asString().startsWith("peer ");
        assertThat(read("stdout.txt")).doesNotContain("{\"timestamp\"").contains("stopped at model version");
    }

    @Test
    void anOperatorsLogbackXmlReplacesTheBuiltInSetup() throws Exception {
        Path home = dir.resolve("home");
        Path yaml = NodeTestDirs.create(home, "");
        Path xml = dir.resolve("logback.xml");
        Files.writeString(xml, """
                <configuration>
                  <contextListener class="ch.qos.logback.classic.jul.LevelChangePropagator"/>
                  <appender name="err" class="ch.qos.logback.core.ConsoleAppender">
                    <target>System.err</target>
                    <encoder><pattern>OPERATOR %level %logger %msg%n</pattern></encoder>
                  </appender>
                  <logger name="dev.chorus.gossip.transport" level="debug"/>
                  <root level="info"><appender-ref ref="err"/></root>
                </configuration>
                """);
        Process p = start(
                List.of("-Dlogback.configurationFile=" + xml),
                "node",
                "run",
                "--log-format",
                "json",
                "--config",
                yaml.toString());
        waitForStarted(p);
        stop(p);

        String stderr = read("stderr.txt");
        assertThat(stderr)
                .contains("OPERATOR INFO dev.chorus.node.daemon.NodeDaemon HTTP API and dashboard on")
                .containsPattern("OPERATOR DEBUG dev\\.chorus\\.gossip\\.transport\\.TcpTransport TCP transport on")
                .doesNotContain("{\"timestamp\"")
                .doesNotContain("|-INFO"); // Logback's own status lines stay quiet
        assertThat(home.resolve("logs").resolve("chorus.log")).doesNotExist();
    }
}
