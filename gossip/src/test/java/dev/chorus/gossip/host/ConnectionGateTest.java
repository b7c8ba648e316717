package dev.chorus.gossip.host;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.chorus.gossip.core.Stream;
import dev.chorus.gossip.multistream.UnsupportedProtocolException;
import dev.chorus.gossip.protocol.Echo;
import dev.chorus.gossip.protocol.Ping;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.function.BiPredicate;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/** Real hosts on loopback, one of them behind a {@link ConnectionGate} whose decisions the test controls. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class ConnectionGateTest {
    private static final String GATE = "/test/gate/1.0.0";

    @RegisterExtension
    final LoopbackHosts hosts = new LoopbackHosts();

    /** Admits a connection when the test completes its future; serves nothing on its own protocol. */
    static final class ControlledGate implements ConnectionGate {
        final Map<String, CompletableFuture<Void>> decisions = new ConcurrentHashMap<>();
        final Duration timeout;
        final BiPredicate<Connection, String> permits;

        ControlledGate(Duration timeout, BiPredicate<Connection, String> permits) {
            this.timeout = timeout;
            this.permits = permits;
        }

        CompletableFuture<Void> decision(Host remote) {
            return decisions.computeIfAbsent(remote.peerId().toBase58(), k -> new CompletableFuture<>());
        }

        @Override
        public String protocol() {
            return GATE;
        }

        @Override
        public CompletableFuture<Void> admit(Connection connection) {
            return decisions.computeIfAbsent(connection.remotePeer().toBase58(), k -> new CompletableFuture<>());
        }

        @Override
        public void serve(Connection connection, Stream stream) {
            stream.write("seen".getBytes(StandardCharsets.US_ASCII)).thenCompose(v -> stream.closeWrite());
        }

        @Override
        public boolean permits(Connection connection, String protocol) {
            return permits.test(connection, protocol);
        }

        @Override
        public Duration timeout() {
            return timeout;
        }
    }

    private Host host(ConnectionGate gate) {
        Host h = hosts.start(c -> c.withDialBackoff(Duration.ofSeconds(30), Duration.ofMinutes(1)), gate);
        h.setHandler(Echo.ID, Echo.handler());
        return h;
    }

    @Test
    void anAdmittedConnectionCarriesApplicationProtocolsAndIsAnnouncedOnce() throws Exception {
        ControlledGate gate = new ControlledGate(Duration.ofSeconds(20), (c, p) -> true);
        Host a = host(gate);
        Host b = host(null);
        List<String> events = new CopyOnWriteArrayList<>();
        a.addConnectionListener(new ConnectionListener() {
            @Override
            public void connected(Connection c) {
                events.add("connected");
            }

            @Override
            public void disconnected(Connection c) {
                events.add("disconnected");
            }
        });
        CompletableFuture<Connection> dial = a.connect(b.listenAddrs().get(0));
        Thread.sleep(300);
        assertThat(dial)
                .as("a dial completes only once its connection is admitted")
                .isNotDone();
        assertThat(a.connections()).isEmpty();
        assertThat(a.connection(b.peerId())).isNull();
        assertThat(events).isEmpty();

        gate.decision(b).complete(null);
        Connection c = dial.get(10, TimeUnit.SECONDS);
        assertThat(c.admitted()).isTrue();
        assertThat(a.connections()).containsExactly(c);
        assertThat(events).containsExactly("connected");
        Stream s = a.newStream(b.peerId(), Echo.ID).get(10, TimeUnit.SECONDS);
        s.write("hello".getBytes(StandardCharsets.US_ASCII)).join();
        s.closeWrite().join();
        assertThat(new String(s.readToEnd(100).get(10, TimeUnit.SECONDS), StandardCharsets.US_ASCII))
                .isEqualTo("hello");
        c.close(Duration.ofMillis(100)).get(10, TimeUnit.SECONDS);
        HostTest.waitFor(() -> events.size() == 2);
        assertThat(events).containsExactly("connected", "disconnected");
    }

    @Test
    void beforeAdmissionOnlyIdentifyPingAndTheGatesProtocolRun() throws Exception {
        ControlledGate gate = new ControlledGate(Duration.ofSeconds(20), (c, p) -> true);
        Host a = host(gate);
        Host b = host(null); // ungated: its dial completes at once, while a is still deciding
        Connection fromB = b.connect(a.listenAddrs().get(0)).get(10, TimeUnit.SECONDS);

        assertThat(fromB.identify().get(10, TimeUnit.SECONDS).protocols()).contains(GATE, Echo.ID);
        assertThat(b.ping(a.peerId(), 1).get(10, TimeUnit.SECONDS)).hasSize(1);
        Stream gateStream = fromB.newStream(GATE).get(10, TimeUnit.SECONDS);
        assertThat(new String(gateStream.readToEnd(100).get(10, TimeUnit.SECONDS), StandardCharsets.US_ASCII))
                .isEqualTo("seen");
        // a's identify listed the protocol, so b proposes it lazily: the refusal fails the stream's first read.
        assertThatThrownBy(() ->
                        fromB.newStream(Echo.ID).thenCompose(s -> s.read()).get(10, TimeUnit.SECONDS))
                .as("an application protocol before admission is refused")
                .isInstanceOf(ExecutionException.class)
                .hasRootCauseInstanceOf(UnsupportedProtocolException.class);

        HostTest.waitFor(() -> a.allConnections().size() == 1);
        Connection atA = a.allConnections().get(0);
        assertThat(atA.admitted()).isFalse();
        assertThatThrownBy(() -> atA.newStream(Echo.ID).get(10, TimeUnit.SECONDS))
                .hasCauseInstanceOf(ConnectionRefusedException.class)
                .hasMessageContaining("not admitted");
    }

    @Test
    void aRefusedConnectionIsClosedAndItsPeerBackedOff() throws Exception {
        ControlledGate gate = new ControlledGate(Duration.ofSeconds(20), (c, p) -> true);
        Host a = host(gate);
        Host b = host(null);
        gate.decision(b).completeExceptionally(new ConnectionRefusedException("unknown-ca", "issuer not in roster"));
        List<Connection> announced = new CopyOnWriteArrayList<>();
        a.addConnectionListener(new ConnectionListener() {
            @Override
            public void connected(Connection c) {
                announced.add(c);
            }
        });

        assertThatThrownBy(() -> a.connect(b.listenAddrs().get(0)).get(10, TimeUnit.SECONDS))
                .hasCauseInstanceOf(ConnectionRefusedException.class)
                .hasMessageContaining("issuer not in roster");
        HostTest.waitFor(() -> b.connections().isEmpty());
        assertThatThrownBy(() -> a.connect(b.listenAddrs().get(0)).get(10, TimeUnit.SECONDS))
                .hasCauseInstanceOf(DialBackoffException.class);
        assertThat(announced).isEmpty();

        // Inbound: the refused peer's connection closes, and a is not going to dial it back soon.
        Host c = host(null);
        gate.decision(c).completeExceptionally(new ConnectionRefusedException("expired", "certificate expired"));
        Connection fromC = c.connect(a.listenAddrs().get(0)).get(10, TimeUnit.SECONDS);
        fromC.closeFuture().get(10, TimeUnit.SECONDS);
        assertThatThrownBy(() -> a.connect(c.listenAddrs().get(0)).get(10, TimeUnit.SECONDS))
                .hasCauseInstanceOf(DialBackoffException.class);
        assertThat(announced).isEmpty();
    }

    @Test
    void aConnectionNotAdmittedInTimeIsClosed() throws Exception {
        Host a = host(new ControlledGate(Duration.ofMillis(300), (c, p) -> true));
        Host b = host(null);
        Connection fromB = b.connect(a.listenAddrs().get(0)).get(10, TimeUnit.SECONDS);
        fromB.closeFuture().get(10, TimeUnit.SECONDS);
        assertThat(a.connections()).isEmpty();
    }

    @Test
    void anAdmittedConnectionRunsOnlyTheProtocolsTheGatePermitsIt() throws Exception {
        ControlledGate gate = new ControlledGate(Duration.ofSeconds(20), (c, p) -> !p.equals(Echo.ID));
        Host a = host(gate);
        Host b = host(null);
        gate.decision(b).complete(null);
        Connection c = a.connect(b.listenAddrs().get(0)).get(10, TimeUnit.SECONDS);
        assertThatThrownBy(() -> c.newStream(Echo.ID).get(10, TimeUnit.SECONDS))
                .hasCauseInstanceOf(ConnectionRefusedException.class);
        HostTest.waitFor(() -> b.connection(a.peerId()) != null);
        Connection fromB = b.connection(a.peerId());
        // Proposed lazily once b has a's identify (which lists the protocol): then the refusal fails the first read.
        assertThatThrownBy(() ->
                        fromB.newStream(Echo.ID).thenCompose(s -> s.read()).get(10, TimeUnit.SECONDS))
                .isInstanceOf(ExecutionException.class)
                .hasRootCauseInstanceOf(UnsupportedProtocolException.class);
        assertThat(a.ping(b.peerId(), 1).get(10, TimeUnit.SECONDS)).hasSize(1);
        assertThat(c.permits(Ping.ID)).isTrue();
    }
}
