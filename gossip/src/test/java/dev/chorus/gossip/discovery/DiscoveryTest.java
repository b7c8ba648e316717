package dev.chorus.gossip.discovery;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.chorus.gossip.host.Host;
import dev.chorus.gossip.host.HostConfig;
import dev.chorus.gossip.identity.PeerId;
import dev.chorus.gossip.identity.PrivateKey;
import dev.chorus.gossip.multiaddr.Multiaddr;
import java.time.Duration;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Reconnect backoff on a controlled clock, the address book, and the bootstrap dialer on loopback. */
class DiscoveryTest {
    static PeerId peer(int i) {
        byte[] seed = new byte[32];
        seed[0] = (byte) i;
        return PrivateKey.fromSeed(seed).peerId();
    }

    @Test
    void reconnectBackoffDoublesUpToTheMaximumAndResetsOnSuccess() {
        ReconnectSchedule<String> s =
                new ReconnectSchedule<>(Duration.ofSeconds(1), Duration.ofSeconds(10), new Random(1));
        s.add("a", 0);
        assertThat(s.due(0)).containsExactly("a");
        assertThat(s.due(0)).as("dialing").isEmpty();
        long now = 0;
        long[] expectedBase = {1000, 2000, 4000, 8000, 10000, 10000};
        for (long base : expectedBase) {
            s.failed("a", now);
            long next = s.nextAttempt("a");
            assertThat(next - now).isBetween(base, base + base / 5);
            assertThat(s.due(next - 1)).isEmpty();
            assertThat(s.due(next)).containsExactly("a");
            now = next;
        }
        assertThat(s.isRedial("a")).isTrue();
        assertThat(s.succeeded("a", now))
                .as("a first connection is no reconnect")
                .isFalse();
        assertThat(s.isConnected("a")).isTrue();
        assertThat(s.due(now + 100_000)).isEmpty();
        s.disconnected("a", now);
        assertThat(s.nextAttempt("a")).isEqualTo(now + 1000);
        s.failed("a", now);
        assertThat(s.nextAttempt("a") - now)
                .as("failures were reset by the success")
                .isBetween(1000L, 1200L);
    }

    @Test
    void aConnectionLostBeforeItIsStableCountsAsAFailureAndAStableOneResetsTheBackoff() {
        ReconnectSchedule<String> s = new ReconnectSchedule<>(
                Duration.ofSeconds(1), Duration.ofSeconds(60), Duration.ofSeconds(30), new Random(2));
        s.add("a", 0);
        long now = 0;
        // A peer that accepts each connection and drops it a second later: the redials slow down.
        long[] expectedBase = {1000, 2000, 4000, 8000, 16000};
        for (long base : expectedBase) {
            assertThat(s.due(now)).containsExactly("a");
            boolean reconnect = s.succeeded("a", now);
            assertThat(reconnect).isEqualTo(base != 1000);
            now += 1000;
            s.disconnected("a", now);
            assertThat(s.nextAttempt("a") - now).isBetween(base, base + base / 5);
            now = s.nextAttempt("a");
        }
        // A connection that lasts: its loss is redialed after the base delay, and the count starts again.
        assertThat(s.due(now)).containsExactly("a");
        assertThat(s.succeeded("a", now)).isTrue();
        now += 30_000;
        s.disconnected("a", now);
        assertThat(s.nextAttempt("a")).isEqualTo(now + 1000);
        assertThat(s.failures("a")).isZero();
        now += 1000;
        assertThat(s.due(now)).containsExactly("a");
        s.failed("a", now);
        assertThat(s.nextAttempt("a") - now).isBetween(1000L, 1200L);
    }

    @Test
    void dueHandsOutAtMostTheLimitFewestFailuresFirst() {
        ReconnectSchedule<String> s =
                new ReconnectSchedule<>(Duration.ofMillis(100), Duration.ofSeconds(10), new Random(3));
        for (String t : List.of("x", "y", "z")) {
            s.add(t, 0);
        }
        assertThat(s.due(0, 3)).containsExactly("x", "y", "z");
        s.failed("x", 0);
        s.failed("x", 0);
        s.failed("y", 0);
        s.failed("z", 0);
        s.failed("z", 0);
        s.failed("z", 0);
        assertThat(s.due(100_000, 2)).containsExactly("y", "x");
        assertThat(s.due(100_000, 2)).as("x and y are dialing").containsExactly("z");
        s.defer("z", 200_000);
        assertThat(s.due(199_999, 5)).isEmpty();
        assertThat(s.due(200_000, 5)).containsExactly("z");
        s.addConnected("w", 0);
        assertThat(s.isConnected("w")).isTrue();
        s.retain(t -> !t.equals("w"));
        assertThat(s.contains("w")).isFalse();
        assertThat(s.size()).isEqualTo(3);
        assertThatThrownBy(() -> new ReconnectSchedule<String>(Duration.ZERO, Duration.ofSeconds(1), new Random()))
                .hasMessageContaining("0 < base <= max");
    }

