package dev.chorus.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.chorus.gossip.identity.KeyFile;
import dev.chorus.gossip.identity.PeerId;
import dev.chorus.node.config.ConfigLoader;
import dev.chorus.node.config.NodeConfig;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
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
 * real peer IDs, its shard found by a path that holds on the host and in the container. The containers themselves
 * run in {@link DockerComposeTest}.
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
            assertThat(r.out()).contains(name + " http://127.0.0.1:" + (apiPort + i) + "/ peer " + peers.get(i));

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
        }
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
