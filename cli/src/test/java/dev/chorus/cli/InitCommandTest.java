package dev.chorus.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.chorus.gossip.identity.KeyFile;
import dev.chorus.gossip.identity.PrivateKey;
import dev.chorus.node.NodeTestDirs;
import dev.chorus.node.config.ConfigLoader;
import dev.chorus.node.config.NodeConfig;
import dev.chorus.node.daemon.LocalData;
import dev.chorus.node.membership.Consortium;
import dev.chorus.privacy.membership.MemberCertificate;
import dev.chorus.privacy.membership.Pem;
import dev.chorus.privacy.membership.Role;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * chorus init, then config check and the config errors through the CLI (exit 2, one line); init with a roster and a
 * certificate, and config check of the membership it writes: ok only with a certificate valid for the node's key.
 */
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
        for (String sub : List.of("", "checkpoints", "audit", "logs")) {
            assertThat(Files.getPosixFilePermissions(home.resolve(sub)))
                    .as(sub)
                    .isEqualTo(PosixFilePermissions.fromString("rwx------"));
        }
        assertThat(Files.getPosixFilePermissions(home.resolve("node.yaml")))
                .isEqualTo(PosixFilePermissions.fromString("rw-------"));
        // The API's bearer token, needed once api.host leaves loopback: 32 random bytes in hex, owner-only.
        assertThat(Files.getPosixFilePermissions(home.resolve("api.token")))
                .isEqualTo(PosixFilePermissions.fromString("rw-------"));
        assertThat(Files.readString(home.resolve("api.token")).strip()).matches("[0-9a-f]{64}");
        String yaml = Files.readString(home.resolve("node.yaml"));
        assertThat(yaml).contains("consortium: hospitals", "  label: \"Diagnosis\"", "# Mini-batch size.");

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

    /**
     * --label, --positive and --drop land in node.yaml as the data section: the node loads the CSV with them, with no
     * warning that the ID column is a feature; the same init without --drop gets that warning.
     */
    @Test
    void initWritesTheDataSchemaSoTheNodeLoadsWithoutTheIdentifierWarning() throws Exception {
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
                "Diagnosis",
                "--positive",
                "M",
                "--drop",
                "ID,Texture_mean");
        assertThat(r.exitCode()).as(r.err()).isZero();
        Path yaml = home.resolve("node.yaml");
        assertThat(Files.readString(yaml)).contains("  positive: \"M\"", "  drop: [\"ID\", \"Texture_mean\"]");
        NodeConfig config = ConfigLoader.load(yaml, List.of());
        assertThat(config.data().csv().positive()).isEqualTo("M");
        assertThat(config.data().csv().drop()).containsExactly("ID", "Texture_mean");
        LocalData loaded = LocalData.load(config);
        assertThat(loaded.warnings()).isEmpty();
        assertThat(loaded.train().classes()).isEqualTo(2);

        Path bare = dir.resolve("node2");
        CliRun without = CliRun.of(
                "init",
                "--dir",
                bare.toString(),
                "--consortium",
                "hospitals",
                "--data",
                data.toString(),
                "--label",
                "Diagnosis",
                "--positive",
                "M");
        assertThat(without.exitCode()).as(without.err()).isZero();
        assertThat(LocalData.load(ConfigLoader.load(bare.resolve("node.yaml"), List.of()))
                        .warnings())
                .singleElement()
                .asString()
                .contains("column ID looks like a row identifier");
    }

    /** Two roster CA files; the second's name holds ", ", which an unquoted YAML flow list would split. */
    private List<Path> roster(Consortium consortium) throws Exception {
        Path a = Files.createDirectories(dir.resolve("roster")).resolve("A.crt");
        Files.writeString(a, Pem.certificate(consortium.hospitalA.certificate()));
        Path b = dir.resolve("roster").resolve("B, copy.crt");
        Files.writeString(b, Pem.certificate(consortium.hospitalB.certificate()));
        return List.of(a, b);
    }

    @Test
    void initWithARosterAndAnotherKeysCertificateWarnsAndConfigCheckRefusesIt() throws Exception {
        Consortium consortium = new Consortium();
        List<Path> roster = roster(consortium);
        PrivateKey other = PrivateKey.generate();
        Path cert = dir.resolve("cert.pem");
        Files.writeString(
                cert,
                Pem.certificate(Consortium.issue(consortium.hospitalA, other, Role.MEMBER)
                        .certificate()));
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
                "Diagnosis",
                "--roster",
                dir.resolve("roster/../roster/A.crt").toString(),
                roster.get(1).toString(),
                "--certificate",
                cert.toString());
        assertThat(r.exitCode()).as(r.err()).isZero();
        String peer = r.out().strip();
        assertThat(peer)
                .isEqualTo(KeyFile.load(home.resolve("identity.key")).peerId().toString());
        // The certificate is another key's: init says so, naming both peer IDs.
        assertThat(r.err().lines())
                .contains("membership: warning: " + cert + " is for peer " + other.peerId() + ", not for this"
                        + " node's new key " + peer + "; the node will not start with it: have it reissued for "
                        + peer);
        Path yaml = home.resolve("node.yaml");
        assertThat(Files.readString(yaml))
                .contains("  roster: [\"" + roster.get(0) + "\", \"" + roster.get(1) + "\"]")
                .contains("  certificate: \"" + cert + "\"");
        NodeConfig.Membership m = ConfigLoader.load(yaml, List.of()).network().membership();
        assertThat(m.roster()).containsExactlyElementsOf(roster);
        assertThat(m.certificate()).isEqualTo(cert);

        CliRun check = CliRun.of("config", "check", "--config", yaml.toString());
        assertThat(check.exitCode()).as(check.out()).isEqualTo(2);
        assertThat(check.err().strip().lines()).as(check.err()).hasSize(1);
        assertThat(check.err())
                .startsWith("chorus: ")
                .contains("membership.certificate: " + cert)
                .contains("peer-id-mismatch");

        // Reissued for the node's key, the same config checks.
        Files.writeString(
                cert,
                Pem.certificate(
                        Consortium.issue(consortium.hospitalA, KeyFile.load(home.resolve("identity.key")), Role.MEMBER)
                                .certificate()));
        check = CliRun.of("config", "check", "--config", yaml.toString());
        assertThat(check.exitCode()).as(check.err()).isZero();
        assertThat(check.out()).contains("ok (consortium hospitals); member of Hospital A until ");
    }

    @Test
    void initWithARosterAloneNamesMemberCrtAndHowToIssueIt() throws Exception {
        Consortium consortium = new Consortium();
        List<Path> roster = roster(consortium);
        Path home = dir.resolve("node1");
        CliRun r = CliRun.of(
                "init",
                "--dir",
                home.toString(),
                "--consortium",
                "hospitals",
                "--data",
                NodeTestDirs.wdbc(dir.resolve("dataset")).toString(),
                "--label",
                "Diagnosis",
                "--roster",
                roster.get(0).toString(),
                roster.get(1).toString());
        assertThat(r.exitCode()).as(r.err()).isZero();
        String peer = r.out().strip();
        assertThat(r.err())
                .contains("membership: have your institution's CA issue this node's certificate, e.g. chorus"
                        + " consortium issue --ca CA_DIR --peer-id " + peer + " --role member --days 365 --out "
                        + home.resolve("member.crt"));
        Path yaml = home.resolve("node.yaml");
        assertThat(Files.readString(yaml)).contains("  certificate: member.crt\n");

        // The node cannot start until member.crt is there; config check says so, then passes once it is.
        CliRun check = CliRun.of("config", "check", "--config", yaml.toString());
        assertThat(check.exitCode()).isEqualTo(2);
        assertThat(check.err().strip())
                .isEqualTo("chorus: " + yaml + ":" + lineOf(yaml, "  certificate: member.crt")
                        + ": membership.certificate: cannot read " + home.resolve("member.crt"));
        MemberCertificate issued =
                Consortium.issue(consortium.hospitalB, KeyFile.load(home.resolve("identity.key")), Role.MEMBER);
        Files.writeString(home.resolve("member.crt"), Pem.certificate(issued.certificate()));
        check = CliRun.of("config", "check", "--config", yaml.toString());
        assertThat(check.exitCode()).as(check.err()).isZero();
        assertThat(check.out()).contains("; member of Hospital B until " + issued.notAfter());
    }

    @Test
    void initRefusesACorruptRosterAndACertificateWithoutARoster() throws Exception {
        Path corrupt = Files.writeString(dir.resolve("corrupt.crt"), "-----BEGIN CERTIFICATE-----\nnot base64!\n");
        Path home = dir.resolve("node1");
        CliRun r = CliRun.of(
                "init", "--dir", home.toString(), "--consortium", "hospitals", "--roster", corrupt.toString());
        assertThat(r.exitCode()).as(r.err()).isEqualTo(2);
        assertThat(r.err().strip().lines()).as(r.err()).hasSize(1);
        assertThat(r.err()).startsWith("chorus: --roster: ").contains(corrupt.toString());
        assertThat(home).doesNotExist();

        Path cert = Files.writeString(dir.resolve("cert.pem"), "");
        r = CliRun.of("init", "--dir", home.toString(), "--consortium", "hospitals", "--certificate", cert.toString());
        assertThat(r.exitCode()).isEqualTo(2);
        assertThat(r.err().strip())
                .isEqualTo("chorus: --certificate needs --roster: without a roster the node admits everyone");
        assertThat(home).doesNotExist();
    }

    private static int lineOf(Path file, String line) throws Exception {
        return Files.readAllLines(file).indexOf(line) + 1;
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
