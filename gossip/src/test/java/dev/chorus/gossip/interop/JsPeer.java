package dev.chorus.gossip.interop;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A js-libp2p peer ({@code src/test/js/peer.js}) in a child process: JSON commands on its stdin, JSON
 * events from its stdout. {@link #close()} stops it, forcibly if it does not exit by itself.
 */
final class JsPeer implements AutoCloseable {
    static final Path DIR = Path.of("src/test/js").toAbsolutePath();
    static final String HOW_TO_INSTALL =
            "the js interop peer needs Node.js 20+ on PATH and its packages: run `npm ci` in gossip/src/test/js";

    private final Process process;
    private final Writer stdin;
    private final BlockingQueue<String> events = new LinkedBlockingQueue<>();
    private final StringBuffer stderr = new StringBuffer();

    private JsPeer(Process process) {
        this.process = process;
        this.stdin = new OutputStreamWriter(process.getOutputStream(), StandardCharsets.UTF_8);
        Thread.ofPlatform().daemon().name("js-peer-stdout").start(() -> pump(process.getInputStream(), events, null));
        Thread.ofPlatform().daemon().name("js-peer-stderr").start(() -> pump(process.getErrorStream(), null, stderr));
    }

    /**
     * Skips the calling test (JUnit assumption) when Node.js is missing. When Node.js is there but the
     * packages are not, runs {@code npm ci} once (pinned by package-lock.json) and skips if that fails.
     */
    static synchronized void assumeAvailable() {
        assumeTrue(nodeVersion() >= 20, "Node.js 20+ not found; " + HOW_TO_INSTALL);
        if (!installed() && !npmCiTried) {
            npmCiTried = true;
            npmCi();
        }
        assumeTrue(installed(), "js packages not installed (npm ci failed or npm is missing); " + HOW_TO_INSTALL);
    }

    private static boolean npmCiTried;

    private static boolean installed() {
        return Files.isDirectory(DIR.resolve("node_modules/libp2p"))
                && Files.isDirectory(DIR.resolve("node_modules/@chainsafe/libp2p-gossipsub"))
                && Files.isDirectory(DIR.resolve("node_modules/@libp2p/pnet"))
                && Files.isDirectory(DIR.resolve("node_modules/@libp2p/mdns"));
    }

    private static void npmCi() {
        try {
            Process p = new ProcessBuilder("npm", "ci", "--ignore-scripts")
                    .directory(DIR.toFile())
                    .redirectErrorStream(true)
                    .redirectOutput(ProcessBuilder.Redirect.DISCARD)
                    .start();
            if (!p.waitFor(300, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                p.waitFor(10, TimeUnit.SECONDS);
            }
        } catch (IOException e) {
            // npm missing: the assumption below skips
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    static int nodeVersion() {
        try {
            Process p = new ProcessBuilder("node", "--version")
                    .redirectErrorStream(true)
                    .start();
            String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
            if (!p.waitFor(10, TimeUnit.SECONDS) || !out.startsWith("v")) {
                p.destroyForcibly();
                return 0;
            }
            return Integer.parseInt(out.substring(1, out.indexOf('.')));
        } catch (IOException | RuntimeException e) {
            return 0;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return 0;
        }
    }

    static JsPeer start() throws IOException {
        return start("peer.js", java.util.Map.of());
    }

    /** Starts {@code script} from the js directory with extra environment variables and arguments. */
    static JsPeer start(String script, java.util.Map<String, String> env, String... args) throws IOException {
        return start(List.of(), script, env, args);
    }

    /** As {@link #start(String, java.util.Map, String...)}, the command after {@code prefix}, e.g. {@code ip netns exec NS}. */
    static JsPeer start(List<String> prefix, String script, java.util.Map<String, String> env, String... args)
            throws IOException {
        List<String> command = new ArrayList<>(prefix);
        command.addAll(List.of("node", script));
        command.addAll(List.of(args));
        ProcessBuilder b = new ProcessBuilder(command).directory(DIR.toFile());
        b.environment().putAll(env);
        return new JsPeer(b.start());
    }

    /** The next event line of any type, or null after {@code timeoutMillis}. */
    String next(long timeoutMillis) throws InterruptedException {
        return events.poll(timeoutMillis, TimeUnit.MILLISECONDS);
    }

    String stderr() {
        return stderr.toString();
    }

    private static void pump(java.io.InputStream in, BlockingQueue<String> lines, StringBuffer text) {
        try (BufferedReader r = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8))) {
            String line;
            while ((line = r.readLine()) != null) {
                if (lines != null) {
                    lines.add(line);
                } else {
                    text.append(line).append('\n');
                }
            }
        } catch (IOException e) {
            // the process ended
        }
    }

    synchronized void send(String json) throws IOException {
        stdin.write(json + "\n");
        stdin.flush();
    }

    /** The next event of {@code type}; an {@code error} event or a timeout fails. Other events are skipped. */
    String await(String type, long timeoutSeconds) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(timeoutSeconds);
        while (true) {
            long left = deadline - System.nanoTime();
            String line = left > 0 ? events.poll(left, TimeUnit.NANOSECONDS) : null;
            if (line == null) {
                throw new AssertionError("no '" + type + "' event from the js peer within " + timeoutSeconds
                        + " s; its stderr:\n" + stderr);
            }
            String event = field(line, "event");
            if (type.equals(event)) {
                return line;
            }
            if ("error".equals(event)) {
                throw new AssertionError("js peer reported: " + line);
            }
        }
    }

    /** A string or number field of a flat JSON object. */
    static String field(String json, String name) {
        Matcher m = Pattern.compile(
                        "\"" + Pattern.quote(name) + "\":(\"((?:[^\"\\\\]|\\\\.)*)\"|[-0-9.eE]+|true|false|null)")
                .matcher(json);
        if (!m.find()) {
            return null;
        }
        return m.group(2) != null ? m.group(2) : m.group(1);
    }

    /** A JSON array of strings. */
    static List<String> array(String json, String name) {
        Matcher m = Pattern.compile("\"" + Pattern.quote(name) + "\":\\[([^\\]]*)\\]")
                .matcher(json);
        List<String> out = new ArrayList<>();
        if (m.find()) {
            Matcher item =
                    Pattern.compile("\"((?:[^\"\\\\]|\\\\.)*)\"|([-0-9.eE]+)").matcher(m.group(1));
            while (item.find()) {
                out.add(item.group(1) != null ? item.group(1) : item.group(2));
            }
        }
        return out;
    }

    @Override
    public void close() throws InterruptedException {
        try {
            send("{\"cmd\":\"exit\"}");
            stdin.close();
        } catch (IOException e) {
            // already gone
        }
        if (!process.waitFor(10, TimeUnit.SECONDS)) {
            process.destroyForcibly();
            process.waitFor(10, TimeUnit.SECONDS);
        }
    }
}
