package dev.chorus.gossip.interop;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * mDNS discovery against js-libp2p's {@code @libp2p/mdns}, both ways, over real multicast: in a network namespace
 * created by this test (its loopback interface up, multicast on, the multicast range routed to it) a js peer with
 * mDNS and a Chorus host with its {@code MdnsService} ({@link MdnsJsProbe}) must each find the other from the other's
 * answers, and the Chorus host connects to the js peer at the address js announced. Skipped without root and the
 * {@code ip} command, or without Node.js; the namespace and both processes are always removed.
 */
class MdnsJsInteropTest {

    private static int run(String... command) throws IOException, InterruptedException {
        Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        p.getInputStream().readAllBytes();
        if (!p.waitFor(30, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            return -1;
        }
        return p.exitValue();
    }

    @Test
    void aJsPeerAndAChorusHostFindEachOtherByMdns() throws Exception {
        assumeTrue(
                Files.isExecutable(Path.of("/usr/sbin/ip")) || Files.isExecutable(Path.of("/sbin/ip")),
                "no ip command");
        JsPeer.assumeAvailable();
        String ns = "chorus-mdnsjs-" + ProcessHandle.current().pid();
        assumeTrue(run("ip", "netns", "add", ns) == 0, "cannot create a network namespace here (needs root)");
        List<String> inNs = List.of("ip", "netns", "exec", ns);
        Process probe = null;
        try {
            for (String[] step : List.of(
                    new String[] {"ip", "link", "set", "lo", "up"},
                    new String[] {"ip", "link", "set", "lo", "multicast", "on"},
                    new String[] {"ip", "route", "add", "224.0.0.0/4", "dev", "lo"})) {
                String[] command = new String[inNs.size() + step.length];
                System.arraycopy(inNs.toArray(String[]::new), 0, command, 0, inNs.size());
                System.arraycopy(step, 0, command, inNs.size(), step.length);
                assertThat(run(command)).as(String.join(" ", step)).isZero();
            }
            try (JsPeer js = JsPeer.start(inNs, "peer.js", Map.of(), "--mdns")) {
                String listening = js.await("listening", 60);
                String jsPeer = JsPeer.field(listening, "peerId");

                probe = new ProcessBuilder(concat(
                                inNs,
                                ProcessHandle.current().info().command().orElseThrow(),
                                "-cp",
                                System.getProperty("java.class.path"),
                                MdnsJsProbe.class.getName(),
                                jsPeer))
                        .redirectErrorStream(true)
                        .start();
                BlockingQueue<String> lines = lines(probe);
                String self = awaitLine(lines, "self ", 30);
                assertThat(self).as("the Chorus host started").isNotNull();
                String chorusPeer = self.substring("self ".length()).strip();

                // Chorus read js's answer: it found js with an address it could dial.
                String connected = awaitLine(lines, "connected " + jsPeer, 40);
                assertThat(connected)
                        .as("the Chorus host connected to the js peer it found")
                        .isNotNull();

                // js read Chorus's answer: a discovery event naming the Chorus host and its loopback address.
                String found = awaitDiscovery(js, chorusPeer, 30);
                assertThat(JsPeer.array(found, "addrs")).anyMatch(a -> a.startsWith("/ip4/127.0.0.1/tcp/"));
            }
        } finally {
            if (probe != null) {
                probe.getOutputStream().close();
                if (!probe.waitFor(10, TimeUnit.SECONDS)) {
                    probe.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
                }
            }
            run("ip", "netns", "delete", ns);
        }
    }

    private static String[] concat(List<String> prefix, String... rest) {
        String[] all = new String[prefix.size() + rest.length];
        System.arraycopy(prefix.toArray(String[]::new), 0, all, 0, prefix.size());
        System.arraycopy(rest, 0, all, prefix.size(), rest.length);
        return all;
    }

    private static BlockingQueue<String> lines(Process p) {
        BlockingQueue<String> lines = new LinkedBlockingQueue<>();
        Thread.ofPlatform().daemon().name("mdns-probe-stdout").start(() -> {
            try (BufferedReader r =
                    new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
                String line;
                while ((line = r.readLine()) != null) {
                    lines.add(line);
                }
            } catch (IOException ended) {
                // the probe exited
            }
        });
        return lines;
    }

    /** The first line starting with {@code prefix} within {@code seconds}, or null; other lines are skipped. */
    private static String awaitLine(BlockingQueue<String> lines, String prefix, int seconds)
            throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
        while (System.nanoTime() < deadline) {
            String line = lines.poll(100, TimeUnit.MILLISECONDS);
            if (line != null && line.startsWith(prefix)) {
                return line;
            }
        }
        return null;
    }

    /** js's first discovery event naming {@code peer}; fails after {@code seconds} without one. */
    private static String awaitDiscovery(JsPeer js, String peer, int seconds) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
        while (true) {
            long left = Math.max(1, TimeUnit.NANOSECONDS.toSeconds(deadline - System.nanoTime()));
            String event = js.await("discovery", left);
            if (peer.equals(JsPeer.field(event, "peer"))) {
                return event;
            }
        }
    }
}
