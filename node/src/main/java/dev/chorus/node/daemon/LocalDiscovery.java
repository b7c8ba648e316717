package dev.chorus.node.daemon;

import dev.chorus.gossip.discovery.BootstrapDialer;
import dev.chorus.gossip.discovery.MdnsService;
import dev.chorus.gossip.host.Host;
import dev.chorus.gossip.identity.PeerId;
import dev.chorus.gossip.multiaddr.Multiaddr;
import java.io.IOException;
import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.NetworkInterface;
import java.net.SocketException;
import java.time.Duration;
import java.util.Collections;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The node's mDNS ({@code network.mdns}): picks the interface, starts {@link MdnsService} on it, and hands each peer
 * it finds to the {@link BootstrapDialer}, which remembers its addresses and redials it like a peer learnt through
 * identify; a peer found while not connected is dialed at once.
 */
final class LocalDiscovery {

    /** Between two queries: a node that joins the link is found within this, and a query costs one packet. */
    static final Duration QUERY_EVERY = Duration.ofSeconds(10);

    /** The most peers remembered as already logged; past it the memory starts over (and may log a peer again). */
    static final int MAX_LOGGED_PEERS = 4096;

    private static final Logger log = LoggerFactory.getLogger(LocalDiscovery.class);

    private LocalDiscovery() {}

    /**
     * Starts mDNS as {@code setting} says; empty when it is {@code off}, or {@code on} finds no interface fit for it
     * (logged). An interface that cannot join the group is an {@link IOException}.
     */
    static Optional<MdnsService> start(String setting, Host host, BootstrapDialer dialer) throws IOException {
        if (setting.equals("off")) {
            return Optional.empty();
        }
        Optional<NetworkInterface> nif = setting.equals("on")
                ? pick(host.listenAddrs())
                : Optional.ofNullable(NetworkInterface.getByName(setting));
        if (nif.isEmpty()) {
            log.warn("mDNS: no interface is up, multicast-capable, not loopback and with an IPv4 address; mDNS is off"
                    + " (name one in network.mdns)");
            return Optional.empty();
        }
        Set<PeerId> seen = ConcurrentHashMap.newKeySet();
        MdnsService service = MdnsService.start(host, nif.get(), QUERY_EVERY, (peer, addrs) -> {
            // Anyone on the link can announce made-up peers: the set of those logged is bounded.
            if (seen.size() >= MAX_LOGGED_PEERS) {
                seen.clear();
            }
            if (seen.add(peer)) {
                log.info("mDNS: found peer {} at {}", peer, addrs);
            }
            dialer.learn(peer, addrs);
            if (host.connection(peer) == null && !addrs.isEmpty()) {
                host.connect(addrs.getFirst()).exceptionally(e -> null);
            }
        });
        log.info("mDNS on {} (224.0.0.251:5353), a query every {} s", nif.get().getName(), QUERY_EVERY.toSeconds());
        return Optional.of(service);
    }

    /**
     * The interface for {@code on}: the one that holds the first listen address naming an interface's IPv4 address,
     * else the first that is up, multicast-capable, not loopback and has an IPv4 address.
     */
    static Optional<NetworkInterface> pick(List<Multiaddr> listen) throws SocketException {
        for (Multiaddr a : listen) {
            try {
                InetAddress ip = a.withoutPeerId().toTcpSocketAddress().getAddress();
                if (ip instanceof Inet4Address && !ip.isAnyLocalAddress() && !ip.isLoopbackAddress()) {
                    NetworkInterface nif = NetworkInterface.getByInetAddress(ip);
                    if (nif != null && fit(nif)) {
                        return Optional.of(nif);
                    }
                }
            } catch (RuntimeException notTcp) {
                // not an IP and TCP address: next
            }
        }
        for (NetworkInterface nif : Collections.list(NetworkInterface.getNetworkInterfaces())) {
            if (fit(nif) && !nif.isLoopback()) {
                return Optional.of(nif);
            }
        }
        return Optional.empty();
    }

    private static boolean fit(NetworkInterface nif) throws SocketException {
        return nif.isUp()
                && nif.supportsMulticast()
                && Collections.list(nif.getInetAddresses()).stream().anyMatch(ip -> ip instanceof Inet4Address);
    }
}
