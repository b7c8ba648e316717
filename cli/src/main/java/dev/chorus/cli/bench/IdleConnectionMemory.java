package dev.chorus.cli.bench;

import dev.chorus.gossip.host.Connection;
import dev.chorus.gossip.host.Host;
import dev.chorus.gossip.host.HostConfig;
import dev.chorus.gossip.identity.PrivateKey;
import dev.chorus.gossip.multiaddr.Multiaddr;
import dev.chorus.learning.json.JsonReader;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * Memory of a host with many idle connections: an {@link IdleHostProbe} in a child JVM is measured
 * after one connection has come and gone (the baseline) and again once {@code connections} dialers
 * (distinct peers, hosts in this JVM) are connected, identified and quiet.
 */
public final class IdleConnectionMemory {
    private IdleConnectionMemory() {}

    /** What the probe reported: heap used after GC and direct memory, in bytes. */
    public record Snapshot(
            long connections,
            long heapUsed,
            long jdkDirect,
            long allocatorDirect,
            long allocatorHeap,
            long nettyDirectCounter) {
        static Snapshot of(Map<String, Object> m) {
            return new Snapshot(
                    num(m, "connections"),
                    num(m, "heapUsed"),
                    num(m, "jdkDirect"),
                    num(m, "allocatorDirect"),
                    num(m, "allocatorHeap"),
                    num(m, "nettyDirectCounter"));
        }

        private static long num(Map<String, Object> m, String k) {
            return ((Number) m.get(k)).longValue();
        }
    }

    public record Result(Snapshot idle, Snapshot loaded) {}

    public static Result measure(int connections) throws Exception {
        List<String> cmd = List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "--enable-native-access=ALL-UNNAMED",
                "--sun-misc-unsafe-memory-access=allow",
                "-cp",
                System.getProperty("java.class.path"),
                IdleHostProbe.class.getName(),
                Integer.toString(connections));
        Process probe = new ProcessBuilder(cmd)
                .redirectError(ProcessBuilder.Redirect.DISCARD)
                .start();
        // A probe that stops answering must not hang the benchmark: it is killed after 5 minutes.
        Thread watchdog = Thread.ofPlatform().daemon().start(() -> {
            try {
                if (!probe.waitFor(5, TimeUnit.MINUTES)) {
                    probe.destroyForcibly();
                }
            } catch (InterruptedException e) {
                // the measurement finished first
            }
        });
        List<Host> dialers = new ArrayList<>();
        try (Writer stdin = probe.outputWriter(StandardCharsets.UTF_8);
                BufferedReader stdout = probe.inputReader(StandardCharsets.UTF_8)) {
            Multiaddr addr = Multiaddr.parse((String) read(stdout).get("addr"));
            // One connection made and closed first, so that what any first connection loads or caches
            // once (classes' static data, allocator caches) is in the baseline, not in the per-connection cost.
            Host first = Host.start(HostConfig.defaults(PrivateKey.generate())).join();
            try {
                first.connect(addr).get(30, TimeUnit.SECONDS).identify().get(30, TimeUnit.SECONDS);
            } finally {
                first.close();
            }
            Thread.sleep(500);
            Snapshot idle = measure(stdin, stdout);
            List<CompletableFuture<?>> identified = new ArrayList<>();
            for (int i = 0; i < connections; i++) {
                Host h = Host.start(HostConfig.defaults(PrivateKey.generate())).join();
                dialers.add(h);
                Connection c = h.connect(addr).get(30, TimeUnit.SECONDS);
                identified.add(c.identify());
            }
            CompletableFuture.allOf(identified.toArray(CompletableFuture[]::new))
                    .get(60, TimeUnit.SECONDS);
            Thread.sleep(500); // let the last identify exchanges finish on the probe's side
            Snapshot loaded = measure(stdin, stdout);
            if (loaded.connections() != connections) {
                throw new IOException(
                        "the probe holds " + loaded.connections() + " connections, expected " + connections);
            }
            return new Result(idle, loaded);
        } finally {
            CompletableFuture.allOf(dialers.stream().map(Host::closeAsync).toArray(CompletableFuture[]::new))
                    .get(60, TimeUnit.SECONDS);
            if (!probe.waitFor(20, TimeUnit.SECONDS)) {
                probe.destroyForcibly();
                probe.waitFor(10, TimeUnit.SECONDS);
            }
            watchdog.interrupt();
        }
    }

    private static Snapshot measure(Writer stdin, BufferedReader stdout) throws IOException {
        stdin.write("measure\n");
        stdin.flush();
        return Snapshot.of(read(stdout));
    }

    private static Map<String, Object> read(BufferedReader stdout) throws IOException {
        String line = stdout.readLine();
        if (line == null) {
            throw new IOException("the idle-host probe ended early");
        }
        return JsonReader.parseObject(line);
    }
}
