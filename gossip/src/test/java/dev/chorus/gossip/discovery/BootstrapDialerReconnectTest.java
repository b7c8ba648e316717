package dev.chorus.gossip.discovery;

import static dev.chorus.gossip.discovery.DiscoveryTest.awaitTrue;
import static org.assertj.core.api.Assertions.assertThat;

import dev.chorus.gossip.core.Stream;
import dev.chorus.gossip.host.Connection;
import dev.chorus.gossip.host.ConnectionGate;
import dev.chorus.gossip.host.ConnectionRefusedException;
import dev.chorus.gossip.host.Host;
import dev.chorus.gossip.identity.PeerId;
import dev.chorus.gossip.identity.PrivateKey;
import dev.chorus.gossip.multiaddr.Multiaddr;
import dev.chorus.testsupport.TestLog;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The dialer on real hosts on loopback: peers whose connections are closed, and peers whose hosts stop and start
 * again on the same port with the same identity, are redialed until they are connected again; a peer that refuses
 * every connection is redialed ever more slowly.
 */
class BootstrapDialerReconnectTest {
    private final List<AutoCloseable> open = new CopyOnWriteArrayList<>();

    @AfterEach
    void closeAll() throws Exception {
        for (int i = open.size() - 1; i >= 0; i--) {
            open.get(i).close();
        }
    }

    private Host host(PrivateKey key, int port, ConnectionGate gate) {
        var cfg = dev.chorus.gossip.host.HostConfig.defaults(key)
                .withListenAddrs(List.of(Multiaddr.parse("/ip4/127.0.0.1/tcp/" + port)))
                .withGracePeriod(Duration.ofMillis(100))
                .withDialBackoff(Duration.ofMillis(50), Duration.ofMillis(400));
        Host h = gate == null ? Host.start(cfg).join() : Host.start(cfg, gate).join();
        open.add(h);
        return h;
    }

    private static int port(Host h) {
        return h.listenAddrs().getFirst().toTcpSocketAddress().getPort();
    }

    /** What the dialer reported. */
    private static final class Recorded implements BootstrapDialer.Events {
        final Set<PeerId> reconnected = ConcurrentHashMap.newKeySet();
        final Map<String, Integer> failures = new ConcurrentHashMap<>();

        @Override
        public void reconnected(PeerId peer) {
            reconnected.add(peer);
        }

        @Override
        public void dialFailed(Multiaddr target, Throwable cause, int n) {
            failures.merge(target.withoutPeerId().toString(), n, Math::max);
        }
    }

