package dev.chorus.node.daemon;

import static org.assertj.core.api.Assertions.assertThat;

import dev.chorus.gossip.multiaddr.Multiaddr;
import java.net.Inet4Address;
import java.net.NetworkInterface;
import java.util.Collections;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** How {@code network.mdns: on} picks its interface on this machine's real interfaces. */
class LocalDiscoveryTest {

    @Test
    void onPicksTheInterfaceOfAListenAddressElseTheFirstFitOne() throws Exception {
        Optional<NetworkInterface> fallback = LocalDiscovery.pick(List.of(Multiaddr.parse("/ip4/0.0.0.0/tcp/4001")));
        assertThat(LocalDiscovery.pick(List.of(Multiaddr.parse("/ip4/127.0.0.1/tcp/4001"))))
                .as("loopback is never picked for a loopback listen address")
                .isEqualTo(fallback);
        if (fallback.isPresent()) {
            assertThat(fallback.get().isLoopback()).isFalse();
        }
        for (NetworkInterface nif : Collections.list(NetworkInterface.getNetworkInterfaces())) {
            if (nif.isLoopback() || !nif.isUp() || !nif.supportsMulticast()) {
                continue;
            }
            for (var ip : Collections.list(nif.getInetAddresses())) {
                if (ip instanceof Inet4Address) {
                    Multiaddr listen = Multiaddr.parse("/ip4/" + ip.getHostAddress() + "/tcp/4001");
                    assertThat(LocalDiscovery.pick(List.of(Multiaddr.parse("/ip4/127.0.0.1/tcp/1"), listen)))
                            .hasValue(nif);
                }
            }
        }
    }
}
