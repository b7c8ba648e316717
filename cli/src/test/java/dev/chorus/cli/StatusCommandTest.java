package dev.chorus.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.chorus.node.NodeTestDirs;
import dev.chorus.node.config.ConfigLoader;
import dev.chorus.node.daemon.NodeDaemon;
import java.net.ServerSocket;
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
                    .contains("ready              true")
                    .containsPattern("model version +\\d+")
                    .containsPattern("audit log +\\d+\\.\\d MiB of 1024 MiB, ");
        }
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
