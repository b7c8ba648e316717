package dev.chorus.gossip.discovery;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * mDNS over real multicast sockets: two hosts in a {@link MulticastNamespace} discover each other and
 * connect. Skipped where network namespaces cannot be created (not root, or no {@code ip} command); the
 * namespace is always deleted.
 */
class MdnsNamespaceTest {

    @Test
    void twoHostsFindEachOtherOverMulticast() throws Exception {
        try (MulticastNamespace ns = MulticastNamespace.open("chorus-mdns")) {
            Process probe = new ProcessBuilder(ns.exec(List.of(
                            ProcessHandle.current().info().command().orElseThrow(),
                            "-cp",
                            System.getProperty("java.class.path"),
                            MdnsNamespaceProbe.class.getName())))
                    .redirectErrorStream(true)
                    .start();
            boolean done = probe.waitFor(60, TimeUnit.SECONDS);
            if (!done) {
                probe.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
            }
            String output = new String(probe.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            assertThat(done).as(output).isTrue();
            assertThat(probe.exitValue()).as(output).isZero();
            assertThat(output).contains("connected 12D3KooW");
        }
    }
}
