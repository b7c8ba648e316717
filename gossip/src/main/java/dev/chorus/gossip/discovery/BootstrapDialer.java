package dev.chorus.gossip.discovery;

import dev.chorus.gossip.host.Connection;
import dev.chorus.gossip.host.ConnectionListener;
import dev.chorus.gossip.host.Host;
import dev.chorus.gossip.identity.PeerId;
import dev.chorus.gossip.multiaddr.Multiaddr;
import java.security.SecureRandom;
import java.time.Duration;
import java.time.InstantSource;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletionException;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Keeps a host connected. The static bootstrap list is always kept connected: every target is dialed at start and
 * redialed after a failure or a lost connection on a {@link ReconnectSchedule} (exponential backoff with jitter).
 * Peers learnt since, through identify (their listen addresses, kept in a bounded {@link AddressBook}) or {@link
 * #learn} (mDNS, say), are redialed the same way while the host has fewer than {@link Config#targetPeers()}
 * peers, best first. At most {@link Config#maxDialsInFlight()} dials run at once, and a peer the host still backs
 * off from (a failed dial, or a connection its {@link dev.chorus.gossip.host.ConnectionGate} refused) is not
 * dialed until that backoff is over; each further failure doubles the schedule's own backoff as well.
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
     * @param stableAfter how long a connection must last for its loss not to count as a failure (30 s)
     * @param targetPeers learnt peers are redialed while the host has fewer peers than this (8); the bootstrap
     *     peers are kept connected regardless
     * @param maxDialsInFlight the most dials at once (4)
     * @param maxLearntPeers the most peers whose addresses are remembered (256); a remote peer chooses what it
     *     announces, so the memory it can take is bounded
     */
    public record Config(
            Duration tick,
            Duration backoffBase,
            Duration backoffMax,
            Duration stableAfter,
            int targetPeers,
            int maxDialsInFlight,
            int maxLearntPeers) {
        public Config {
            if (tick.isNegative() || tick.isZero()) {
                throw new IllegalArgumentException("tick must be positive, got " + tick);
            }
            if (targetPeers < 0 || maxDialsInFlight < 1 || maxLearntPeers < 1) {
                throw new IllegalArgumentException("need targetPeers >= 0, maxDialsInFlight >= 1, maxLearntPeers >= 1,"
                        + " got " + targetPeers + ", " + maxDialsInFlight + ", " + maxLearntPeers);
            }
        }

        /** The defaults but for the tick and the backoff. */
        public Config(Duration tick, Duration backoffBase, Duration backoffMax) {
            this(tick, backoffBase, backoffMax, Duration.ofSeconds(30), 8, 4, 256);
        }

        public static Config defaults() {
            return new Config(Duration.ofSeconds(1), Duration.ofSeconds(1), Duration.ofMinutes(5));
        }

        public Config withTargetPeers(int target) {
            return new Config(tick, backoffBase, backoffMax, stableAfter, target, maxDialsInFlight, maxLearntPeers);
        }

        public Config withStableAfter(Duration stable) {
            return new Config(tick, backoffBase, backoffMax, stable, targetPeers, maxDialsInFlight, maxLearntPeers);
        }
    }

    /** What the dialer tells its owner (on the dialer's thread; must not block). */
    public interface Events {
        /** {@code peer} is connected again after its connection was lost. */
        default void reconnected(PeerId peer) {}

        /** A dial of {@code target} failed, the {@code failures}-th time in a row. */
        default void dialFailed(Multiaddr target, Throwable cause, int failures) {}
    }

    private final Host host;
    private final List<Multiaddr> targets;
    private final Config config;
    private final InstantSource clock;
    private final Events events;
    private final ReconnectSchedule<Multiaddr> bootstrap;
    private final ReconnectSchedule<PeerId> learnt;
    private final AddressBook addressBook;
    private final ScheduledExecutorService timer;
    private final ConnectionListener listener;
    /** The peer each target turned out to be (targets without {@code /p2p/} learn it on connect). */
    private final Map<Multiaddr, PeerId> peerOf = new HashMap<>();

    private final AtomicLong redials = new AtomicLong();
    private int inFlight;

    private BootstrapDialer(Host host, List<Multiaddr> targets, Config config, InstantSource clock, Events events) {
        this.host = host;
        this.targets = List.copyOf(targets);
        this.config = config;
        this.clock = clock;
        this.events = events;
        SecureRandom random = new SecureRandom();
        this.bootstrap =
                new ReconnectSchedule<>(config.backoffBase(), config.backoffMax(), config.stableAfter(), random);
        this.learnt = new ReconnectSchedule<>(config.backoffBase(), config.backoffMax(), config.stableAfter(), random);
        this.addressBook = new AddressBook(config.maxLearntPeers() + this.targets.size(), 16);
        this.timer = Executors.newSingleThreadScheduledExecutor(
                r -> Thread.ofPlatform().daemon().name("bootstrap-dialer").unstarted(r));
        this.listener = new ConnectionListener() {
            @Override
            public void connected(Connection c) {
                onTimer(() -> onConnected(c.remotePeer()));
                boolean remoteOnLoopback = isLoopback(c.remoteAddress());
                c.identify()
                        .thenAccept(info -> learn(
                                c.remotePeer(),
                                info.listenAddrs().stream()
                                        .filter(a -> remoteOnLoopback || !isLoopback(a))
                                        .toList()));
            }

            @Override
            public void disconnected(Connection c) {
                onTimer(() -> onDisconnected(c.remotePeer()));
            }
        };
        long now = clock.millis();
        for (Multiaddr t : this.targets) {
            bootstrap.add(t, now);
            t.peerId().ifPresent(p -> {
                addressBook.add(p, List.of(t));
                peerOf.put(t, p);
            });
        }
    }

    public static BootstrapDialer start(Host host, List<Multiaddr> targets, Config config) {
        return start(host, targets, config, new Events() {});
    }

    public static BootstrapDialer start(Host host, List<Multiaddr> targets, Config config, Events events) {
        BootstrapDialer d = new BootstrapDialer(host, targets, config, InstantSource.system(), events);
        host.addConnectionListener(d.listener);
        for (Connection c : host.connections()) {
            d.listener.connected(c);
        }
        long tick = config.tick().toMillis();
        d.timer.scheduleWithFixedDelay(d::tick, 0, tick, TimeUnit.MILLISECONDS);
        return d;
    }

    /** Addresses learnt from the bootstrap list, identify and {@link #learn}. */
    public AddressBook addressBook() {
        return addressBook;
    }

    /**
     * Remembers {@code addrs} as where {@code peer} listens (from identify, mDNS or another source); the peer is then
     * redialed when it is disconnected and the host is below its target. Any thread.
     */
    public void learn(PeerId peer, List<Multiaddr> addrs) {
        if (peer.equals(host.peerId())) {
            return;
        }
        addressBook.add(peer, addrs);
        onTimer(() -> {
            if (isBootstrap(peer) || addressBook.addrs(peer).isEmpty()) {
                return;
            }
            long now = clock.millis();
            if (host.connection(peer) != null) {
                learnt.addConnected(peer, now);
            } else {
                learnt.add(peer, now);
            }
            if (learnt.size() > config.maxLearntPeers()) {
                Set<PeerId> known = addressBook.peers();
                learnt.retain(known::contains);
            }
        });
    }

    /** Whether {@code target} is connected now, as far as the dialer knows. */
    public boolean isConnected(Multiaddr target) {
        return askTimer(() -> bootstrap.isConnected(target), false);
    }

    /** Dials made after a lost connection or a failed dial. */
    public long redials() {
        return redials.get();
    }

    /** Peers with a known address (bootstrap or learnt) and no connection now. */
    public int disconnectedPeers() {
        int n = 0;
        for (PeerId p : addressBook.peers()) {
            if (!p.equals(host.peerId()) && host.connection(p) == null) {
                n++;
            }
        }
        return n;
    }

    /**
     * A peer on another machine that announces a loopback address names its own loopback, which from here is this
     * machine's: such addresses are learnt only from peers connected over loopback.
     */
    private static boolean isLoopback(Multiaddr a) {
        try {
            return a.withoutPeerId().toTcpSocketAddress().getAddress().isLoopbackAddress();
        } catch (RuntimeException e) {
            return false;
        }
    }

    /** Runs {@code task} on the dialer's thread; after {@link #close} it is dropped. */
    private void onTimer(Runnable task) {
        try {
            timer.execute(task);
        } catch (java.util.concurrent.RejectedExecutionException closed) {
            // closed: nothing left to schedule
        }
    }

    private <V> V askTimer(java.util.concurrent.Callable<V> task, V otherwise) {
        try {
            return timer.submit(task).get();
        } catch (Exception e) {
            return otherwise;
        }
    }

    private boolean isBootstrap(PeerId peer) {
        return peerOf.containsValue(peer);
    }

    private void tick() {
        long now = clock.millis();
        for (Multiaddr t : bootstrap.due(now, config.maxDialsInFlight() - inFlight)) {
            PeerId peer = t.peerId().orElse(peerOf.get(t));
            if (peer != null && host.connection(peer) != null) {
                bootstrap.succeeded(t, now);
            } else if (peer != null && !host.dialBackoff(peer).isZero()) {
                bootstrap.defer(t, now + host.dialBackoff(peer).toMillis());
            } else {
                dialBootstrap(t);
            }
        }
        int peers = connectedPeers();
        int wanted = Math.min(config.targetPeers() - peers, config.maxDialsInFlight()) - inFlight;
        if (wanted <= 0) {
            return;
        }
        for (PeerId p : learnt.due(now, wanted)) {
            List<Multiaddr> addrs = addressBook.addrs(p);
            if (addrs.isEmpty()) {
                learnt.remove(p);
            } else if (host.connection(p) != null) {
                learnt.succeeded(p, now);
            } else if (!host.dialBackoff(p).isZero()) {
                learnt.defer(p, now + host.dialBackoff(p).toMillis());
            } else {
                // The newest address first; each failure moves on to an older one.
                int i = Math.floorMod(addrs.size() - 1 - learnt.failures(p), addrs.size());
                dialLearnt(p, addrs.get(i));
            }
        }
    }

    private int connectedPeers() {
        Set<PeerId> peers = new HashSet<>();
        for (Connection c : host.connections()) {
            peers.add(c.remotePeer());
        }
        return peers.size();
    }

    private void dialBootstrap(Multiaddr t) {
        if (bootstrap.isRedial(t)) {
            redials.incrementAndGet();
        }
        inFlight++;
        host.connect(t)
                .whenComplete((c, err) -> onTimer(() -> {
                    inFlight--;
                    long now = clock.millis();
                    if (err != null) {
                        bootstrap.failed(t, now);
                        reportFailure(t, err, bootstrap.failures(t));
                    } else {
                        peerOf.put(t, c.remotePeer());
                        onConnected(c.remotePeer());
                    }
                }));
    }

    private void dialLearnt(PeerId p, Multiaddr addr) {
        if (learnt.isRedial(p)) {
            redials.incrementAndGet();
        }
        inFlight++;
        host.connect(addr)
                .whenComplete((c, err) -> onTimer(() -> {
                    inFlight--;
                    if (err != null) {
                        learnt.failed(p, clock.millis());
                        reportFailure(addr, err, learnt.failures(p));
                    } else {
                        onConnected(p);
                    }
                }));
    }

    private void reportFailure(Multiaddr target, Throwable err, int failures) {
        Throwable cause = err instanceof CompletionException && err.getCause() != null ? err.getCause() : err;
        LOG.log(System.Logger.Level.DEBUG, "dial to {0} failed: {1}", target, cause.toString());
        events.dialFailed(target, cause, failures);
    }

    private void onConnected(PeerId peer) {
        long now = clock.millis();
        boolean reconnected = false;
        for (Multiaddr t : targets) {
            if (peer.equals(peerOf.get(t))) {
                reconnected |= bootstrap.succeeded(t, now);
            }
        }
        reconnected |= learnt.succeeded(peer, now);
        if (reconnected) {
            events.reconnected(peer);
        }
    }

    private void onDisconnected(PeerId peer) {
        if (host.connection(peer) != null) {
            return;
        }
        long now = clock.millis();
        for (Multiaddr t : targets) {
            if (peer.equals(peerOf.get(t))) {
                bootstrap.disconnected(t, now);
            }
        }
        learnt.disconnected(peer, now);
    }

    @Override
    public void close() {
        host.removeConnectionListener(listener);
        timer.shutdownNow();
    }
}
