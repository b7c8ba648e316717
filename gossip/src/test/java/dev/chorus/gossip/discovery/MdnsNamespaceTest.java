package dev.chorus.gossip.discovery;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * mDNS over real multicast sockets: two hosts in a network namespace created by this test (its
 * loopback interface up with multicast on) discover each other and connect. Skipped where network
 * namespaces cannot be created (not root, or no {@code ip} command); the namespace is always
 * deleted.
 */
class MdnsNamespaceTest {

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
    void twoHostsFindEachOtherOverMulticast() throws Exception {
        assumeTrue(
                Files.isExecutable(Path.of("/usr/sbin/ip")) || Files.isExecutable(Path.of("/sbin/ip")),
                "no ip command");
        String ns = "chorus-mdns-" + ProcessHandle.current().pid();
        assumeTrue(run("ip", "netns", "add", ns) == 0, "cannot create a network namespace here (needs root)");
        try {
            assertThat(run("ip", "netns", "exec", ns, "ip", "link", "set", "lo", "up"))
                    .isZero();
            assertThat(run("ip", "netns", "exec", ns, "ip", "link", "set", "lo", "multicast", "on"))
                    .isZero();
            List<String> command = new ArrayList<>(List.of(
                    "ip",
                    "netns",
                    "exec",
                    ns,
                    ProcessHandle.current().info().command().orElseThrow(),
                    "-cp",
                    System.getProperty("java.class.path"),
                    MdnsNamespaceProbe.class.getName()));
            Process probe =
                    new ProcessBuilder(command).redirectErrorStream(true).start();
            boolean done = probe.waitFor(60, TimeUnit.SECONDS);
            if (!done) {
                probe.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
            }
            String output = new String(probe.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            assertThat(done).as(output).isTrue();
            assertThat(probe.exitValue()).as(output).isZero();
            assertThat(output).contains("connected 12D3KooW");
        } finally {
            run("ip", "netns", "delete", ns);
        }
    }
}
