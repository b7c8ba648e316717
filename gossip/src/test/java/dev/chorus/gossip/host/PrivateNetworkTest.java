package dev.chorus.gossip.host;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.chorus.gossip.core.Stream;
import dev.chorus.gossip.pnet.PreSharedKey;
import dev.chorus.gossip.protocol.Echo;
import dev.chorus.testsupport.TestLog;
import java.time.Duration;
import java.util.List;
import java.util.Random;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/** Real hosts on loopback TCP in private networks: the same key connects, another key or none does not. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class PrivateNetworkTest {
    /** Short, so that a connection whose negotiation waits on noise gives up soon. */
    static final Duration UPGRADE_TIMEOUT = Duration.ofSeconds(3);

    @RegisterExtension
    final LoopbackHosts hosts = new LoopbackHosts();

    private Host host(PreSharedKey key) {
        Host h = hosts.start(c -> c.withTimeouts(Duration.ofSeconds(5), UPGRADE_TIMEOUT, Duration.ofSeconds(5))
                .withPrivateNetwork(key));
        h.setHandler(Echo.ID, Echo.handler());
        return h;
    }

    @Test
    void hostsWithTheSameKeyConnectAndExchange() throws Exception {
        PreSharedKey key = PreSharedKey.generate();
        Host a = host(key);
        Host b = host(key);
        assertThat(a.config().privateNetwork()).isEqualTo(key);
        Connection c = a.connect(b.listenAddrs().get(0)).get(10, TimeUnit.SECONDS);
        assertThat(c.remotePeer()).isEqualTo(b.peerId());
        byte[] data = new byte[300_000];
        new Random(3).nextBytes(data);
        Stream s = a.newStream(b.peerId(), Echo.ID).get(10, TimeUnit.SECONDS);
        assertThat(Echo.echo(s, data).get(20, TimeUnit.SECONDS)).isEqualTo(data);
        assertThat(b.identify(a.peerId()).get(10, TimeUnit.SECONDS).peerId()).isEqualTo(a.peerId());
    }

    @Test
    void withABandwidthLimitTheShaperAndThePrivateNetworkWorkTogether() throws Exception {
        PreSharedKey key = PreSharedKey.generate();
        Host a = hosts.start(
                c -> c.withListenAddrs(List.of()).withPrivateNetwork(key).withBandwidthLimit(64L << 20));
        Host b = host(key);
        byte[] data = new byte[100_000];
        new Random(4).nextBytes(data);
        Stream s = a.newStream(b.listenAddrs().get(0), Echo.ID).get(10, TimeUnit.SECONDS);
        assertThat(Echo.echo(s, data).get(20, TimeUnit.SECONDS)).isEqualTo(data);
    }

    @Test
    void hostsWithDifferentKeysDoNotConnect() throws Exception {
        assertDialFails(host(PreSharedKey.generate()), host(PreSharedKey.generate()));
    }

    @Test
    void aHostWithAKeyAndOneWithoutDoNotConnectEitherWay() throws Exception {
        Host withKey = host(PreSharedKey.generate());
        Host withoutKey = host(null);
        assertDialFails(withKey, withoutKey);
        assertDialFails(withoutKey, withKey);
    }

    /** The dial fails within about the upgrade timeout, and both sides close their end. */
    private static void assertDialFails(Host dialer, Host listener) throws Exception {
        long start = System.nanoTime();
        assertThatThrownBy(() -> dialer.connect(listener.listenAddrs().get(0)).get(20, TimeUnit.SECONDS))
                .isInstanceOf(ExecutionException.class)
                .satisfies(e -> TestLog.figures("dial refused: " + e.getCause()));
        Duration took = Duration.ofNanos(System.nanoTime() - start);
        assertThat(took).isLessThan(UPGRADE_TIMEOUT.plusSeconds(3));
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(UPGRADE_TIMEOUT.toSeconds() + 5);
        while ((dialer.openChannels() > 0 || listener.openChannels() > 0) && System.nanoTime() < deadline) {
            Thread.sleep(50);
        }
        assertThat(dialer.openChannels()).as("dialer's open channels").isZero();
        assertThat(listener.openChannels()).as("listener's open channels").isZero();
        assertThat(dialer.connections()).isEmpty();
        assertThat(listener.connections()).isEmpty();
    }
}
