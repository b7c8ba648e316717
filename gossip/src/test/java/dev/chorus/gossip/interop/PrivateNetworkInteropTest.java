package dev.chorus.gossip.interop;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.chorus.gossip.core.Stream;
import dev.chorus.gossip.host.Connection;
import dev.chorus.gossip.host.Host;
import dev.chorus.gossip.host.HostConfig;
import dev.chorus.gossip.identity.PeerId;
import dev.chorus.gossip.identity.PrivateKey;
import dev.chorus.gossip.multiaddr.Multiaddr;
import dev.chorus.gossip.pnet.PreSharedKey;
import dev.chorus.gossip.protocol.Echo;
import dev.chorus.testsupport.TestLog;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Private networks against js-libp2p's {@code @libp2p/pnet} (version pinned in src/test/js/package.json): with the
 * same key each side dials the other; with another key neither gets a connection. Skipped, with instructions, when
 * Node.js or the js packages are missing.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class PrivateNetworkInteropTest {
    private static final SecureRandom RANDOM = new SecureRandom();

    @TempDir
    Path dir;

    private JsPeer js;
    private Host host;
    private Multiaddr jsAddr;
    private PeerId jsPeer;

    @BeforeEach
    void requireJs() {
        JsPeer.assumeAvailable();
    }

    @AfterEach
    void stop() throws Exception {
        if (host != null) {
            host.close();
        }
        if (js != null) {
            js.close();
        }
    }

    /** A random key and its 64 hexadecimal digits. */
    private record Key(PreSharedKey key, String hex) {
        static Key random() {
            byte[] raw = new byte[PreSharedKey.KEY_BYTES];
            RANDOM.nextBytes(raw);
            return new Key(PreSharedKey.of(raw), HexFormat.of().formatHex(raw));
        }
    }

    private void startJs(String... args) throws Exception {
        js = JsPeer.start("peer.js", Map.of(), args);
        String listening = js.await("listening", 60);
        jsAddr = Multiaddr.parse(JsPeer.array(listening, "addrs").get(0));
        jsPeer = PeerId.parse(JsPeer.field(listening, "peerId"));
    }

    private void startHost(PreSharedKey key) {
        host = Host.start(HostConfig.defaults(PrivateKey.generate())
                        .withListenAddrs(List.of(Multiaddr.parse("/ip4/127.0.0.1/tcp/0")))
                        .withGracePeriod(Duration.ofMillis(500))
                        .withTimeouts(Duration.ofSeconds(5), Duration.ofSeconds(5), Duration.ofSeconds(10))
                        .withPrivateNetwork(key))
                .join();
        host.setHandler(Echo.ID, Echo.handler());
    }

    @Test
    void javaDialsJsWithTheSameKey() throws Exception {
        Key k = Key.random();
        startJs("--psk", k.hex());
        startHost(k.key());
        Connection c = host.connect(jsAddr).get(20, TimeUnit.SECONDS);
        assertThat(c.remotePeer()).isEqualTo(jsPeer);
        assertThat(c.identify().get(20, TimeUnit.SECONDS).agentVersion()).isEqualTo("chorus-interop-js/0.1.0");
        assertThat(host.ping(jsPeer, 3).get(20, TimeUnit.SECONDS)).hasSize(3);
        byte[] data = new byte[1024 * 1024];
        new Random(5).nextBytes(data);
        Stream echo = host.newStream(jsPeer, Echo.ID).get(20, TimeUnit.SECONDS);
        assertThat(Echo.echo(echo, data).get(30, TimeUnit.SECONDS)).isEqualTo(data);
    }

    /** js reads the key from the file Java wrote, so this also checks that js accepts the file format. */
    @Test
    void jsDialsJavaWithTheSameKeyFromAFileJavaWrote() throws Exception {
        PreSharedKey key = PreSharedKey.generate();
        Path file = dir.resolve("swarm.key");
        key.write(file);
        startJs("--psk-file", file.toString());
        startHost(key);
        String javaAddr = host.listenAddrs().get(0).toString();
        js.send("{\"cmd\":\"echo\",\"addr\":\"" + javaAddr + "\",\"bytes\":1048576}");
        String echo = js.await("echo", 60);
        assertThat(JsPeer.field(echo, "bytes")).isEqualTo("1048576");
        assertThat(JsPeer.field(echo, "equal")).isEqualTo("true");
        Connection c = host.connection(jsPeer);
        assertThat(c).isNotNull();
        assertThat(c.direction()).isEqualTo(Connection.Direction.INBOUND);
        assertThat(c.identify().get(20, TimeUnit.SECONDS).peerId()).isEqualTo(jsPeer);
    }

    @Test
    void withAnotherKeyNeitherSideConnects() throws Exception {
        startJs("--psk", Key.random().hex());
        startHost(Key.random().key());

        long start = System.nanoTime();
        assertThatThrownBy(() -> host.connect(jsAddr).get(30, TimeUnit.SECONDS))
                .isInstanceOf(ExecutionException.class)
                .satisfies(e -> TestLog.figures("java->js with another key: " + e.getCause()));
        TestLog.figures("java->js failed after %d ms%n", (System.nanoTime() - start) / 1_000_000);

        js.send("{\"cmd\":\"dial\",\"addr\":\"" + host.listenAddrs().get(0) + "\"}");
        String failure = awaitDialFailure(30);
        TestLog.figures("js->java with another key: " + failure);
        assertThat(host.connections()).isEmpty();
    }

    /** The js peer's error event for its dial; a connection or a successful dial fails the test. */
    private String awaitDialFailure(long seconds) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
        while (System.nanoTime() < deadline) {
            String line = js.next(TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime()) + 1);
            if (line == null) {
                break;
            }
            String event = JsPeer.field(line, "event");
            if ("dialed".equals(event) || "connection".equals(event)) {
                throw new AssertionError("js connected through another key: " + line);
            }
            if ("error".equals(event) && "dial".equals(JsPeer.field(line, "cmd"))) {
                return JsPeer.field(line, "message");
            }
        }
        throw new AssertionError(
                "the js dial neither failed nor succeeded within " + seconds + " s; its stderr:\n" + js.stderr());
    }
}
