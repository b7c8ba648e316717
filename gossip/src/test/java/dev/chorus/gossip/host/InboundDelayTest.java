package dev.chorus.gossip.host;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.chorus.gossip.core.Stream;
import dev.chorus.gossip.identity.PrivateKey;
import dev.chorus.gossip.protocol.Echo;
import java.time.Duration;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/** A host whose reads wait a fixed time: every round trip through it is late by that much, and nothing is lost. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class InboundDelayTest {
    private static final Duration DELAY = Duration.ofMillis(150);

    @RegisterExtension
    final LoopbackHosts hosts = new LoopbackHosts();

    private Host host(Duration delay) {
        return hosts.start(c -> c.withInboundDelay(delay));
    }

    @Test
    void everyRoundTripThroughTheDelayedHostTakesAtLeastTheDelay() throws Exception {
        Host slow = host(DELAY);
        Host fast = host(Duration.ZERO);
        fast.setHandler(Echo.ID, Echo.handler());
        slow.setHandler(Echo.ID, Echo.handler());
        // Dialled both ways: the delay is the host's, whichever side opened the connection.
        slow.connect(fast.listenAddrs().get(0)).get(10, TimeUnit.SECONDS);
        for (Duration rtt : slow.ping(fast.peerId(), 4).get(20, TimeUnit.SECONDS)) {
            assertThat(rtt).isGreaterThanOrEqualTo(DELAY);
        }
        for (Duration rtt : fast.ping(slow.peerId(), 4).get(20, TimeUnit.SECONDS)) {
            assertThat(rtt).isGreaterThanOrEqualTo(DELAY);
        }

        byte[] data = new byte[2 * 1024 * 1024 + 3];
        new Random(5).nextBytes(data);
        Stream a = fast.newStream(slow.peerId(), Echo.ID).get(10, TimeUnit.SECONDS);
        Stream b = slow.newStream(fast.peerId(), Echo.ID).get(10, TimeUnit.SECONDS);
        var ab = Echo.echo(a, data);
        var ba = Echo.echo(b, data);
        assertThat(ab.get(30, TimeUnit.SECONDS)).isEqualTo(data);
        assertThat(ba.get(30, TimeUnit.SECONDS)).isEqualTo(data);
    }

    @Test
    void aHostWithoutTheDelayAnswersSoonerThanIt() throws Exception {
        Host a = host(Duration.ZERO);
        Host b = host(Duration.ZERO);
        a.connect(b.listenAddrs().get(0)).get(10, TimeUnit.SECONDS);
        List<Duration> rtts = a.ping(b.peerId(), 8).get(20, TimeUnit.SECONDS);
        assertThat(rtts.stream().min(Duration::compareTo).orElseThrow()).isLessThan(DELAY);
    }

    @Test
    void aNegativeDelayIsRefused() {
        assertThatThrownBy(() -> HostConfig.defaults(PrivateKey.generate()).withInboundDelay(Duration.ofMillis(-1)))
                .isInstanceOf(IllegalArgumentException.class);
    }
}
