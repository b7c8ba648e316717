package dev.chorus.gossip.interop;

import static org.assertj.core.api.Assertions.assertThat;

import dev.chorus.gossip.discovery.MulticastNamespace;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * mDNS discovery against js-libp2p's {@code @libp2p/mdns}, both ways, over real multicast: in a {@link
 * MulticastNamespace} created by this test a js peer with
 * mDNS and a Chorus host with its {@code MdnsService} ({@link MdnsJsProbe}) must each find the other from the other's
 * answers, and the Chorus host connects to the js peer at the address js announced. Skipped without root and the
 * {@code ip} command, or without Node.js; the namespace and both processes are always removed.
 */
class MdnsJsInteropTest {

    @Test
    void aJsPeerAndAChorusHostFindEachOtherByMdns() throws Exception {
        JsPeer.assumeAvailable();
        try (MulticastNamespace ns = MulticastNamespace.open("chorus-mdnsjs");
                JsPeer js = JsPeer.start(ns.exec(List.of()), "peer.js", Map.of(), "--mdns")) {
            String jsPeer = JsPeer.field(js.await("listening", 60), "peerId");
            Process probe = new ProcessBuilder(ns.exec(List.of(
                            ProcessHandle.current().info().command().orElseThrow(),
                            "-cp",
                            System.getProperty("java.class.path"),
                            MdnsJsProbe.class.getName(),
                            jsPeer)))
                    .redirectErrorStream(true)
                    .start();
            try {
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
            } finally {
                probe.getOutputStream().close();
                if (!probe.waitFor(10, TimeUnit.SECONDS)) {
                    probe.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
                }
            }
        }
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