    @Test
    void addressBookKeepsTcpAddressesWithinBounds() {
        AddressBook b = new AddressBook(2, 2);
        PeerId a = peer(1), c = peer(2), d = peer(3);
        b.add(
                a,
                List.of(
                        Multiaddr.parse("/ip4/127.0.0.1/tcp/1"),
                        Multiaddr.parse("/ip4/127.0.0.1/tcp/2"),
                        Multiaddr.parse("/ip4/127.0.0.1/tcp/3"),
                        Multiaddr.parse("/ip4/127.0.0.1/udp/4"),
                        Multiaddr.parse("/ip4/127.0.0.1/tcp/5/p2p/" + c)));
        assertThat(b.addrs(a))
                .containsExactly(
                        Multiaddr.parse("/ip4/127.0.0.1/tcp/2/p2p/" + a),
                        Multiaddr.parse("/ip4/127.0.0.1/tcp/3/p2p/" + a));
        b.add(c, List.of(Multiaddr.parse("/ip4/127.0.0.1/tcp/9")));
        b.add(d, List.of(Multiaddr.parse("/ip4/127.0.0.1/tcp/9")));
        assertThat(b.size()).isEqualTo(2);
        assertThat(b.peers()).containsExactlyInAnyOrder(c, d);
    }

    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void bootstrapDialerConnectsLearnsAddressesAndReconnects() throws Exception {
        HostConfig base = HostConfig.defaults(PrivateKey.generate())
                .withListenAddrs(List.of(Multiaddr.parse("/ip4/127.0.0.1/tcp/0")))
                .withGracePeriod(Duration.ofMillis(100));
        try (Host a = Host.start(base).join();
                Host b = Host.start(HostConfig.defaults(PrivateKey.generate())
                                .withListenAddrs(List.of(Multiaddr.parse("/ip4/127.0.0.1/tcp/0")))
                                .withGracePeriod(Duration.ofMillis(100)))
                        .join()) {
            Multiaddr target = b.listenAddrs().get(0);
            BootstrapDialer.Config cfg =
                    new BootstrapDialer.Config(Duration.ofMillis(50), Duration.ofMillis(200), Duration.ofSeconds(2));
            try (BootstrapDialer d = BootstrapDialer.start(a, List.of(target), cfg)) {
                awaitTrue(() -> a.connection(b.peerId()) != null && d.isConnected(target));
                awaitTrue(() -> !d.addressBook().addrs(b.peerId()).isEmpty());
                assertThat(d.addressBook().addrs(b.peerId())).contains(target);
                // b drops the connection: a dials again.
                awaitTrue(() -> b.connection(a.peerId()) != null);
                var first = a.connection(b.peerId());
                b.connection(a.peerId()).close(Duration.ZERO).get(10, TimeUnit.SECONDS);
                awaitTrue(() ->
                        a.connection(b.peerId()) != null && a.connection(b.peerId()) != first && d.isConnected(target));
            }
        }
    }

