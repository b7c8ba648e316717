package dev.chorus.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.chorus.gossip.host.Host;
import dev.chorus.gossip.host.HostConfig;
import dev.chorus.gossip.identity.PrivateKey;
import dev.chorus.gossip.multiaddr.Multiaddr;
import dev.chorus.gossip.pnet.PreSharedKey;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code --psk}: the diagnostics reach a host in a private network with its key, and only with it. */
class P2pPskOptionTest {

    @TempDir
    Path dir;

    @Test
    void pingReachesAPrivateNetworkWithItsKeyOnly() throws Exception {
        PreSharedKey key = PreSharedKey.generate();
        Path keyFile = dir.resolve("swarm.key");
        key.write(keyFile);
        Path otherFile = dir.resolve("other.key");
        PreSharedKey.generate().write(otherFile);
        try (Host host = Host.start(HostConfig.defaults(PrivateKey.generate())
                        .withListenAddrs(List.of(Multiaddr.parse("/ip4/127.0.0.1/tcp/0")))
                        .withPrivateNetwork(key))
                .join()) {
            String addr = host.listenAddrs().get(0).toString();
            CliRun with = CliRun.of("p2p", "ping", addr, "--count", "1", "--psk", keyFile.toString(), "--json");
            assertThat(with.exitCode()).as(with.out() + with.err()).isZero();
            CliRun other =
                    CliRun.of("p2p", "ping", addr, "--count", "1", "--psk", otherFile.toString(), "--timeout", "3");
            assertThat(other.exitCode()).as(other.out() + other.err()).isNotZero();
            CliRun without = CliRun.of("p2p", "ping", addr, "--count", "1", "--timeout", "3");
            assertThat(without.exitCode()).as(without.out() + without.err()).isNotZero();
            CliRun bad = CliRun.of(
                    "p2p", "ping", addr, "--psk", dir.resolve("missing.key").toString());
            assertThat(bad.exitCode()).isEqualTo(2);
            assertThat(bad.err().strip()).startsWith("chorus: --psk:").doesNotContain("\n");
        }
    }
}
