package dev.chorus.gossip.host;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.chorus.gossip.core.Stream;
import dev.chorus.gossip.identity.PrivateKey;
import dev.chorus.gossip.multiaddr.Multiaddr;
import dev.chorus.gossip.multistream.UnsupportedProtocolException;
import dev.chorus.gossip.noise.NoiseException;
import dev.chorus.gossip.protocol.Echo;
import dev.chorus.gossip.protocol.IdentifyInfo;
import dev.chorus.gossip.protocol.Ping;
import dev.chorus.gossip.protocol.Sink;
import dev.chorus.testsupport.TestLog;
import java.time.Duration;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/** Two real hosts on loopback TCP. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class HostTest {
    @RegisterExtension
    final LoopbackHosts hosts = new LoopbackHosts();

    private Host host(java.util.function.UnaryOperator<HostConfig> tweak) {
        return hosts.start(tweak);
    }

    private Host host() {
        return host(c -> c);
    }

    @Test
    void listeningOnABusyPortFailsTheStartWithoutHanging() throws Exception {
        Host a = host();
        Multiaddr taken = a.listenAddrs().get(0).withoutPeerId();
        CompletableFuture<Host> second =
                Host.start(HostConfig.defaults(PrivateKey.generate()).withListenAddrs(List.of(taken)));
        // The failed bind is reported on an event loop thread, which must not wait for its own group to stop while
        // closing the host, or the start's future never completes.
        assertThatThrownBy(() -> second.get(20, TimeUnit.SECONDS))
                .isInstanceOf(java.util.concurrent.ExecutionException.class)
                .hasMessageContaining("cannot listen on " + taken.toTcpSocketAddress());
    }

    /**
     * {@code bandwidthLimit} holds a host's sends to its rate: 512 KiB at 128 KiB/s take at least about 4 s (a loaded
     * machine only makes it slower), where the same transfer between unlimited hosts takes a fraction of that.
     */
    @Test
    void aBandwidthLimitHoldsTheHostsSendsToItsRate() throws Exception {
        long limit = 128 * 1024;
        Host a = host(c -> c.withBandwidthLimit(limit));
        Host b = host();
        b.setHandler(Sink.ID, Sink.handler(r -> {}));
        a.connect(b.listenAddrs().get(0)).get(10, TimeUnit.SECONDS);
        long bytes = 512 * 1024;
        Stream sink = a.newStream(b.peerId(), Sink.ID).get(10, TimeUnit.SECONDS);
        Sink.Result r = Sink.send(sink, bytes, 7).get(40, TimeUnit.SECONDS);
        assertThat(r.bytesAcknowledged()).isEqualTo(bytes);
        double rate = bytes / (r.elapsed().toNanos() / 1e9);
        TestLog.figures("%d bytes at a limit of %d bytes/s: %.0f bytes/s%n", bytes, limit, rate);
        // The shaper may let a first interval's worth through at once: allow a third over the limit.
        assertThat(rate).isLessThan(1.33 * limit);
    }

    @Test
    void connectIdentifyPingEchoSink() throws Exception {
        Host a = host();
        Host b = host();
        List<Sink.Received> received = new CopyOnWriteArrayList<>();
        b.setHandler(Echo.ID, Echo.handler());
        b.setHandler(Sink.ID, Sink.handler(received::add));
        List<String> events = new CopyOnWriteArrayList<>();
        b.addConnectionListener(new ConnectionListener() {
            @Override
            public void connected(Connection c) {
                events.add("connected " + c.direction());
            }

            @Override
            public void disconnected(Connection c) {
                events.add("disconnected");
            }
        });

        Multiaddr addr = b.listenAddrs().get(0);
        assertThat(addr.toString()).startsWith("/ip4/127.0.0.1/tcp/").endsWith("/p2p/" + b.peerId());
        Connection c = a.connect(addr).join();
        assertThat(c.remotePeer()).isEqualTo(b.peerId());
        assertThat(a.connect(addr).join()).isSameAs(c);

        IdentifyInfo info = c.identify().get(10, TimeUnit.SECONDS);
        assertThat(info.peerId()).isEqualTo(b.peerId());
        assertThat(info.protocols()).contains("/ipfs/id/1.0.0", Ping.ID, Echo.ID, Sink.ID);
        assertThat(info.listenAddrs()).contains(addr.withoutPeerId());
        assertThat(info.observedAddr()).isEqualTo(c.localAddress());
        assertThat(b.identify(a.peerId()).get(10, TimeUnit.SECONDS).peerId()).isEqualTo(a.peerId());

        List<Duration> rtts = a.ping(b.peerId(), 3).get(10, TimeUnit.SECONDS);
        assertThat(rtts).hasSize(3).allMatch(d -> d.toMillis() < 1000);

        byte[] data = new byte[1024 * 1024];
        new Random(5).nextBytes(data);
        Stream echo = a.newStream(b.peerId(), Echo.ID).join();
        assertThat(echo.protocol()).isEqualTo(Echo.ID);
        assertThat(Echo.echo(echo, data).get(20, TimeUnit.SECONDS)).isEqualTo(data);

        Stream sink = a.newStream(b.peerId(), Sink.ID).join();
        Sink.Result r = Sink.send(sink, 16L * 1024 * 1024, 42).get(30, TimeUnit.SECONDS);
        assertThat(r.bytesAcknowledged()).isEqualTo(16L * 1024 * 1024);
        assertThat(received).hasSize(1);
        assertThat(received.get(0).sha256()).isEqualTo(r.sha256());
        assertThat(received.get(0).peer()).isEqualTo(a.peerId());

        assertThat(events).containsExactly("connected INBOUND");
        c.close(Duration.ofSeconds(1)).get(5, TimeUnit.SECONDS);
        waitFor(() -> events.size() == 2);
        assertThat(events).containsExactly("connected INBOUND", "disconnected");
        assertThat(b.connections()).isEmpty();
    }

    @Test
    void muxerNegotiatedWithMultistreamWhenNotInlined() throws Exception {
        Host a = host(c -> c.withInlineMuxers(false));
        Host b = host();
        b.setHandler(Echo.ID, Echo.handler());
        Stream s = a.newStream(b.listenAddrs().get(0), Echo.ID).get(10, TimeUnit.SECONDS);
        assertThat(Echo.echo(s, "hi".getBytes()).get(10, TimeUnit.SECONDS)).isEqualTo("hi".getBytes());
    }

    @Test
    void wrongPeerIdFailsAndBacksOff() {
        Host a = host();
        Host b = host();
        Multiaddr wrong =
                b.listenAddrs().get(0).withPeerId(PrivateKey.generate().peerId());
        assertThatThrownBy(() -> a.connect(wrong).join()).hasCauseInstanceOf(NoiseException.class);
        assertThatThrownBy(() -> a.connect(wrong).join()).hasCauseInstanceOf(DialBackoffException.class);
        assertThat(a.connect(b.listenAddrs().get(0)).join().remotePeer()).isEqualTo(b.peerId());
    }

    @Test
    void unsupportedProtocolAndPerProtocolLimit() throws Exception {
        Host a = host();
        Host b = host();
        b.setHandler("/silent/1.0.0", s -> {}, 2); // never reads, never closes
        Connection c = a.connect(b.listenAddrs().get(0)).join();
        assertThatThrownBy(() -> c.newStream("/nope/1.0.0").join())
                .hasCauseInstanceOf(UnsupportedProtocolException.class);
        Stream s1 = c.newStream("/silent/1.0.0").join();
        Stream s2 = c.newStream("/silent/1.0.0").join();
        Stream s3 = c.newStream("/silent/1.0.0").join();
        // The third is reset by the remote right after negotiation.
        assertThatThrownBy(() -> s3.read().get(5, TimeUnit.SECONDS))
                .hasCauseInstanceOf(dev.chorus.gossip.core.StreamResetException.class);
        assertThat(s1.closeFuture()).isNotDone();
        assertThat(s2.closeFuture()).isNotDone();
    }

    @Test
    void slowReaderBoundsWhatTheSenderBuffers() throws Exception {
        Host a = host();
        Host b = host();
        b.setHandler("/slow/1.0.0", s -> {}); // accepts and never reads
        Stream s = a.newStream(b.listenAddrs().get(0), "/slow/1.0.0").join();
        AtomicLong accepted = new AtomicLong();
        byte[] chunk = new byte[64 * 1024];
        CompletableFuture<Void> writer =
                dev.chorus.gossip.core.Streams.loop(() -> s.write(chunk).thenApply(v -> {
                    accepted.addAndGet(chunk.length);
                    return accepted.get() < 64L * 1024 * 1024;
                }));
        Thread.sleep(1500);
        // Only the initial receive window (1 MiB by default) can be in flight; the writer is stalled.
        assertThat(writer).isNotDone();
        assertThat(accepted.get()).isLessThanOrEqualTo(1024 * 1024 + chunk.length);
        s.reset();
    }

    @Test
    void perIpLimitAndIdleTimeout() throws Exception {
        Host server = host(c -> c.withConnectionLimits(10, 2, 1).withIdleTimeout(Duration.ofMillis(400)));
        Host a = host();
        Host b = host(c -> c.withDialBackoff(Duration.ofMillis(10), Duration.ofMillis(20)));
        server.setHandler("/hold/1.0.0", s -> {});
        Connection ca = a.connect(server.listenAddrs().get(0)).join();
        // An open stream keeps ca from going idle however long the refused dial below takes.
        Stream held = ca.newStream("/hold/1.0.0").join();
        // Refused at accept: the dialer sees the socket closed or reset during the upgrade.
        assertThatThrownBy(() -> b.connect(server.listenAddrs().get(0)).get(10, TimeUnit.SECONDS))
                .isInstanceOf(java.util.concurrent.ExecutionException.class);
        assertThat(server.connections()).hasSize(1);
        assertThat(ca.isOpen()).isTrue();
        // Once its last stream is gone, the server closes ca as idle.
        held.reset();
        ca.closeFuture().get(10, TimeUnit.SECONDS);
        waitFor(() -> server.connections().isEmpty());
        Thread.sleep(50); // past b's dial backoff
        assertThat(b.connect(server.listenAddrs().get(0))
                        .get(10, TimeUnit.SECONDS)
                        .remotePeer())
                .isEqualTo(server.peerId());
    }

    @Test
    void identifyPushAnnouncesNewProtocols() throws Exception {
        Host a = host();
        Host b = host();
        Connection c = a.connect(b.listenAddrs().get(0)).join();
        assertThat(c.identify().get(10, TimeUnit.SECONDS).protocols()).doesNotContain("/late/1.0.0");
        b.setHandler("/late/1.0.0", s -> s.reset());
        waitFor(() -> c.identifyInfo().protocols().contains("/late/1.0.0"));
        b.removeHandler("/late/1.0.0");
        waitFor(() -> !c.identifyInfo().protocols().contains("/late/1.0.0"));
    }

    @Test
    void perPeerLimitClosesExtraConnections() throws Exception {
        Host a = host(c -> c.withConnectionLimits(10, 1, 10));
        Host b = host();
        a.connect(b.listenAddrs().get(0)).join();
        // Without /p2p/ the dial cannot reuse the connection; the new one is over a's per-peer limit.
        assertThatThrownBy(
                        () -> a.connect(b.listenAddrs().get(0).withoutPeerId()).get(10, TimeUnit.SECONDS))
                .hasMessageContaining("too many connections");
        assertThat(a.connections()).hasSize(1);
    }

    @Test
    void wildcardListenAddressIsExpanded() {
        Host h = host(c -> c.withListenAddrs(List.of(Multiaddr.parse("/ip4/0.0.0.0/tcp/0"))));
        List<Multiaddr> addrs = h.listenAddrs();
        assertThat(addrs).isNotEmpty().allMatch(a -> a.peerId().orElseThrow().equals(h.peerId()));
        assertThat(addrs).noneMatch(a -> a.toString().startsWith("/ip4/0.0.0.0/"));
        assertThat(addrs).anyMatch(a -> a.toString().startsWith("/ip4/127.0.0.1/tcp/"));
    }

    static void waitFor(java.util.function.BooleanSupplier cond) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (!cond.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("condition not met within 10 s");
            }
            Thread.sleep(20);
        }
    }
}