    @Test
    void mdnsQueryResponseAndDiscovery() {
        PeerId self = peer(1), other = peer(2);
        List<Multiaddr> otherAddrs =
                List.of(Multiaddr.parse("/ip4/192.0.2.7/tcp/4001"), Multiaddr.parse("/ip6/::1/tcp/4001"));
        MdnsDiscovery me = new MdnsDiscovery(self, List::of, new Random(1));
        MdnsDiscovery them = new MdnsDiscovery(other, () -> otherAddrs, new Random(2));
        assertThat(them.peerName().length()).isBetween(32, 63);

        byte[] query = me.query();
        DnsMessage q = DnsMessage.decode(query);
        assertThat(q.response()).isFalse();
        assertThat(q.questions())
                .containsExactly(new DnsMessage.Question("_p2p._udp.local", DnsMessage.TYPE_PTR, false));

        MdnsDiscovery.Outcome answered = them.onPacket(query);
        assertThat(answered.reply()).isNotNull();
        DnsMessage r = DnsMessage.decode(answered.reply());
        assertThat(r.response()).isTrue();
        assertThat(r.answers().get(0).target()).isEqualTo(them.peerName() + "._p2p._udp.local");
        assertThat(r.additionals().get(0).strings())
                .containsExactly(
                        "dnsaddr=/ip4/192.0.2.7/tcp/4001/p2p/" + other, "dnsaddr=/ip6/::1/tcp/4001/p2p/" + other);

        MdnsDiscovery.Outcome found = me.onPacket(answered.reply());
        assertThat(found.reply()).isNull();
        assertThat(found.peers()).hasSize(1);
        assertThat(found.peers().get(0).peer()).isEqualTo(other);
        assertThat(found.peers().get(0).addrs()).hasSize(2);
        // Our own response (as heard on the multicast group) discovers nobody.
        assertThat(them.onPacket(answered.reply()).peers()).isEmpty();
        // Other services' queries are not answered.
        byte[] otherQuery = new DnsMessage(
                        0,
                        false,
                        List.of(new DnsMessage.Question("_http._tcp.local", DnsMessage.TYPE_PTR, false)),
                        List.of(),
                        List.of())
                .encode();
        assertThat(them.onPacket(otherQuery).reply()).isNull();
    }

    @Test
    void dnsDecodingFollowsCompressionAndRejectsLoopsAndTruncation() {
        // Header (1 answer), then "_p2p._udp.local" at offset 12, a PTR whose target is "x." + pointer to 12.
        byte[] name = {4, '_', 'p', '2', 'p', 4, '_', 'u', 'd', 'p', 5, 'l', 'o', 'c', 'a', 'l', 0};
        java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
        out.writeBytes(new byte[] {0, 0, (byte) 0x84, 0, 0, 0, 0, 1, 0, 0, 0, 0});
        out.writeBytes(name);
        out.writeBytes(new byte[] {0, 12, 0, 1, 0, 0, 0, 120, 0, 4, 1, 'x', (byte) 0xC0, 12});
        DnsMessage m = DnsMessage.decode(out.toByteArray());
        assertThat(m.answers().get(0).name()).isEqualTo("_p2p._udp.local");
        assertThat(m.answers().get(0).target()).isEqualTo("x._p2p._udp.local");

        byte[] loop = {0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, (byte) 0xC0, 12, 0, 12, 0, 1};
        assertThatThrownBy(() -> DnsMessage.decode(loop)).isInstanceOf(DnsFormatException.class);
        byte[] many = {0, 0, 0, 0, (byte) 0xff, (byte) 0xff, 0, 0, 0, 0, 0, 0};
        assertThatThrownBy(() -> DnsMessage.decode(many)).isInstanceOf(DnsFormatException.class);
        Random rnd = new Random(3);
        byte[] valid = out.toByteArray();
        for (int i = 0; i < 2000; i++) {
            byte[] b = java.util.Arrays.copyOf(valid, rnd.nextInt(valid.length + 1));
            if (b.length > 0) {
                b[rnd.nextInt(b.length)] = (byte) rnd.nextInt(256);
            }
            try {
                DnsMessage.decode(b);
            } catch (DnsFormatException expected) {
                // fine
            }
        }
        assertThatThrownBy(() -> DnsMessage.decode(new byte[9001])).isInstanceOf(DnsFormatException.class);
    }

    static void awaitTrue(java.util.function.BooleanSupplier cond) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (!cond.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("condition not met within 20 s");
            }
            Thread.sleep(20);
        }
    }

    /** mDNS announces the listen addresses on its interface; with none there, every address but loopback. */
    @Test
    void mdnsAnnouncesTheAddressesOnItsInterface() throws Exception {
        java.net.NetworkInterface lo = java.net.NetworkInterface.getByName("lo");
        org.junit.jupiter.api.Assumptions.assumeTrue(lo != null, "no lo interface");
        Multiaddr local = Multiaddr.parse("/ip4/127.0.0.1/tcp/4001");
        Multiaddr elsewhere = Multiaddr.parse("/ip4/192.0.2.7/tcp/4001");
        assertThat(MdnsService.announced(List.of(elsewhere, local), lo)).containsExactly(local);
        assertThat(MdnsService.announced(List.of(elsewhere), lo)).containsExactly(elsewhere);
    }
}
