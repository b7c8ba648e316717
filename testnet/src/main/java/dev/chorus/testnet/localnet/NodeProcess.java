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
        Path file = home.resolve(JVM_OPTIONS_FILE);
        if (options.isEmpty()) {
            Files.deleteIfExists(file);
            return;
        }
        Files.writeString(
                file,
                "# JVM options for this node's process, one per line; read at each start by 'chorus testnet'.\n"
                        + String.join("\n", options) + "\n");
    }

    /**
     * The options of {@code home}/{@value #JVM_OPTIONS_FILE}, none when there is no such file.
     *
     * @throws IOException when it cannot be read, or holds a line that {@link #checkJvmOptions} refuses (the message
     *     names the file and line)
     */
    public static List<String> readJvmOptions(Path home) throws IOException {
        Path file = home.resolve(JVM_OPTIONS_FILE);
        if (!Files.exists(file)) {
            return List.of();
        }
        List<String> options = new ArrayList<>();
        List<String> lines = Files.readAllLines(file);
        for (int i = 0; i < lines.size(); i++) {
            String line = lines.get(i).strip();
            if (line.isEmpty() || line.startsWith("#")) {
                continue;
            }
            try {
                checkJvmOptions(List.of(line));
            } catch (IllegalArgumentException e) {
                throw new IOException(file + ":" + (i + 1) + ": " + e.getMessage(), e);
            }
            options.add(line);
        }
        return options;
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
