package dev.chorus.gossip.interop;

import dev.chorus.gossip.discovery.MdnsService;
import dev.chorus.gossip.host.Host;
import dev.chorus.gossip.host.HostConfig;
import dev.chorus.gossip.identity.PeerId;
import dev.chorus.gossip.identity.PrivateKey;
import dev.chorus.gossip.multiaddr.Multiaddr;
import java.net.NetworkInterface;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Run by {@link MdnsJsInteropTest} inside its network namespace, beside a js-libp2p peer with {@code @libp2p/mdns}:
 * a host with mDNS on the namespace's loopback interface. Prints {@code self ID} first, {@code found ID ADDRS} for
 * each peer its mDNS finds (it dials the first address), and {@code connected ID} once connected to the peer named by
 * its argument; it then stays until its standard input closes, so that the js peer can find it too. Exit code 0 when
 * it connected within 30 s.
 */
public final class MdnsJsProbe {

    private MdnsJsProbe() {}

    public static void main(String[] args) throws Exception {
        PeerId wanted = PeerId.parse(args[0]);
        NetworkInterface lo = NetworkInterface.getByName("lo");
        HostConfig config = HostConfig.defaults(PrivateKey.generate())
                .withListenAddrs(List.of(Multiaddr.parse("/ip4/127.0.0.1/tcp/0")));
        try (Host host = Host.start(config).get(10, TimeUnit.SECONDS);
                MdnsService mdns = MdnsService.start(host, lo, Duration.ofMillis(500), (peer, addrs) -> {
                    System.out.println("found " + peer.toBase58() + " " + addrs);
                    if (host.connection(peer) == null && !addrs.isEmpty()) {
                        host.connect(addrs.getFirst()).exceptionally(e -> null);
                    }
                })) {
            System.out.println("self " + host.peerId().toBase58());
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (host.connection(wanted) == null && System.nanoTime() < deadline) {
                Thread.sleep(100);
            }
            if (host.connection(wanted) == null) {
                System.out.println("not connected to " + wanted.toBase58());
                System.exit(1);
            }
            System.out.println("connected " + wanted.toBase58());
            System.in.read();
        }
        System.exit(0);
    }
}
