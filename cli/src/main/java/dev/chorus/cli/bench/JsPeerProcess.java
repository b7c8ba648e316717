package dev.chorus.cli.bench;

import dev.chorus.learning.json.JsonReader;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * One js test peer in a child process ({@code gossip/src/test/js}): JSON commands on its stdin, JSON events from its
 * stdout, one per line. {@link #close()} stops it, asking first and killing it when it does not exit.
 */
final class JsPeerProcess {
    private static final int MAX_STDERR_CHARS = 64 * 1024;

    private final Process process;
    private final Writer stdin;
    private final BlockingQueue<String> events = new LinkedBlockingQueue<>();
    private final StringBuffer stderr = new StringBuffer();

    private JsPeerProcess(Process process) {
        this.process = process;
        this.stdin = process.outputWriter(StandardCharsets.UTF_8);
        pump(process.inputReader(StandardCharsets.UTF_8), true);
        pump(process.errorReader(StandardCharsets.UTF_8), false);
    }

    /** Starts {@code node SCRIPT ARGS...} in {@code dir}. */
    static JsPeerProcess start(Path dir, String script, String... args) throws IOException {
        List<String> command = new java.util.ArrayList<>(List.of("node", script));
        command.addAll(List.of(args));
        return new JsPeerProcess(
                new ProcessBuilder(command).directory(dir.toFile()).start());
    }

    private void pump(BufferedReader r, boolean toEvents) {
        Thread.ofPlatform().daemon().name("js-peer-output").start(() -> {
            try (r) {
                String line;
                while ((line = r.readLine()) != null) {
                    if (toEvents) {
                        events.add(line);
                    } else if (stderr.length() < MAX_STDERR_CHARS) {
                        stderr.append(line).append('\n');
                    }
                }
            } catch (IOException e) {
                // the process ended
            }
        });
    }

    synchronized void send(String json) throws IOException {
        stdin.write(json + "\n");
        stdin.flush();
    }

    /**
     * The next event named {@code event}, skipping others and lines that are not JSON; an {@code error} event, or
     * none within {@code seconds}, is an {@link IOException} with the peer's stderr.
     */
    Map<String, Object> await(String event, long seconds) throws IOException, InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
        while (true) {
            long left = deadline - System.nanoTime();
            String line = left > 0 ? events.poll(left, TimeUnit.NANOSECONDS) : null;
            if (line == null) {
                throw new IOException(
                        "no '" + event + "' from the js peer within " + seconds + " s; stderr: " + stderr);
            }
            Map<String, Object> m;
            try {
                m = JsonReader.parseObject(line);
            } catch (RuntimeException e) {
                continue; // not one of the peer's JSON lines
            }
            if (event.equals(m.get("event"))) {
                return m;
            }
            if ("error".equals(m.get("event"))) {
                throw new IOException("js peer: " + m.get("message"));
            }
        }
    }

    void close() throws InterruptedException {
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