    @Test
    @Timeout(value = 90, unit = TimeUnit.SECONDS)
    void aNodeThatLostEveryPeerReconnectsToBootstrapAndLearntPeers() throws Exception {
        PrivateKey keyB = PrivateKey.generate();
        PrivateKey keyC = PrivateKey.generate();
        Host a = host(PrivateKey.generate(), 0, null);
        Host b = host(keyB, 0, null);
        Host c = host(keyC, 0, null);
        int portB = port(b);
        int portC = port(c);
        Recorded events = new Recorded();
        var cfg = new BootstrapDialer.Config(Duration.ofMillis(50), Duration.ofMillis(100), Duration.ofSeconds(1))
                .withTargetPeers(2);
        BootstrapDialer d = BootstrapDialer.start(a, List.of(b.listenAddrs().getFirst()), cfg, events);
        open.add(d);
        // c is not on a's bootstrap list: it connects to a, which learns its listen address through identify.
        c.connect(a.listenAddrs().getFirst()).get(10, TimeUnit.SECONDS);
        // Both ends of each connection: a dialler may hold its end a moment before the listener holds its own.
        awaitTrue(() -> a.connection(b.peerId()) != null
                && a.connection(c.peerId()) != null
                && b.connection(a.peerId()) != null
                && c.connection(a.peerId()) != null);
        awaitTrue(() -> !d.addressBook().addrs(c.peerId()).isEmpty());
        assertThat(d.redials()).isZero();

        // Both peers close their connections: a redials both, c from its learnt address.
        Connection toB = a.connection(b.peerId());
        Connection toC = a.connection(c.peerId());
        b.connection(a.peerId()).close(Duration.ZERO).get(10, TimeUnit.SECONDS);
        c.connection(a.peerId()).close(Duration.ZERO).get(10, TimeUnit.SECONDS);
        awaitTrue(() -> connectedAnew(a, b, toB) && connectedAnew(a, c, toC));
        awaitTrue(() -> events.reconnected.containsAll(Set.of(b.peerId(), c.peerId())));
        assertThat(d.redials()).isGreaterThanOrEqualTo(1);

        // Both hosts stop: a is alone, and its redials fail with a growing backoff until they are back.
        b.close();
        c.close();
        awaitTrue(() -> a.connections().isEmpty() && d.disconnectedPeers() == 2);
        awaitTrue(() -> events.failures.getOrDefault("/ip4/127.0.0.1/tcp/" + portB, 0) >= 3
                && events.failures.getOrDefault("/ip4/127.0.0.1/tcp/" + portC, 0) >= 3);
        long redialsWhileAlone = d.redials();
        events.reconnected.clear();
        Host b2 = host(keyB, portB, null);
        Host c2 = host(keyC, portC, null);
        awaitTrue(() -> a.connection(b2.peerId()) != null && a.connection(c2.peerId()) != null);
        awaitTrue(() -> d.disconnectedPeers() == 0);
        // The listener hears of a reconnection just after the dialer counts it: wait for both events.
        awaitTrue(() -> events.reconnected.size() >= 2);
        assertThat(events.reconnected).containsExactlyInAnyOrder(b2.peerId(), c2.peerId());
        assertThat(d.redials()).isGreaterThan(redialsWhileAlone);
    }

    private static boolean connectedAnew(Host a, Host peer, Connection before) {
        Connection now = a.connection(peer.peerId());
        return now != null && now != before;
    }

    /** Refuses every connection once it is upgraded, and notes when each was offered. */
    private static final class RefusingGate implements ConnectionGate {
        final List<Long> offered = new CopyOnWriteArrayList<>();

        @Override
        public String protocol() {
            return "/test/refuse/1";
        }

        @Override
        public CompletableFuture<Void> admit(Connection connection) {
            offered.add(System.nanoTime());
            return CompletableFuture.failedFuture(new ConnectionRefusedException("not-member", "not on the roster"));
        }

        @Override
        public void serve(Connection connection, Stream stream) {
            stream.closeWrite();
        }
    }

    @Test
    @Timeout(value = 90, unit = TimeUnit.SECONDS)
    void aPeerThatRefusesEveryConnectionIsRedialedEverMoreSlowly() throws Exception {
        RefusingGate gate = new RefusingGate();
        Host b = host(PrivateKey.generate(), 0, gate);
        Host a = host(PrivateKey.generate(), 0, null);
        // a has no gate, so each of its dials succeeds, and b closes the connection a second later.
        var cfg = new BootstrapDialer.Config(Duration.ofMillis(20), Duration.ofMillis(200), Duration.ofSeconds(10))
                .withStableAfter(Duration.ofSeconds(10));
        open.add(BootstrapDialer.start(a, List.of(b.listenAddrs().getFirst()), cfg));
        awaitTrue(() -> gate.offered.size() >= 5);
        List<Long> gaps = new ArrayList<>();
        for (int i = 1; i < 5; i++) {
            gaps.add(TimeUnit.NANOSECONDS.toMillis(gate.offered.get(i) - gate.offered.get(i - 1)));
        }
        // Each lost connection is one more failure: the redial after the n-th waits at least 200 ms * 2^(n-1)
        // (jitter only adds), counted from the loss, which comes after the offer. A redial in a tight loop would
        // come within a tick (20 ms).
        TestLog.figures("gaps between connections offered to the refusing peer: %s ms%n", gaps);
        for (int i = 0; i < gaps.size(); i++) {
            assertThat(gaps.get(i)).as("gap %d of %s", i, gaps).isGreaterThanOrEqualTo(200L << i);
        }
    }
}
