package dev.chorus.gossip.host;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.chorus.gossip.core.Stream;
import dev.chorus.gossip.multistream.UnsupportedProtocolException;
import dev.chorus.gossip.protocol.Echo;
import java.util.SplittableRandom;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/** Lazy multistream negotiation between two real hosts on loopback: when a stream is pipelined, and what it does. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class LazyNegotiationTest {
    @RegisterExtension
    final LoopbackHosts hosts = new LoopbackHosts();

    private Host host(UnaryOperator<HostConfig> tweak) {
        Host h = hosts.start(tweak);
        h.setHandler(Echo.ID, Echo.handler());
        return h;
    }

    /** b connected to a, with a's identify received. */
    private static Connection identified(Host b, Host a) throws Exception {
        Connection c = b.connect(a.listenAddrs().getFirst()).get(10, TimeUnit.SECONDS);
        assertThat(c.identify().get(10, TimeUnit.SECONDS).protocols()).contains(Echo.ID);
        return c;
    }

    private static byte[] random(int n, long seed) {
        byte[] b = new byte[n];
        new SplittableRandom(seed).nextBytes(b);
        return b;
    }

    @Test
    void aProtocolThePeerListedIsPipelinedAndItsDataFollowsTheProposalIntact() throws Exception {
        Host a = host(c -> c);
        Connection c = identified(host(cfg -> cfg), a);
        for (long seed = 1; seed <= 3; seed++) {
            byte[] data = random(300_000 * (int) seed, seed); // past yamux's initial 256 KiB window
            Stream s = c.newStream("/chorus/not-there/1.0.0", Echo.ID).get(10, TimeUnit.SECONDS);

            assertThat(Connection.isPipelined(s))
                    .as("handed over before the answer")
                    .isTrue();
            assertThat(s.protocol()).isEqualTo(Echo.ID);
            s.write(data);
            s.closeWrite();
            assertThat(s.readToEnd(data.length + 1).get(20, TimeUnit.SECONDS)).isEqualTo(data);
        }
        HostTest.waitFor(() -> c.openStreams() == 0);
    }

    @Test
    void withoutTheListingOrWithLazinessOffTheStreamWaitsForTheAnswer() throws Exception {
        Host a = host(c -> c);
        Connection eager = identified(host(cfg -> cfg.withLazyNegotiation(false)), a);
        Stream s = eager.newStream(Echo.ID).get(10, TimeUnit.SECONDS);
        assertThat(Connection.isPipelined(s)).isFalse();
        assertThat(s.protocol()).isEqualTo(Echo.ID);
        s.reset();

        // A protocol that a did not list is negotiated in full, and its refusal fails the open itself.
        Connection lazy = identified(host(cfg -> cfg), a);
        assertThatThrownBy(() -> lazy.newStream("/chorus/not-there/1.0.0").get(10, TimeUnit.SECONDS))
                .isInstanceOf(ExecutionException.class)
                .hasRootCauseInstanceOf(UnsupportedProtocolException.class);
    }

    @Test
    void aLazyProposalThePeerRefusesFailsTheReadsAndResetsTheStream() throws Exception {
        Host a = host(c -> c);
        Connection c = identified(host(cfg -> cfg), a);
        a.removeHandler(Echo.ID); // b's identify of a still lists it

        Stream s = c.newStream(Echo.ID).get(10, TimeUnit.SECONDS);
        assertThat(Connection.isPipelined(s)).isTrue();
        s.write(random(1000, 7));
        assertThatThrownBy(() -> s.read().get(10, TimeUnit.SECONDS))
                .isInstanceOf(ExecutionException.class)
                .hasRootCauseInstanceOf(UnsupportedProtocolException.class);
        s.closeFuture().handle((v, e) -> null).get(10, TimeUnit.SECONDS);
        HostTest.waitFor(() -> c.openStreams() == 0);
        assertThat(c.isOpen()).as("only the stream failed").isTrue();

        a.setHandler(Echo.ID, Echo.handler());
        Stream again = c.newStream(Echo.ID).get(10, TimeUnit.SECONDS);
        again.write(new byte[] {1, 2, 3});
        again.closeWrite();
        assertThat(again.readToEnd(10).get(10, TimeUnit.SECONDS)).containsExactly(1, 2, 3);
    }
}
