package dev.chorus.testnet.localnet;

import java.io.File;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * Starts {@code chorus node run --config FILE} as a detached JVM: the same {@code java} binary and class path as
 * this process, with the command line's main class that the caller names (this module does not know it), standard input from {@code /dev/null}, standard output and error appended to files. The child
 * does not depend on this process: it keeps running after {@code up} exits, until {@code down} signals it. Also
 * used by {@code bench daemon} to measure a node as an operator runs it.
 */
public final class NodeProcess {

    public static final String STDOUT = "stdout.log";
    public static final String STDERR = "stderr.log";

    /** The JVM options every node process gets (no heap size: the JVM's default sizing applies). */
    public static final List<String> JVM_FLAGS =
            List.of("--enable-native-access=ALL-UNNAMED", "--sun-misc-unsafe-memory-access=allow");

    /**
     * A file in a node's home with more JVM options for its process, one per line ({@code #} comments and blank
     * lines skipped), after {@link #JVM_FLAGS}: read at every start, so that a restarted node runs as it first did.
     */
    public static final String JVM_OPTIONS_FILE = "jvm.options";

    /**
     * A file in a node's home with config overrides for its process, one {@code KEY=VALUE} per line ({@code #}
     * comments and blank lines skipped), each passed as {@code --set KEY=VALUE}: read at every start, so that a
     * driver can change a node for its next starts without editing the operator's {@code node.yaml}.
     */
    public static final String OVERRIDES_FILE = "overrides";

    /** Options that would replace the command line {@link #start} builds rather than tune the JVM. */
    private static final List<String> LAUNCH_OPTIONS =
            List.of("-cp", "-classpath", "--class-path", "-jar", "--module", "-m", "--source");

    private NodeProcess() {}

    public static Process start(Class<?> mainClass, Path config, Path logDir) throws IOException {
        return start(mainClass, List.of(), config, logDir);
    }

    /**
     * As {@link #start(Class, Path, Path)}, the command after {@code prefix}, e.g. {@code ip netns exec NS}, which
     * execs the JVM in its place: the process returned is the JVM itself.
     */
    public static Process start(Class<?> mainClass, List<String> prefix, Path config, Path logDir) throws IOException {
        String java = ProcessHandle.current().info().command().orElse("java");
        List<String> cmd = new ArrayList<>(prefix);
        cmd.add(java);
        cmd.addAll(JVM_FLAGS);
        cmd.addAll(readJvmOptions(config.getParent()));
        cmd.addAll(List.of(
                "-cp",
                System.getProperty("java.class.path"),
                mainClass.getName(),
                "node",
                "run",
                "--config",
                config.toString()));
        for (String o : readOverrides(config.getParent())) {
            cmd.add("--set");
            cmd.add(o);
        }
        ProcessBuilder pb = new ProcessBuilder(cmd);
        pb.directory(config.getParent().toFile());
        pb.redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")));
        pb.redirectOutput(
                ProcessBuilder.Redirect.appendTo(logDir.resolve(STDOUT).toFile()));
        pb.redirectError(ProcessBuilder.Redirect.appendTo(logDir.resolve(STDERR).toFile()));
        return pb.start();
    }

    /**
     * Checks JVM options for a node process: each starts with {@code -} and is not one that replaces the launch
     * (a class path, {@code -jar}, a module).
     *
     * @return {@code options}
     * @throws IllegalArgumentException naming the first option that is not acceptable
     */
    public static List<String> checkJvmOptions(List<String> options) {
        for (String o : options) {
            String name = o.contains("=") ? o.substring(0, o.indexOf('=')) : o;
            boolean spaced = !o.startsWith("-D") && o.chars().anyMatch(Character::isWhitespace);
            if (!o.startsWith("-") || o.length() == 1 || spaced || o.strip().length() != o.length()) {
                throw new IllegalArgumentException(
                        "'" + o + "' is not a JVM option (one option per value, starting with '-', e.g. -Xmx512m)");
            }
            if (LAUNCH_OPTIONS.contains(name)) {
                throw new IllegalArgumentException(
                        "'" + o + "' would replace how the node is launched; only options that tune the JVM");
            }
        }
        return options;
    }

    /** Writes {@code options} (checked) as {@code home}/{@value #JVM_OPTIONS_FILE}; none: the file is removed. */
    public static void writeJvmOptions(Path home, List<String> options) throws IOException {
        checkJvmOptions(options);
        writeLines(
                home.resolve(JVM_OPTIONS_FILE),
                "JVM options for this node's process, one per line; read at each start by 'chorus testnet'.",
                options);
    }

    /**
     * The options of {@code home}/{@value #JVM_OPTIONS_FILE}, none when there is no such file.
     *
     * @throws IOException when it cannot be read, or holds a line that {@link #checkJvmOptions} refuses (the message
     *     names the file and line)
     */
    public static List<String> readJvmOptions(Path home) throws IOException {
        return readLines(home.resolve(JVM_OPTIONS_FILE), o -> checkJvmOptions(List.of(o)));
    }

