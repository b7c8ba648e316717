package dev.chorus.cli.bench;

import dev.chorus.learning.json.JsonReader;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * Two js-libp2p peers ({@code gossip/src/test/js/peer.js --count-only}) in child processes, one sending
 * to the other's sink: the reference the Java figure is compared with. {@link #close()} stops both.
 */
public final class JsLibP2pPair implements AutoCloseable {
    private final List<JsProcess> processes = new ArrayList<>();
    private final JsProcess sender;
    private final String receiverAddr;

    private JsLibP2pPair(Path dir) throws IOException, InterruptedException {
        try {
            JsProcess receiver = spawn(dir);
            @SuppressWarnings("unchecked")
            List<String> addrs = (List<String>) receiver.await("listening", 60).get("addrs");
            receiverAddr = addrs.getFirst();
            sender = spawn(dir);
            sender.await("listening", 60);
        } catch (IOException | InterruptedException | RuntimeException e) {
            close();
            throw e;
        }
    }

    /** Why the js peers cannot run from {@code dir}, or null when they can. */
    public static String unavailableReason(Path dir) {
        if (!Files.isRegularFile(dir.resolve("peer.js"))) {
            return "no js peer at " + dir + " (run from the repository root or pass --js-dir)";
        }
        if (!Files.isDirectory(dir.resolve("node_modules/libp2p"))) {
            return "js packages missing: run 'npm ci --ignore-scripts' in " + dir;
        }
        try {
            Process p = new ProcessBuilder("node", "--version")
                    .redirectErrorStream(true)
                    .start();
            String v = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
            if (!p.waitFor(10, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                return "node --version did not answer";
            }
            int major = Integer.parseInt(v.substring(1, v.indexOf('.')));
            return major >= 20 ? null : "Node.js 20+ needed, found " + v;
        } catch (IOException | RuntimeException e) {
            return "Node.js not found on PATH";
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return "interrupted";
        }
    }

    /** The receiving js peer's address, with its peer ID: where another implementation can send to its sink. */
    public String receiverAddr() {
        return receiverAddr;
    }

    public static JsLibP2pPair start(Path jsDir) throws IOException, InterruptedException {
        return new JsLibP2pPair(jsDir);
    }

    private JsProcess spawn(Path dir) throws IOException {
        JsProcess p = new JsProcess(new ProcessBuilder("node", "peer.js", "--count-only")
                .directory(dir.toFile())
                .start());
        processes.add(p);
        return p;
    }

    /**
     * Seconds the sender reports from its first byte to the receiver's count, for {@code bytes} bytes
     * yielded in {@code chunk}-byte buffers.
     */
    public double run(long bytes, int chunk) throws IOException, InterruptedException {
        return runTo(receiverAddr, bytes, chunk);
    }

    /** As {@link #run}, with the js sender writing to the sink at {@code addr} (which ends in its peer ID). */
    public double runTo(String addr, long bytes, int chunk) throws IOException, InterruptedException {
        sender.send(
                "{\"cmd\":\"sinkBench\",\"addr\":\"" + addr + "\",\"bytes\":" + bytes + ",\"chunk\":" + chunk + "}");
        Map<String, Object> r = sender.await("sinkSent", 300);
        long acknowledged = ((Number) r.get("acknowledged")).longValue();
        if (acknowledged != bytes) {
            throw new IOException("the js sink acknowledged " + acknowledged + " of " + bytes + " bytes");
        }
        return ((Number) r.get("ms")).doubleValue() / 1000;
    }

    @Override
    public void close() throws InterruptedException {
        for (JsProcess p : processes) {
            p.close();
        }
    }

    /** One node process: JSON commands on stdin, JSON events from stdout. */
    private static final class JsProcess {
        final Process process;
        final Writer stdin;
        final BlockingQueue<String> events = new LinkedBlockingQueue<>();
        final StringBuffer stderr = new StringBuffer();

        JsProcess(Process process) {
            this.process = process;
            this.stdin = process.outputWriter(StandardCharsets.UTF_8);
            pump(process.inputReader(StandardCharsets.UTF_8), true);
            pump(process.errorReader(StandardCharsets.UTF_8), false);
        }

        private void pump(BufferedReader r, boolean toEvents) {
            Thread.ofPlatform().daemon().name("js-peer-output").start(() -> {
                try (r) {
                    String line;
                    while ((line = r.readLine()) != null) {
                        if (toEvents) {
                            events.add(line);
                        } else if (stderr.length() < 64 * 1024) {
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
}
