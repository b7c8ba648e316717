package dev.chorus.cli.bench;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * Two js-libp2p peers ({@code gossip/src/test/js/peer.js --count-only}) in child processes, one sending
 * to the other's sink: the reference the Java figure is compared with. {@link #close()} stops both.
 */
public final class JsLibP2pPair implements AutoCloseable {
    private final List<JsPeerProcess> processes = new ArrayList<>();
    private final JsPeerProcess sender;
    private final String receiverAddr;

    private JsLibP2pPair(Path dir) throws IOException, InterruptedException {
        try {
            JsPeerProcess receiver = spawn(dir);
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

    private JsPeerProcess spawn(Path dir) throws IOException {
        JsPeerProcess p = JsPeerProcess.start(dir, "peer.js", "--count-only");
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
        for (JsPeerProcess p : processes) {
            p.close();
        }
    }
}
