package dev.chorus.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.chorus.gossip.core.Stream;
import dev.chorus.gossip.host.Connection;
import dev.chorus.gossip.host.Host;
import dev.chorus.gossip.host.HostConfig;
import dev.chorus.gossip.identity.KeyFile;
import dev.chorus.gossip.identity.PrivateKey;
import dev.chorus.gossip.multiaddr.Multiaddr;
import dev.chorus.gossip.protocol.Echo;
import dev.chorus.gossip.protocol.IdentifyInfo;
import dev.chorus.gossip.protocol.Sink;
import dev.chorus.learning.json.JsonReader;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** {@code p2p listen} in-process: a real host dials it and uses every protocol it serves. */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class P2pListenTest {
    @TempDir
    Path dir;

    @Test
    void servesEchoSinkPingAndIdentifyAndLogsConnections() throws Exception {
        Path keyFile = dir.resolve("listen.key");
        PrivateKey key = PrivateKey.generate();
        KeyFile.create(keyFile, key);
        LiveCli live = LiveCli.start("p2p", "listen", "--key", keyFile.toString(), "--duration", "4");
        Map<String, Object> listening = JsonReader.parseObject(live.next(30));
        assertThat(listening.get("event")).isEqualTo("listening");
        assertThat(listening.get("peerId")).isEqualTo(key.peerId().toBase58());
        @SuppressWarnings("unchecked")
        List<String> addrs = (List<String>) listening.get("addrs");
        assertThat(addrs).hasSize(1);
        assertThat(addrs.getFirst()).matches("/ip4/127\\.0\\.0\\.1/tcp/\\d+/p2p/" + key.peerId());

        Host client = Host.start(HostConfig.defaults(PrivateKey.generate())).join();
        try {
            Connection c = client.connect(Multiaddr.parse(addrs.getFirst())).get(10, TimeUnit.SECONDS);
            IdentifyInfo info = c.identify().get(10, TimeUnit.SECONDS);
            assertThat(info.protocols()).contains(Echo.ID, Sink.ID, "/ipfs/ping/1.0.0");
            assertThat(client.ping(c.remotePeer(), 2).get(10, TimeUnit.SECONDS)).hasSize(2);

            byte[] data = new byte[200_000];
            new Random(3).nextBytes(data);
            Stream echo = c.newStream(Echo.ID).get(10, TimeUnit.SECONDS);
            assertThat(Echo.echo(echo, data).get(10, TimeUnit.SECONDS)).isEqualTo(data);

            Stream sink = c.newStream(Sink.ID).get(10, TimeUnit.SECONDS);
            Sink.Result r = Sink.send(sink, 1 << 20, 9).get(20, TimeUnit.SECONDS);
            assertThat(r.bytesAcknowledged()).isEqualTo(1 << 20);

            // The wire format of the sink reply: 8 bytes big-endian, then the stream closes.
            Stream raw = c.newStream(Sink.ID).get(10, TimeUnit.SECONDS);
            raw.write(new byte[12345]).get(10, TimeUnit.SECONDS);
            raw.closeWrite().get(10, TimeUnit.SECONDS);
            assertThat(ByteBuffer.wrap(raw.readToEnd(8).get(10, TimeUnit.SECONDS))
                            .getLong())
                    .isEqualTo(12345);

            List<Map<String, Object>> events = new ArrayList<>();
            while (events.stream().filter(e -> "sink".equals(e.get("event"))).count() < 2) {
                events.add(JsonReader.parseObject(live.next(10)));
            }
            Map<String, Object> connection = events.getFirst();
            assertThat(connection.get("event")).isEqualTo("connection");
            assertThat(connection.get("peerId")).isEqualTo(client.peerId().toBase58());
            assertThat(connection.get("direction")).isEqualTo("inbound");
            assertThat((String) connection.get("remoteAddr")).startsWith("/ip4/127.0.0.1/tcp/");
            Map<String, Object> firstSink = events.stream()
                    .filter(e -> "sink".equals(e.get("event")))
                    .findFirst()
                    .orElseThrow();
            assertThat(firstSink.get("bytes")).isEqualTo((long) (1 << 20));
            assertThat(firstSink.get("sha256")).isEqualTo(r.sha256());
        } finally {
            client.close();
        }
        assertThat(JsonReader.parseObject(live.next(10)).get("event")).isEqualTo("disconnected");
        assertThat(JsonReader.parseObject(live.next(20)).get("event")).isEqualTo("stopped");
        assertThat(live.exit.get(20, TimeUnit.SECONDS)).isZero();
    }

    @Test
    void listenAddressesAreCheckedAndABusyPortIsOneLine() throws Exception {
        CliRun bad = CliRun.of("p2p", "listen", "--listen", "/ip4/127.0.0.1/udp/0", "--duration", "1");
        assertThat(bad.exitCode()).isEqualTo(2);
        assertThat(bad.err()).contains("is not a TCP address");

        try (ServerSocket busy = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            CliRun run = CliRun.of(
                    "p2p", "listen", "--listen", "/ip4/127.0.0.1/tcp/" + busy.getLocalPort(), "--duration", "1");
            assertThat(run.exitCode()).isEqualTo(2);
            assertThat(run.err().lines().toList()).hasSize(1);
            assertThat(run.err()).startsWith("chorus: cannot listen on ");
        }
        CliRun zero = CliRun.of("p2p", "listen", "--duration", "0");
        assertThat(zero.exitCode()).isEqualTo(2);
        assertThat(zero.err()).contains("--duration");
    }

    @Test
    void withoutAKeyTheIdentityIsEphemeral() throws Exception {
        LiveCli a = LiveCli.start("p2p", "listen", "--duration", "0.5");
        LiveCli b = LiveCli.start("p2p", "listen", "--duration", "0.5");
        String idA = (String) JsonReader.parseObject(a.next(30)).get("peerId");
        String idB = (String) JsonReader.parseObject(b.next(30)).get("peerId");
        assertThat(idA).startsWith("12D3KooW").isNotEqualTo(idB);
        assertThat(a.exit.get(30, TimeUnit.SECONDS)).isZero();
        assertThat(b.exit.get(30, TimeUnit.SECONDS)).isZero();
    }
}