    /**
     * The lines of {@code file} without comments and blank ones, each stripped and passed to {@code check}; none when
     * there is no such file.
     */
    private static List<String> readLines(Path file, Consumer<String> check) throws IOException {
        if (!Files.exists(file)) {
            return List.of();
        }
        List<String> out = new ArrayList<>();
        List<String> lines = Files.readAllLines(file);
        for (int i = 0; i < lines.size(); i++) {
            String line = lines.get(i).strip();
            if (line.isEmpty() || line.startsWith("#")) {
                continue;
            }
            try {
                check.accept(line);
            } catch (IllegalArgumentException e) {
                throw new IOException(file + ":" + (i + 1) + ": " + e.getMessage(), e);
            }
            out.add(line);
        }
        return out;
    }

    /** Writes {@code lines} to {@code file} after a {@code #} comment line; none: the file is removed. */
    private static void writeLines(Path file, String comment, List<String> lines) throws IOException {
        if (lines.isEmpty()) {
            Files.deleteIfExists(file);
            return;
        }
        Files.writeString(file, "# " + comment + "\n" + String.join("\n", lines) + "\n");
    }

    /**
     * Writes {@code overrides} ({@code KEY=VALUE} each, checked) as {@code home}/{@value #OVERRIDES_FILE}; none: the
     * file is removed.
     */
    public static void writeOverrides(Path home, List<String> overrides) throws IOException {
        for (String o : overrides) {
            checkOverride(o);
        }
        writeLines(
                home.resolve(OVERRIDES_FILE),
                "Config overrides for this node's process, KEY=VALUE per line, each passed as --set at its start.",
                overrides);
    }

    /**
     * The overrides of {@code home}/{@value #OVERRIDES_FILE}, none when there is no such file.
     *
     * @throws IOException when it cannot be read, or holds a line that is not {@code KEY=VALUE} (the message names the
     *     file and line)
     */
    public static List<String> readOverrides(Path home) throws IOException {
        return readLines(home.resolve(OVERRIDES_FILE), NodeProcess::checkOverride);
    }

    /** A line of {@value #OVERRIDES_FILE}: a dotted key, {@code =}, a value on the same line. */
    private static void checkOverride(String o) {
        int eq = o.indexOf('=');
        if (eq <= 0 || !o.substring(0, eq).matches("[a-z0-9_]+(\\.[a-z0-9_]+)+") || o.contains("\n")) {
            throw new IllegalArgumentException("'" + o
                    + "' is not a config override (KEY=VALUE with a dotted key, e.g. network.added_delay_ms=200)");
        }
    }

    /**
     * Polls {@code api/ready} until it answers 200; returns null then, or why the node is not ready: it exited, or
     * the timeout passed.
     */
    public static String awaitReady(HttpClient http, Process p, String api, Duration timeout)
            throws InterruptedException {
        return awaitReady(http, p, api, null, timeout);
    }

    /**
     * Polls {@code api/ready} until it answers 200, then, with a {@code token}, checks that {@code api/status}
     * accepts it as {@code Authorization: Bearer TOKEN} (a node off loopback requires it on everything but the
     * probes); returns null then, or why the node is not ready: it exited, the timeout passed, or the API refused
     * the token.
     */
    public static String awaitReady(HttpClient http, Process p, String api, String token, Duration timeout)
            throws InterruptedException {
        String notReady = pollReady(http, p, api, timeout);
        if (notReady != null || token == null) {
            return notReady;
        }
        HttpRequest status = HttpRequest.newBuilder(URI.create(api + "api/status"))
                .header("Authorization", "Bearer " + token)
                .timeout(Duration.ofSeconds(5))
                .build();
        try {
            int code = http.send(status, HttpResponse.BodyHandlers.discarding()).statusCode();
            return code == 200 ? null : api + "api/status answered " + code + " to the node's API token";
        } catch (IOException e) {
            return api + "api/status did not answer: " + e.getMessage();
        }
    }

    private static String pollReady(HttpClient http, Process p, String api, Duration timeout)
            throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        HttpRequest ready = HttpRequest.newBuilder(URI.create(api + "ready"))
                .timeout(Duration.ofSeconds(2))
                .build();
        while (System.nanoTime() < deadline) {
            if (!p.isAlive()) {
                return "the process exited with code " + p.exitValue();
            }
            try {
                if (http.send(ready, HttpResponse.BodyHandlers.discarding()).statusCode() == 200) {
                    return null;
                }
            } catch (IOException notYet) {
                // not listening yet
            }
            Thread.sleep(100);
        }
        return "no answer from " + api + "ready within " + timeout.toSeconds() + " s";
    }

    /** SIGTERM, up to {@code timeout} to exit, then SIGKILL; true when the process has ended. */
    public static boolean stop(Process p, Duration timeout) throws InterruptedException {
        if (!p.isAlive()) {
            return true;
        }
        p.destroy();
        if (p.waitFor(timeout.toNanos(), TimeUnit.NANOSECONDS)) {
            return true;
        }
        p.destroyForcibly();
        return p.waitFor(10, TimeUnit.SECONDS);
    }
}
