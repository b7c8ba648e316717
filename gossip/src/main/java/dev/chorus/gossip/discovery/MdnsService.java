package dev.chorus.gossip.discovery;

import dev.chorus.gossip.host.Host;
import dev.chorus.gossip.identity.PeerId;
import dev.chorus.gossip.multiaddr.Multiaddr;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.NetworkInterface;
import java.net.StandardProtocolFamily;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.DatagramChannel;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * mDNS on one network interface (IPv4, group 224.0.0.251, port 5353): queries at start and every
 * {@code interval}, answers queries for {@code _p2p._udp.local} with the host's listen addresses on that interface
 * (all of its non-loopback ones when none is), and hands each peer found to a {@link Found} callback: by default it
 * is recorded in an {@link AddressBook} and dialed when not yet connected. Off unless started: a Chorus node
 * enables it for a LAN deployment ({@code network.mdns}). The protocol logic is {@link MdnsDiscovery}.
 */
public final class MdnsService implements AutoCloseable {
    private static final System.Logger LOG = System.getLogger(MdnsService.class.getName());
    public static final InetSocketAddress GROUP = new InetSocketAddress(mdnsGroup(), 5353);

    /** What to do with a peer found: any thread (the reader's). */
    @FunctionalInterface
    public interface Found {
        void found(PeerId peer, List<Multiaddr> addrs);
    }

    private final MdnsDiscovery logic;
    private final Found found;
    private final DatagramChannel channel;
    private final ScheduledExecutorService timer;
    private final Thread reader;
    private volatile boolean closed;

    private static InetAddress mdnsGroup() {
        try {
            return InetAddress.getByAddress(new byte[] {(byte) 224, 0, 0, (byte) 251});
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }

    private MdnsService(Host host, NetworkInterface nif, Duration interval, Found found) throws IOException {
        this.found = found;
        this.logic = new MdnsDiscovery(host.peerId(), () -> announced(host.listenAddrs(), nif), new SecureRandom());
        this.channel = DatagramChannel.open(StandardProtocolFamily.INET)
                .setOption(StandardSocketOptions.SO_REUSEADDR, true)
                .bind(new InetSocketAddress(GROUP.getPort()))
                .setOption(StandardSocketOptions.IP_MULTICAST_IF, nif)
                .setOption(StandardSocketOptions.IP_MULTICAST_TTL, 255);
        channel.join(GROUP.getAddress(), nif);
        this.timer = Executors.newSingleThreadScheduledExecutor(
                r -> Thread.ofPlatform().daemon().name("mdns-query").unstarted(r));
        timer.scheduleWithFixedDelay(this::query, 0, interval.toMillis(), TimeUnit.MILLISECONDS);
        this.reader = Thread.ofPlatform().daemon().name("mdns-reader").start(this::readLoop);
    }

    /** Starts mDNS on {@code nif}, querying every {@code interval} (e.g. 10 s). */
    public static MdnsService start(Host host, NetworkInterface nif, Duration interval, AddressBook book)
            throws IOException {
        return start(host, nif, interval, (peer, addrs) -> {
            book.add(peer, addrs);
            if (host.connection(peer) == null && !addrs.isEmpty()) {
                host.connect(addrs.get(0)).exceptionally(e -> null);
            }
        });
    }

    /** Starts mDNS on {@code nif}, querying every {@code interval}; each peer found goes to {@code found}. */
    public static MdnsService start(Host host, NetworkInterface nif, Duration interval, Found found)
            throws IOException {
        return new MdnsService(host, nif, interval, found);
    }

    /**
     * The listen addresses to announce on {@code nif}: those whose IP is one of the interface's, so that a peer on
     * the link dials one it can reach; when none is (a host listening elsewhere), every address but loopback.
     */
    static List<Multiaddr> announced(List<Multiaddr> listen, NetworkInterface nif) {
        Set<InetAddress> local = new HashSet<>(Collections.list(nif.getInetAddresses()));
        List<Multiaddr> on = new ArrayList<>();
        List<Multiaddr> notLoopback = new ArrayList<>();
        for (Multiaddr a : listen) {
            InetAddress ip;
            try {
                ip = a.withoutPeerId().toTcpSocketAddress().getAddress();
            } catch (RuntimeException e) {
                continue;
            }
            if (local.contains(ip)) {
                on.add(a);
            }
            if (!ip.isLoopbackAddress() || nif.getName().equals("lo")) {
                notLoopback.add(a);
            }
        }
        return on.isEmpty() ? notLoopback : on;
    }

    private void query() {
        send(logic.query());
    }

    private void send(byte[] packet) {
        try {
            channel.send(ByteBuffer.wrap(packet), GROUP);
        } catch (IOException e) {
            if (!closed) {
                LOG.log(System.Logger.Level.DEBUG, "mDNS send failed: " + e);
            }
        }
    }

    private void readLoop() {
        ByteBuffer buf = ByteBuffer.allocate(DnsMessage.MAX_PACKET);
        while (!closed) {
            try {
                buf.clear();
                channel.receive(buf);
                buf.flip();
                byte[] packet = Arrays.copyOf(buf.array(), buf.limit());
                MdnsDiscovery.Outcome o = logic.onPacket(packet);
                if (o.reply() != null) {
                    send(o.reply());
                }
                for (MdnsDiscovery.Discovered d : o.peers()) {
                    try {
                        found.found(d.peer(), d.addrs());
                    } catch (RuntimeException e) {
                        LOG.log(System.Logger.Level.WARNING, "mDNS: handling peer " + d.peer() + " failed: " + e);
                    }
                }
            } catch (IOException e) {
                if (!closed) {
                    LOG.log(System.Logger.Level.WARNING, "mDNS receive failed: " + e);
                }
                return;
            }
        }
    }

    @Override
    public void close() {
        closed = true;
        timer.shutdownNow();
        try {
            channel.close();
        } catch (IOException e) {
            // closing
        }
        try {
            reader.join(2000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
