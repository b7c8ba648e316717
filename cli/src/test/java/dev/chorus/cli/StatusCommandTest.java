package dev.chorus.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.chorus.node.NodeTestDirs;
import dev.chorus.node.config.ConfigLoader;
import dev.chorus.node.daemon.NodeDaemon;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** chorus status against a node started in-process, and against nothing. */
class StatusCommandTest {

    @TempDir
    Path dir;

    @Test
    void printsTheStatusAsATable() throws Exception {
        Path yaml = NodeTestDirs.create(dir, "");
        try (NodeDaemon node = NodeDaemon.start(ConfigLoader.load(yaml, List.of("training.pause_ms=5")))) {
            long deadline = System.nanoTime() + 60_000_000_000L;
            while (!node.ready() && System.nanoTime() < deadline) {
                Thread.sleep(20);
            }
            CliRun r = CliRun.of("status", "--api", "http://127.0.0.1:" + node.apiPort());
            assertThat(r.exitCode()).as(r.err()).isZero();
            assertThat(r.out())
                    .contains("peer id            " + node.peerId())
                    .contains("listen addresses   /ip4/127.0.0.1/tcp/")
                    .contains("consortium         test-consortium")
                    .contains("strategy           async")
                    .contains("backend            reference")
                    .contains("peers              0")
                    .contains("cipher             " + node.cipher().name() + " ("
                            + node.cipher().reason() + ")")
                    .contains("signatures         " + dev.chorus.gossip.identity.Ed25519Engines.current())
                    .contains("ready              true")
                    .containsPattern("model version +\\d+")
                    .containsPattern("audit log +\\d+\\.\\d MiB of 1024 MiB, ");
        }
    }

    @Test
    void aNodeThatRequiresTheTokenAnswersOnlyWithIt() throws Exception {
        Path yaml = NodeTestDirs.create(dir, "");
        Path token = dir.resolve("api.token");
        assertThat(token).doesNotExist();
        try (NodeDaemon node =
                NodeDaemon.start(ConfigLoader.load(yaml, List.of("training.pause_ms=5", "api.require_token=true")))) {
            // Created at start, as the node needs it and it was missing.
            assertThat(Files.readString(token).strip()).matches("[0-9a-f]{64}");
            String url = "http://127.0.0.1:" + node.apiPort();
            CliRun without = CliRun.of("status", "--api", url);
            assertThat(without.exitCode()).isEqualTo(1);
            assertThat(without.err()).contains("answered HTTP 401: the node requires its API token");
            CliRun with = CliRun.of("status", "--api", url, "--token-file", token.toString());
            assertThat(with.exitCode()).as(with.err()).isZero();
            assertThat(with.out()).contains("peer id            " + node.peerId());
        }
    }

    @Test
    void aNodeOffLoopbackWithoutAReadableTokenRefusesToStart() throws Exception {
        Path yaml = NodeTestDirs.create(dir, "");
        Files.createDirectories(dir.resolve("not-a-token"));
        var config = ConfigLoader.load(yaml, List.of("api.host=0.0.0.0", "api.token_file=not-a-token"));
        assertThatThrownBy(() -> NodeDaemon.start(config).close())
                .isInstanceOf(dev.chorus.node.config.ConfigException.class)
                .hasMessageContaining("api.token_file: the API on 0.0.0.0 needs a bearer token")
                .message()
                .doesNotContain("\n");
    }

    @Test
    void theAuditLogsGrowthReadsAsSizeRateAndDaysLeft() {
        assertThat(StatusCommand.audit(java.util.Map.of(
                        "sizeBytes",
                        100L << 20,
                        "capBytes",
                        1024L << 20,
                        "bytesPerHour",
                        60.0 * (1 << 20),
                        "daysUntilCap",
                        0.6347)))
                .isEqualTo("100.0 MiB of 1024 MiB, +60.00 MiB/h: the cap in 0.6 days at this pace");
        assertThat(StatusCommand.audit(java.util.Map.of("sizeBytes", 0L, "capBytes", 1024L << 20, "bytesPerHour", 0.0)))
                .isEqualTo("0.0 MiB of 1024 MiB, +0.00 MiB/h: not growing");
        assertThat(StatusCommand.audit(java.util.Map.of("sizeBytes", 0L, "capBytes", 1024L << 20)))
                .isEqualTo("0.0 MiB of 1024 MiB, growth not measured yet");
        assertThat(StatusCommand.audit(null)).isEqualTo("-");
    }

    @Test
    void theGroupRoundsReadAsMergedJoinedRelayedAndRecovered() {
        assertThat(StatusCommand.groupRounds(java.util.Map.of(
                        "roundsCompleted", 12L,
                        "roundsJoined", 14L,
                        "relayedRounds", 5L,
                        "relayedAbandoned", 1L,
                        "dropoutsRecovered", 2L)))
                .isEqualTo("12 of 14 joined merged, 5 relayed (1 abandoned), 2 dropouts recovered");
        assertThat(StatusCommand.groupRounds(java.util.Map.of(
                        "roundsCompleted", 12L,
                        "roundsJoined", 14L,
                        "relayedRounds", 5L,
                        "relayedAbandoned", 0L,
                        "dropoutsRecovered", 0L,
                        "relaying", false,
                        "relayDeclines", 2L)))
                .isEqualTo("12 of 14 joined merged, 5 relayed (0 abandoned), 0 dropouts recovered,"
                        + " declining the relay's role (2 times)");
        assertThat(StatusCommand.groupRounds(java.util.Map.of(
                        "roundsCompleted", 1L,
                        "roundsJoined", 1L,
                        "relayedRounds", 1L,
                        "relayedAbandoned", 0L,
                        "dropoutsRecovered", 0L,
                        "relaying", true,
                        "relayDeclines", 1L)))
                .isEqualTo("1 of 1 joined merged, 1 relayed (0 abandoned), 0 dropouts recovered");
        assertThat(StatusCommand.groupRounds(null)).isNull();
    }

    @Test
    void unreachableNodeExitsOne() throws Exception {
        int port;
        try (ServerSocket s = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            port = s.getLocalPort();
        }
        CliRun r = CliRun.of("status", "--api", "http://127.0.0.1:" + port);
        assertThat(r.exitCode()).isEqualTo(1);
        assertThat(r.err().strip())
                .isEqualTo("chorus: cannot reach the node at http://127.0.0.1:" + port
                        + "/api/status: connection refused");
        assertThat(CliRun.of("status", "--api", "ftp://x").exitCode()).isEqualTo(2);
    }
}
