package dev.chorus.gossip.discovery;

import dev.chorus.gossip.host.Host;
import dev.chorus.gossip.host.HostConfig;
import dev.chorus.gossip.identity.PrivateKey;
import dev.chorus.gossip.multiaddr.Multiaddr;
import java.net.NetworkInterface;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Run by {@link MdnsNamespaceTest} inside a network namespace of its own: two hosts with mDNS on
 * the namespace's loopback interface must find each other and connect. Exit code 0 when they did.
 */
public final class MdnsNamespaceProbe {

    private MdnsNamespaceProbe() {}

    public static void main(String[] args) throws Exception {
        NetworkInterface lo = NetworkInterface.getByName("lo");
        HostConfig base = HostConfig.defaults(PrivateKey.generate())
                .withListenAddrs(List.of(Multiaddr.parse("/ip4/127.0.0.1/tcp/0")));
        try (Host a = Host.start(base).get(10, TimeUnit.SECONDS);
                Host b = Host.start(HostConfig.defaults(PrivateKey.generate())
                                .withListenAddrs(List.of(Multiaddr.parse("/ip4/127.0.0.1/tcp/0"))))
                        .get(10, TimeUnit.SECONDS);
                MdnsService ma = MdnsService.start(a, lo, Duration.ofMillis(500), new AddressBook());
                MdnsService mb = MdnsService.start(b, lo, Duration.ofMillis(500), new AddressBook())) {
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(15);
            while (System.nanoTime() < deadline) {
                if (a.connection(b.peerId()) != null && b.connection(a.peerId()) != null) {
                    System.out.println("connected " + a.peerId().toBase58() + " "
                            + b.peerId().toBase58());
                    System.exit(0);
                }
                Thread.sleep(100);
            }
            System.out.println("not connected");
            System.exit(1);
        }
    }
}
