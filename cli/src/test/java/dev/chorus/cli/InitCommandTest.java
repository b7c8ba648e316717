package dev.chorus.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.chorus.gossip.identity.KeyFile;
import dev.chorus.node.NodeTestDirs;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** chorus init, then config check and the config errors through the CLI (exit 2, one line). */
class InitCommandTest {

    @TempDir
    Path dir;

    @Test
    void initWritesConfigAndKeyAndPrintsThePeerId() throws Exception {
        Path data = NodeTestDirs.wdbc(dir.resolve("dataset"));
        Path home = dir.resolve("node1");
        CliRun r = CliRun.of(
                "init",
                "--dir",
                home.toString(),
                "--consortium",
                "hospitals",
                "--data",
                data.toString(),
                "--label",
                "Diagnosis");
        assertThat(r.exitCode()).as(r.err()).isZero();
        Path key = home.resolve("identity.key");
        assertThat(Files.getPosixFilePermissions(key)).isEqualTo(PosixFilePermissions.fromString("rw-------"));
        assertThat(r.out().strip()).isEqualTo(KeyFile.load(key).peerId().toString());
        assertThat(home.resolve("checkpoints")).isDirectory();
        assertThat(home.resolve("audit")).isDirectory();
        assertThat(home.resolve("logs")).isDirectory();
        String yaml = Files.readString(home.resolve("node.yaml"));
        assertThat(yaml).contains("consortium: hospitals", "  label: Diagnosis", "# Mini-batch size.");

        CliRun check = CliRun.of(
                "config", "check", "--config", home.resolve("node.yaml").toString());
        assertThat(check.exitCode()).as(check.err()).isZero();
        assertThat(check.out()).contains("ok (consortium hospitals)");

        CliRun again = CliRun.of("init", "--dir", home.toString(), "--consortium", "hospitals");
        assertThat(again.exitCode()).isEqualTo(2);
        assertThat(again.err().strip())
                .isEqualTo("chorus: " + home.resolve("node.yaml") + " already exists; init"
                        + " does not overwrite a data directory");
        assertThat(KeyFile.load(key).peerId().toString()).isEqualTo(r.out().strip());
    }

    @Test
    void initRefusesABadConsortiumName() {
        CliRun r = CliRun.of("init", "--dir", dir.resolve("x").toString(), "--consortium", "a b");
        assertThat(r.exitCode()).isEqualTo(2);
        assertThat(r.err()).startsWith("chorus: --consortium: expected 1 to 64 letters");
        assertThat(dir.resolve("x")).doesNotExist();
    }

    @Test
    void configErrorsExitWithCodeTwoAndOneLine() throws Exception {
        Path yaml = NodeTestDirs.create(dir, "");
        Files.writeString(yaml, NodeTestDirs.baseYaml().replace("batch: 16", "batch: lots"));
        for (String[] args : new String[][] {
            {"node", "run", "--config", yaml.toString()}, {"config", "check", "--config", yaml.toString()}
        }) {
            CliRun r = CliRun.of(args);
            assertThat(r.exitCode()).isEqualTo(2);
            assertThat(r.err())
                    .isEqualTo("chorus: " + yaml + ":13: training.batch: expected an integer, got 'lots'"
                            + System.lineSeparator());
        }
        CliRun bad = CliRun.of(
                "node",
                "run",
                "--config",
                NodeTestDirs.create(dir, "").toString(),
                "--bootstrap",
                "/ip4/127.0.0.1/tcp/x");
        assertThat(bad.exitCode()).isEqualTo(2);
        assertThat(bad.err()).startsWith("chorus: --set network.bootstrap: network.bootstrap[0]: bad multiaddr:");
        assertThat(bad.err().strip()).doesNotContain("\n");
    }

    @Test
    void aBusyPortIsNamedByTheOptionThatGaveIt() throws Exception {
        try (java.net.ServerSocket taken = new java.net.ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            int port = taken.getLocalPort();
            String addr = "/ip4/127.0.0.1/tcp/" + port;
            String[][] cases = {
                {"--listen", addr, "--listen: cannot listen on [" + addr + "]: address already in use"},
                {
                    "--set",
                    "network.listen=[" + addr + "]",
                    "--set network.listen: cannot listen on [" + addr + "]: address already in use"
                },
                {
                    "--api-port",
                    Integer.toString(port),
                    "--api-port: cannot listen on 127.0.0.1:" + port + ": address already in use"
                }
            };
            for (String[] c : cases) {
                Path yaml = NodeTestDirs.create(dir, "");
                CliRun r = CliRun.of("node", "run", "--config", yaml.toString(), c[0], c[1]);
                assertThat(r.exitCode()).as(r.err()).isEqualTo(2);
                assertThat(r.err().strip()).isEqualTo("chorus: " + c[2]);
            }
        }
    }

    @Test
    void configDocsPrintsTheReference() {
        CliRun r = CliRun.of("config", "docs");
        assertThat(r.exitCode()).isZero();
        assertThat(r.out()).startsWith("# Configuration reference");
    }
}
