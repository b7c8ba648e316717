package dev.chorus.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.chorus.gossip.host.Connection;
import dev.chorus.gossip.host.ConnectionListener;
import dev.chorus.gossip.host.Host;
import dev.chorus.gossip.host.HostConfig;
import dev.chorus.gossip.identity.PrivateKey;
import dev.chorus.gossip.multiaddr.Multiaddr;
import dev.chorus.gossip.pnet.PreSharedKey;
import dev.chorus.gossip.protocol.Echo;
import dev.chorus.gossip.protocol.Sink;
import dev.chorus.learning.json.JsonReader;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** {@code p2p ping|identify|send}, {@code keygen} and {@code peer-id} in-process, against a real loopback host. */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class P2pCommandTest {
    static Host server;
    static String addr;
    static final List<Sink.Received> received = new CopyOnWriteArrayList<>();

    @TempDir
    Path dir;

    @BeforeAll
    static void startServer() {
        server = Host.start(HostConfig.defaults(PrivateKey.generate())
                        .withListenAddrs(List.of(Multiaddr.parse("/ip4/127.0.0.1/tcp/0"))))
                .join();
        server.setHandler(Echo.ID, Echo.handler());
        server.setHandler(Sink.ID, Sink.handler(received::add));
        addr = server.listenAddrs().getFirst().toString();
    }

    @AfterAll
    static void stopServer() {
        server.close();
    }

    static Map<String, Object> json(CliRun run) {
        assertThat(run.exitCode()).as(run.err()).isZero();
        assertThat(run.out().lines().count()).as(run.out()).isEqualTo(1);
        return JsonReader.parseObject(run.out().strip());
    }

    /** A user error: exit 2 and exactly one line on stderr, without a stack trace. */
    static String userError(CliRun run) {
        assertThat(run.exitCode()).as(run.out() + run.err()).isEqualTo(2);
        assertThat(run.err().lines().toList()).as(run.err()).hasSize(1);
        assertThat(run.err()).startsWith("chorus: ").doesNotContain("\tat ");
        return run.err().strip();
    }

    @Test
    void pingPrintsRoundTripsAndTheirMedian() {
        Map<String, Object> m = json(CliRun.of("p2p", "ping", addr, "--count", "4", "--json"));
        assertThat(m.get("event")).isEqualTo("ping");
        assertThat(m.get("peerId")).isEqualTo(server.peerId().toBase58());
        @SuppressWarnings("unchecked")
        List<Number> rtts = (List<Number>) m.get("rttsMs");
        assertThat(rtts).hasSize(4).allSatisfy(v -> assertThat(v.doubleValue()).isPositive());
        double[] sorted =
                rtts.stream().mapToDouble(Number::doubleValue).sorted().toArray();
        assertThat(((Number) m.get("medianMs")).doubleValue()).isEqualTo((sorted[1] + sorted[2]) / 2);

        CliRun plain = CliRun.of("p2p", "ping", addr, "--count", "3");
        assertThat(plain.exitCode()).as(plain.err()).isZero();
        assertThat(plain.out()).contains("ping " + server.peerId() + ": 3 round trips, median ");
    }

    @Test
    @SuppressWarnings("unchecked")
    void identifyPrintsTheRemoteRecord() {
        Map<String, Object> m = json(CliRun.of("p2p", "identify", addr, "--json"));
        assertThat(m.get("peerId")).isEqualTo(server.peerId().toBase58());
        assertThat(m.get("agentVersion")).isEqualTo(server.config().agentVersion());
        assertThat(m.get("protocolVersion")).isEqualTo("ipfs/0.1.0");
        assertThat((List<Object>) m.get("protocols"))
                .contains(Echo.ID, Sink.ID, "/ipfs/ping/1.0.0", "/ipfs/id/1.0.0", "/ipfs/id/push/1.0.0");
        assertThat((List<Object>) m.get("listenAddrs"))
                .containsExactly(server.listenAddrs().getFirst().withoutPeerId().toString());
        assertThat((String) m.get("observedAddr")).startsWith("/ip4/127.0.0.1/tcp/");

        CliRun plain = CliRun.of("p2p", "identify", addr);
        assertThat(plain.exitCode()).as(plain.err()).isZero();
        assertThat(plain.out()).contains(server.peerId() + ": agent chorus/").contains("protocols: ");
    }

    @Test
    void sendToTheSinkChecksTheAcknowledgedCount() {
        received.clear();
        Map<String, Object> m =
                json(CliRun.of("p2p", "send", addr, "--protocol", Sink.ID, "--bytes", "1MiB", "--json"));
        assertThat(m.get("bytes")).isEqualTo(1048576L);
        assertThat(m.get("acknowledged")).isEqualTo(1048576L);
        assertThat(((Number) m.get("seconds")).doubleValue()).isPositive();
        assertThat(((Number) m.get("mibPerSecond")).doubleValue()).isPositive();
        // What the server hashed is what the command sent.
        assertThat(received).hasSize(1);
        assertThat(received.getFirst().bytes()).isEqualTo(1048576L);
        assertThat(received.getFirst().sha256()).isEqualTo(m.get("sha256"));

        CliRun plain = CliRun.of("p2p", "send", addr, "--bytes", "5000");
        assertThat(plain.exitCode()).as(plain.err()).isZero();
        assertThat(plain.out()).startsWith("sent 5000 bytes to " + server.peerId() + " over " + Sink.ID);
    }

    @Test
    void sendToEchoChecksTheBytesThatComeBack() {
        Map<String, Object> m =
                json(CliRun.of("p2p", "send", addr, "--protocol", Echo.ID, "--bytes", "300000", "--json"));
        assertThat(m.get("protocol")).isEqualTo(Echo.ID);
        assertThat(m.get("acknowledged")).isEqualTo(300000L);
    }

    @Test
    void pskWritesAnOwnerOnlyKeyFileAndRefusesToOverwrite() throws IOException {
        Path file = dir.resolve("swarm.key");
        CliRun gen = CliRun.of("p2p", "psk", "--out", file.toString());
        assertThat(gen.exitCode()).as(gen.err()).isZero();
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(file)))
                .isEqualTo("rw-------");
        PreSharedKey key = PreSharedKey.load(file);
        assertThat(gen.out()).isEqualTo("wrote " + file + " (fingerprint " + key.fingerprint() + ")\n");
        assertThat(Files.readString(file)).matches("/key/swarm/psk/1\\.0\\.0/\n/base16/\n[0-9a-f]{64}\n");

        byte[] before = Files.readAllBytes(file);
        assertThat(userError(CliRun.of("p2p", "psk", "--out", file.toString()))).contains("already exists");
        assertThat(Files.readAllBytes(file)).isEqualTo(before);
    }

    @Test
    void keygenWritesAnOwnerOnlyKeyAndRefusesToOverwrite() throws IOException {
        Path key = dir.resolve("node.key");
        CliRun gen = CliRun.of("keygen", "--out", key.toString());
        assertThat(gen.exitCode()).as(gen.err()).isZero();
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(key)))
                .isEqualTo("rw-------");
        CliRun id = CliRun.of("peer-id", "--key", key.toString());
        assertThat(id.exitCode()).as(id.err()).isZero();
        String peerId = id.out().strip();
        assertThat(peerId).startsWith("12D3KooW");
        assertThat(gen.out()).contains(peerId);

        byte[] before = Files.readAllBytes(key);
        assertThat(userError(CliRun.of("keygen", "--out", key.toString()))).contains("already exists");
        assertThat(Files.readAllBytes(key)).isEqualTo(before);

        // The key is the dialer's identity: the server sees its peer ID.
        List<String> seen = new CopyOnWriteArrayList<>();
        ConnectionListener l = new ConnectionListener() {
            @Override
            public void connected(Connection c) {
                seen.add(c.remotePeer().toBase58());
            }
        };
        server.addConnectionListener(l);
        try {
            CliRun ping = CliRun.of("p2p", "ping", addr, "--count", "1", "--key", key.toString());
            assertThat(ping.exitCode()).as(ping.err()).isZero();
        } finally {
            server.removeConnectionListener(l);
        }
        assertThat(seen).contains(peerId);

        Files.setPosixFilePermissions(key, PosixFilePermissions.fromString("rw-r--r--"));
        assertThat(userError(CliRun.of("peer-id", "--key", key.toString()))).contains("chmod 600");
        assertThat(userError(
                        CliRun.of("peer-id", "--key", dir.resolve("missing.key").toString())))
                .contains("does not exist");
    }

    @Test
    void badMultiaddrsNameTheBadPart() {
        assertThat(userError(CliRun.of("p2p", "ping", "/ip4/1.2.3/tcp/1"))).contains("bad ip4 value '1.2.3'");
        assertThat(userError(CliRun.of("p2p", "identify", "/ip4/127.0.0.1/tpc/1")))
                .contains("unknown protocol 'tpc'");
        assertThat(userError(CliRun.of("p2p", "send", "/ip4/127.0.0.1/udp/5"))).contains("is not a TCP address");
        assertThat(userError(CliRun.of("p2p", "ping", "127.0.0.1:4001"))).contains("must start with '/'");
        assertThat(userError(CliRun.of("p2p", "ping", "/ip4/127.0.0.1/tcp/4001/p2p/QmNope")))
                .contains("bad p2p value 'QmNope'");
    }

    @Test
    void unreachablePeerIsOneLine() throws IOException {
        // A closed port outside the kernel's ephemeral range (32768 and up on Linux): a port that
        // was just free in that range can become the dial's own source port, and the socket then
        // connects to itself instead of being refused.
        int port = -1;
        for (int candidate = 20000; candidate < 30000 && port < 0; candidate += 7) {
            try (ServerSocket s = new ServerSocket(candidate, 1, InetAddress.getLoopbackAddress())) {
                port = s.getLocalPort();
            } catch (IOException taken) {
                // in use: try another
            }
        }
        assertThat(port).isPositive();
        assertThat(userError(CliRun.of("p2p", "ping", "/ip4/127.0.0.1/tcp/" + port)))
                .contains("cannot reach /ip4/127.0.0.1/tcp/" + port + ": connection refused");
    }

    @Test
    void peerIdMismatchIsRefused() {
        String other = PrivateKey.generate().peerId().toBase58();
        String wrong = server.listenAddrs().getFirst().withoutPeerId() + "/p2p/" + other;
        assertThat(userError(CliRun.of("p2p", "identify", wrong, "--json")))
                .contains("peer ID mismatch: dialed " + other)
                .contains("the remote is " + server.peerId());
    }

    @Test
    void silentPeerTimesOut() throws Exception {
        try (ServerSocket silent = new ServerSocket()) {
            silent.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
            List<Socket> accepted = new ArrayList<>();
            Thread acceptor = Thread.ofPlatform().daemon().start(() -> {
                try {
                    while (true) {
                        accepted.add(silent.accept()); // accepts, never answers
                    }
                } catch (IOException e) {
                    // closed at the end of the test
                }
            });
            long start = System.nanoTime();
            String err = userError(CliRun.of(
                    "p2p", "ping", "/ip4/127.0.0.1/tcp/" + silent.getLocalPort(), "--timeout", "1", "--json"));
            assertThat(err).contains("timed out");
            assertThat(TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - start))
                    .isLessThan(30);
            silent.close();
            acceptor.join(5000);
            for (Socket s : accepted) {
                s.close();
            }
        }
    }

    @Test
    void unsupportedProtocolAndBadOptionsAreOneLine() {
        Host bare = Host.start(HostConfig.defaults(PrivateKey.generate())
                        .withListenAddrs(List.of(Multiaddr.parse("/ip4/127.0.0.1/tcp/0"))))
                .join();
        try {
            String bareAddr = bare.listenAddrs().getFirst().toString();
            assertThat(userError(CliRun.of("p2p", "send", bareAddr, "--bytes", "10")))
                    .contains("does not support " + Sink.ID);
        } finally {
            bare.close();
        }
        assertThat(userError(CliRun.of("p2p", "send", addr, "--protocol", "/x/1.0.0")))
                .contains("--protocol must be");
        assertThat(userError(CliRun.of("p2p", "send", addr, "--bytes", "12XB"))).contains("not a byte count");
        assertThat(userError(CliRun.of("p2p", "send", addr, "--bytes", "0"))).contains("--bytes must be between");
        assertThat(userError(CliRun.of("p2p", "ping", addr, "--count", "0"))).contains("--count must be between");
        assertThat(userError(CliRun.of("p2p", "ping", addr, "--timeout", "-1"))).contains("--timeout");
    }

    @Test
    void byteCountsTakeBinarySuffixes() {
        assertThat(P2pCommand.parseBytes("1048576")).isEqualTo(1048576);
        assertThat(P2pCommand.parseBytes("64MiB")).isEqualTo(64L << 20);
        assertThat(P2pCommand.parseBytes("2k")).isEqualTo(2048);
        assertThat(P2pCommand.parseBytes("1 GiB")).isEqualTo(1L << 30);
    }
}
