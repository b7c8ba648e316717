package dev.chorus.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.chorus.gossip.identity.KeyFile;
import dev.chorus.gossip.identity.PeerId;
import dev.chorus.node.config.ConfigLoader;
import dev.chorus.node.config.NodeConfig;
import dev.chorus.privacy.membership.CertificateAuthority;
import dev.chorus.privacy.membership.MemberCertificate;
import dev.chorus.privacy.membership.Passphrase;
import dev.chorus.privacy.membership.Pem;
import dev.chorus.privacy.membership.RevocationLists;
import dev.chorus.privacy.membership.Role;
import dev.chorus.privacy.membership.Roster;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.yaml.snakeyaml.Yaml;

/**
 * {@code testnet compose} writes a Compose file and node directories that fit together: one service per node, each
 * reading its own {@code node.yaml} through the mount, bootstrapping from the others by service name with their
 * real peer IDs, its shard and the roster found by paths that hold on the host and in the container, its member
 * certificate issued for its peer ID by its own institution's CA, whose key the saved passphrase opens. The
 * containers themselves run in {@link DockerComposeTest}.
 */
class ComposeTestnetTest {

    @TempDir
    Path dir;

    @Test
    void writesOneServicePerNodeWhoseConfigsNameEachOther() throws Exception {
        int apiPort = freePortRange(3);
        Path net = dir.resolve("net");
        CliRun r = CliRun.of(
                "testnet",
                "compose",
                "--nodes",
                "3",
                "--dir",
                net.toString(),
                "--api-port",
                Integer.toString(apiPort),
                "--image",
                "registry.example/chorus:1.0",
                "--set",
                "averaging.strategy=sync");
        assertThat(r.exitCode()).as(r.err()).isZero();
        assertThat(r.err()).contains("docker compose up -d");
        Path consortium = net.resolve("consortium").toAbsolutePath();
        assertThat(r.err())
                .contains("membership enforced: 3 institutions, one per node; their CAs (each with its key's"
                        + " passphrase file) and the roster are in " + consortium);
        List<Path> rosterFiles = new ArrayList<>();
        for (int k = 1; k <= 3; k++) {
            rosterFiles.add(consortium.resolve("roster").resolve("institution-" + k + ".crt"));
            Path caDir = consortium.resolve("institution-" + k);
            for (String secret : List.of("ca.key", "passphrase")) {
                assertThat(Files.getPosixFilePermissions(caDir.resolve(secret)))
                        .as("%s of institution %d", secret, k)
                        .isEqualTo(PosixFilePermissions.fromString("rw-------"));
            }
        }
        // An operator opens a CA with its passphrase file, as 'chorus consortium ... --passphrase-file' does.
        CertificateAuthority first = CertificateAuthority.load(
                consortium.resolve("institution-1"),
                Passphrase.resolve(consortium.resolve("institution-1").resolve("passphrase"), Map.of()));
        assertThat(first.organisation()).isEqualTo("Institution 1");
        assertThat(Pem.readCertificates(rosterFiles.getFirst())).containsExactly(first.certificate());
        Roster roster = Roster.load(rosterFiles);

        Map<String, Object> compose = new Yaml().load(Files.readString(net.resolve(LocalnetComposeCommand.FILE)));
        @SuppressWarnings("unchecked")
        Map<String, Map<String, Object>> services = (Map<String, Map<String, Object>>) compose.get("services");
        assertThat(services).containsOnlyKeys("node-000", "node-001", "node-002");
        String owner = Files.getAttribute(net, "unix:uid") + ":" + Files.getAttribute(net, "unix:gid");

        List<PeerId> peers = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            peers.add(KeyFile.load(net.resolve(LocalnetOptions.nodeName(i)).resolve("identity.key"))
                    .peerId());
        }
        for (int i = 0; i < 3; i++) {
            String name = LocalnetOptions.nodeName(i);
            Map<String, Object> s = services.get(name);
            assertThat(s)
                    .containsEntry("image", "registry.example/chorus:1.0")
                    .containsEntry("hostname", name)
                    .containsEntry("user", owner)
                    .containsEntry("command", List.of("node", "run", "--config", "/testnet/" + name + "/node.yaml"))
                    .containsEntry("volumes", List.of("./:/testnet"))
                    .containsEntry("ports", List.of("127.0.0.1:" + (apiPort + i) + ":7465"));
            // The API listens on all of its container's addresses, so it requires the node's token, which the
            // printed dashboard URL carries; the file is the one the node reads through the mount.
            Path tokenFile = net.resolve(name).resolve("api.token").toAbsolutePath();
            assertThat(Files.getPosixFilePermissions(tokenFile))
                    .as("%s api.token", name)
                    .isEqualTo(PosixFilePermissions.fromString("rw-------"));
            String token = Files.readString(tokenFile).strip();
            assertThat(token).matches("[0-9a-f]{64}");
            String api = "http://127.0.0.1:" + (apiPort + i) + "/";
            assertThat(r.out()).contains(name + " " + api + "#token=" + token + " peer " + peers.get(i));
            assertThat(r.err()).contains("chorus status --api " + api + " --token-file " + tokenFile);

            // The config as the node will load it (relative paths resolve alike on the host and under /testnet).
            NodeConfig c = ConfigLoader.load(net.resolve(name).resolve("node.yaml"), List.of());
            assertThat(c.data().path())
                    .isEqualTo(net.resolve("shards").resolve(name + ".csv").toAbsolutePath());
            assertThat(Files.readString(net.resolve(name).resolve("node.yaml")))
                    .contains("path: \"../shards/" + name + ".csv\"");
            assertThat(c.network().listen()).map(Object::toString).containsExactly("/ip4/0.0.0.0/tcp/4001");
            List<String> expected = new ArrayList<>();
            for (int j = 0; j < 3; j++) {
                if (j != i) {
                    expected.add("/dns4/" + LocalnetOptions.nodeName(j) + "/tcp/4001/p2p/" + peers.get(j));
                }
            }
            assertThat(c.network().bootstrap()).map(Object::toString).containsExactlyElementsOf(expected);
            assertThat(c.operations().api().host()).isEqualTo("0.0.0.0");
            assertThat(c.operations().api().port()).isEqualTo(7465);
            assertThat(c.averaging().sync().participants())
                    .containsExactlyElementsOf(
                            peers.stream().map(PeerId::toString).toList());

            // Membership: the roster relative to node.yaml, the certificate and CRL directory in the node's own.
            Path home = net.resolve(name).toAbsolutePath();
            assertThat(Files.readString(home.resolve("node.yaml")))
                    .contains(
                            "roster: [\"../consortium/roster/institution-1.crt\","
                                    + " \"../consortium/roster/institution-2.crt\", \"../consortium/roster/institution-3.crt\"]");
            NodeConfig.Membership m = c.network().membership();
            assertThat(m).isNotNull();
            assertThat(m.roster()).containsExactlyElementsOf(rosterFiles);
            assertThat(m.certificate()).isEqualTo(home.resolve("member.crt"));
            assertThat(m.crls()).containsExactly(home.resolve("crl"));
            assertThat(home.resolve("crl")).isEmptyDirectory();
            MemberCertificate cert = MemberCertificate.parse(
                    Pem.readCertificates(m.certificate()).getFirst());
            assertThat(cert.peerId()).isEqualTo(peers.get(i).toBase58());
            assertThat(cert.organisation()).isEqualTo("Institution " + (i + 1));
            assertThat(cert.role()).isEqualTo(Role.MEMBER);
            assertThat(roster.verify(
                                    List.of(cert.encoded()),
                                    peers.get(i).toBase58(),
                                    Instant.now(),
                                    new RevocationLists(roster))
                            .admitted())
                    .isTrue();
        }
    }

    /**
     * The token in a printed dashboard URL is the one the node started from that directory accepts. The node runs
     * in-process on loopback here (its API then requires the token only with api.require_token), from the same
     * node.yaml and data directory that its container would use.
     */
    @Test
    void theNodeAcceptsThePrintedToken() throws Exception {
        Path net = dir.resolve("net");
        int apiPort = freePortRange(2);
        CliRun r = CliRun.of(
                "testnet", "compose", "--nodes", "2", "--dir", net.toString(), "--api-port", Integer.toString(apiPort));
        assertThat(r.exitCode()).as(r.err()).isZero();
        java.util.regex.Matcher printed = java.util.regex.Pattern.compile(
                        "node-000 http://127\\.0\\.0\\.1:" + apiPort + "/#token=([0-9a-f]{64}) peer ")
                .matcher(r.out());
        assertThat(printed.find()).as(r.out()).isTrue();
        String token = printed.group(1);
        NodeConfig config = ConfigLoader.load(
                net.resolve("node-000").resolve("node.yaml"),
                List.of(
                        "network.listen=[/ip4/127.0.0.1/tcp/0]",
                        "network.bootstrap=[]",
                        "api.host=127.0.0.1",
                        "api.port=0",
                        "api.require_token=true",
                        "training.pause_ms=20"));
        try (dev.chorus.node.daemon.NodeDaemon node = dev.chorus.node.daemon.NodeDaemon.start(config);
                java.net.http.HttpClient http = java.net.http.HttpClient.newHttpClient()) {
            String status = "http://127.0.0.1:" + node.apiPort() + "/api/status";
            var withToken = java.net.http.HttpRequest.newBuilder(java.net.URI.create(status))
                    .header("Authorization", "Bearer " + token)
                    .build();
            var without = java.net.http.HttpRequest.newBuilder(java.net.URI.create(status))
                    .build();
            assertThat(http.send(withToken, java.net.http.HttpResponse.BodyHandlers.discarding())
                            .statusCode())
                    .isEqualTo(200);
            assertThat(http.send(without, java.net.http.HttpResponse.BodyHandlers.discarding())
                            .statusCode())
                    .isEqualTo(401);
        }
    }

    /** With fewer institutions than nodes, the nodes are their members in turn, and the roster has their CAs only. */
    @Test
    void institutionsAdmitTheirNodesRoundRobin() throws Exception {
        Path net = dir.resolve("net");
        CliRun r = CliRun.of(
                "testnet",
                "compose",
                "--nodes",
                "3",
                "--institutions",
                "2",
                "--dir",
                net.toString(),
                "--api-port",
                Integer.toString(freePortRange(3)));
        assertThat(r.exitCode()).as(r.err()).isZero();
        assertThat(r.err()).contains("membership enforced: 2 institutions (node i belongs to institution i mod 2 + 1)");
        try (Stream<Path> files = Files.list(net.resolve("consortium"))) {
            assertThat(files.map(p -> p.getFileName().toString()))
                    .containsExactlyInAnyOrder("institution-1", "institution-2", "roster");
        }
        List<String> organisations = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            NodeConfig c =
                    ConfigLoader.load(net.resolve(LocalnetOptions.nodeName(i)).resolve("node.yaml"), List.of());
            assertThat(c.network().membership().roster()).hasSize(2);
            organisations.add(MemberCertificate.parse(
                            Pem.readCertificates(c.network().membership().certificate())
                                    .getFirst())
                    .organisation());
        }
        assertThat(organisations).containsExactly("Institution 1", "Institution 2", "Institution 1");
    }

    @Test
    void badOptionsAreRefusedBeforeAnythingIsWritten() throws Exception {
        Path net = dir.resolve("net");
        assertRefused("--nodes: expected 1 to 64, got 0", "--nodes", "0", "--dir", net.toString());
        assertRefused(
                "--image: not an image reference: 'no image'",
                "--nodes",
                "2",
                "--dir",
                net.toString(),
                "--image",
                "no image");
        assertRefused(
                "--api-port: ports 65535 to 65536 must lie in 1024..65535",
                "--nodes",
                "2",
                "--dir",
                net.toString(),
                "--api-port",
                "65535");
        assertRefused(
                "--set: network.listen is set per node by the testnet",
                "--nodes",
                "2",
                "--dir",
                net.toString(),
                "--set",
                "network.listen=[/ip4/0.0.0.0/tcp/1]");
        assertRefused(
                "--institutions: expected 1 to 2 (the node count), got 3",
                "--nodes",
                "2",
                "--dir",
                net.toString(),
                "--institutions",
                "3");
        assertRefused(
                "--set: membership.enforce is set per node by the testnet",
                "--nodes",
                "2",
                "--dir",
                net.toString(),
                "--set",
                "membership.enforce=false");
        int port = freePortRange(2);
        try (ServerSocket taken = new ServerSocket(port + 1, 1, InetAddress.getLoopbackAddress())) {
            assertRefused(
                    "--api-port: port " + (port + 1) + " on 127.0.0.1 is in use; pick another --api-port",
                    "--nodes",
                    "2",
                    "--dir",
                    net.toString(),
                    "--api-port",
                    Integer.toString(port));
        }
        assertThat(net).doesNotExist();

        Files.createDirectories(net);
        Files.writeString(net.resolve(LocalnetComposeCommand.FILE), "services: {}\n");
        assertRefused(
                net + " already holds a testnet; stop it with 'docker compose down' and pick a new --dir",
                "--nodes",
                "2",
                "--dir",
                net.toString(),
                "--api-port",
                Integer.toString(port));
        try (Stream<Path> files = Files.list(net)) {
            assertThat(files).containsExactly(net.resolve(LocalnetComposeCommand.FILE));
        }
    }

    private static void assertRefused(String message, String... options) {
        String[] args = Stream.concat(Stream.of("testnet", "compose"), Stream.of(options))
                .toArray(String[]::new);
        CliRun r = CliRun.of(args);
        assertThat(r.exitCode()).as(r.err()).isEqualTo(2);
        assertThat(r.err().strip()).isEqualTo("chorus: " + message);
    }

    private static int freePortRange(int n) {
        return TestnetUpDownTest.freePortRange(n, new SplittableRandom(System.nanoTime()));
    }
}
