package dev.chorus.gossip.host;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.chorus.gossip.core.Stream;
import dev.chorus.gossip.identity.PrivateKey;
import dev.chorus.gossip.libcrypto.CryptoMode;
import dev.chorus.gossip.noise.NoiseCiphers;
import dev.chorus.gossip.protocol.Echo;
import dev.chorus.gossip.protocol.Sink;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Hosts on loopback TCP whose Noise transports use different ChaCha20-Poly1305 implementations: the
 * choice is local, so libcrypto on one end and the JDK on the other must interoperate.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class HostCipherTest {
    @RegisterExtension
    final LoopbackHosts hosts = new LoopbackHosts();

    private Host host(CryptoMode mode) {
        return hosts.start(c -> c.withCrypto(mode));
    }

    private static void assumeLibcrypto() {
        NoiseCiphers.Selection s = NoiseCiphers.select(CryptoMode.AUTO);
        assumeTrue(s.name().equals("openssl"), "libcrypto is unusable here: " + s.reason());
    }

    @ParameterizedTest(name = "{0} dials {1}")
    @CsvSource({"openssl, jdk", "jdk, openssl", "openssl, openssl", "jdk, jdk"})
    void echoAndSinkAcrossImplementations(String dialer, String listener) throws Exception {
        if (!dialer.equals("jdk") || !listener.equals("jdk")) {
            assumeLibcrypto();
        }
        Host a = host(CryptoMode.parse(dialer));
        Host b = host(CryptoMode.parse(listener));
        assertThat(a.cipher().name()).isEqualTo(dialer);
        assertThat(b.cipher().name()).isEqualTo(listener);
        List<Sink.Received> received = new CopyOnWriteArrayList<>();
        b.setHandler(Echo.ID, Echo.handler());
        b.setHandler(Sink.ID, Sink.handler(received::add));
        a.connect(b.listenAddrs().get(0)).get(10, TimeUnit.SECONDS);

        byte[] data = new byte[3 * 1024 * 1024 + 17];
        new Random(11).nextBytes(data);
        Stream echo = a.newStream(b.peerId(), Echo.ID).get(10, TimeUnit.SECONDS);
        assertThat(Echo.echo(echo, data).get(30, TimeUnit.SECONDS)).isEqualTo(data);

        long bytes = 8L * 1024 * 1024 + 5;
        Stream sink = a.newStream(b.peerId(), Sink.ID).get(10, TimeUnit.SECONDS);
        Sink.Result r = Sink.send(sink, bytes, 3).get(30, TimeUnit.SECONDS);
        assertThat(r.bytesAcknowledged()).isEqualTo(bytes);
        assertThat(received).hasSize(1);
        assertThat(received.get(0).sha256()).isEqualTo(r.sha256());
    }

    @Test
    void theJdkModeStartsWithoutLibcrypto() {
        Host h = host(CryptoMode.JDK);
        assertThat(h.cipher().name()).isEqualTo("jdk");
        assertThat(h.config().upgrade().crypto()).isEqualTo(CryptoMode.JDK);
    }

    @Test
    void theDefaultIsAuto() {
        assertThat(HostConfig.defaults(PrivateKey.generate()).upgrade().crypto())
                .isEqualTo(CryptoMode.AUTO);
    }
}
