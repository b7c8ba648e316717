package dev.chorus.gossip.discovery;

import dev.chorus.gossip.host.Connection;
import dev.chorus.gossip.host.ConnectionListener;
import dev.chorus.gossip.host.Host;
import dev.chorus.gossip.identity.PeerId;
import dev.chorus.gossip.multiaddr.Multiaddr;
import java.security.SecureRandom;
import java.time.Duration;
import java.time.InstantSource;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * Keeps a host connected to a static list of bootstrap peers: dials them all at start, redials after a
 * failure with exponential backoff ({@link ReconnectSchedule}), and reconnects when a connection is lost.
 * Every identified peer's listen addresses go into an {@link AddressBook}.
 *
 * <pre>
 * BootstrapDialer boot = BootstrapDialer.start(host, List.of(Multiaddr.parse("/ip4/10.0.0.2/tcp/4001/p2p/12D3KooW...")),
 *         BootstrapDialer.Config.defaults());
 * </pre>
 */
public final class BootstrapDialer implements AutoCloseable {
    private static final System.Logger LOG = System.getLogger(BootstrapDialer.class.getName());

    /**
     * @param tick how often the schedule is checked (1 s)
     * @param backoffBase first redial delay after a failure or a lost connection (1 s)
     * @param backoffMax the longest redial delay (5 min)
     */
    public record Config(Duration tick, Duration backoffBase, Duration backoffMax) {
        public static Config defaults() {
            return new Config(Duration.ofSeconds(1), Duration.ofSeconds(1), Duration.ofMinutes(5));
        }
    }

    private final Host host;
    private final List<Multiaddr> targets;
    private final InstantSource clock;
    private final ReconnectSchedule<Multiaddr> schedule;
    private final AddressBook addressBook = new AddressBook();
    private final ScheduledExecutorService timer;
    private final ConnectionListener listener;
    /** The peer each target turned out to be (targets without {@code /p2p/} learn it on connect). */
    private final java.util.Map<Multiaddr, PeerId> peerOf = new java.util.HashMap<>();

    private BootstrapDialer(Host host, List<Multiaddr> targets, Config config, InstantSource clock) {
        this.host = host;
        this.targets = List.copyOf(targets);
        this.clock = clock;
        this.schedule = new ReconnectSchedule<>(config.backoffBase(), config.backoffMax(), new SecureRandom());
        this.timer = Executors.newSingleThreadScheduledExecutor(
                r -> Thread.ofPlatform().daemon().name("bootstrap-dialer").unstarted(r));
        this.listener = new ConnectionListener() {
            @Override
            public void connected(Connection c) {
                c.identify().thenAccept(info -> addressBook.add(c.remotePeer(), info.listenAddrs()));
            }

            @Override
            public void disconnected(Connection c) {
                timer.execute(() -> onDisconnected(c.remotePeer()));
            }
        };
        long now = clock.millis();
        for (Multiaddr t : this.targets) {
            schedule.add(t, now);
            t.peerId().ifPresent(p -> addressBook.add(p, List.of(t)));
        }
    }

    public static BootstrapDialer start(Host host, List<Multiaddr> targets, Config config) {
        BootstrapDialer d = new BootstrapDialer(host, targets, config, InstantSource.system());
        host.addConnectionListener(d.listener);
        for (Connection c : host.connections()) {
            d.listener.connected(c);
        }
        long tick = config.tick().toMillis();
        d.timer.scheduleWithFixedDelay(d::tick, 0, tick, TimeUnit.MILLISECONDS);
        return d;
    }

    /** Addresses learnt from the bootstrap list and from identify. */
    public AddressBook addressBook() {
        return addressBook;
    }

    /** Whether {@code target} is connected now, as far as the dialer knows. */
    public boolean isConnected(Multiaddr target) {
        try {
            return timer.submit(() -> schedule.isConnected(target)).get();
        } catch (Exception e) {
            return false;
        }
    }

    private void tick() {
        long now = clock.millis();
        for (Multiaddr t : schedule.due(now)) {
            PeerId peer = t.peerId().orElse(null);
            if (peer != null && host.connection(peer) != null) {
                schedule.succeeded(t);
                continue;
            }
            host.connect(t)
                    .whenComplete((c, err) -> timer.execute(() -> {
                        if (err != null) {
                            LOG.log(System.Logger.Level.DEBUG, "bootstrap dial to {0} failed: {1}", t, err.toString());
                            schedule.failed(t, clock.millis());
                        } else {
                            peerOf.put(t, c.remotePeer());
                            schedule.succeeded(t);
                        }
                    }));
        }
    }

    private void onDisconnected(PeerId peer) {
        if (host.connection(peer) != null) {
            return;
        }
        for (Multiaddr t : targets) {
            if (peer.equals(t.peerId().orElse(peerOf.get(t)))) {
                schedule.disconnected(t, clock.millis());
            }
        }
    }

    @Override
    public void close() {
        host.removeConnectionListener(listener);
        timer.shutdownNow();
    }
}
