package dev.chorus.gossip.discovery;

import dev.chorus.gossip.host.Host;
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
import java.util.Arrays;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * mDNS on one network interface (IPv4, group 224.0.0.251, port 5353): queries at start and every
 * {@code interval}, answers queries for {@code _p2p._udp.local}, records discovered peers in an
 * {@link AddressBook} and dials those not yet connected. Off unless started: a Chorus node enables it
 * for a LAN deployment. The protocol logic is {@link MdnsDiscovery}.
 */
public final class MdnsService implements AutoCloseable {
    private static final System.Logger LOG = System.getLogger(MdnsService.class.getName());
    public static final InetSocketAddress GROUP = new InetSocketAddress(mdnsGroup(), 5353);

    private final Host host;
    private final MdnsDiscovery logic;
    private final AddressBook book;
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

    private MdnsService(Host host, NetworkInterface nif, Duration interval, AddressBook book) throws IOException {
        this.host = host;
        this.book = book;
        this.logic = new MdnsDiscovery(host.peerId(), host::listenAddrs, new SecureRandom());
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
        return new MdnsService(host, nif, interval, book);
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
                    book.add(d.peer(), d.addrs());
                    if (host.connection(d.peer()) == null && !d.addrs().isEmpty()) {
                        host.connect(d.addrs().get(0)).exceptionally(e -> null);
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
