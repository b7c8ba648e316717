package dev.chorus.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.chorus.gossip.identity.KeyFile;
import dev.chorus.gossip.identity.PrivateKey;
import dev.chorus.learning.json.JsonReader;
import dev.chorus.privacy.membership.CertificateDescription;
import dev.chorus.privacy.membership.Passphrase;
import dev.chorus.privacy.membership.Pem;
import dev.chorus.privacy.membership.RefusalReason;
import dev.chorus.privacy.membership.RevocationLists;
import dev.chorus.privacy.membership.Roster;
import dev.chorus.privacy.membership.Verdict;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code chorus consortium ca init | issue | revoke | show} on real files, and their one-line errors. */
class ConsortiumCommandTest {

    @TempDir
    Path dir;

    private Path passphraseFile(String name, String passphrase) throws Exception {
        Path p = dir.resolve(name);
        Files.writeString(p, passphrase + "\n");
        Files.setPosixFilePermissions(p, PosixFilePermissions.fromString("rw-------"));
        return p;
    }

    /** A CA of {@code org} in {@code dir/<name>}, protected by the passphrase in {@code pass}. */
    private Path initCa(String name, String org, Path pass) {
        Path ca = dir.resolve(name);
        CliRun r = CliRun.of(
                "consortium", "ca", "init", "--org", org, "--out", ca.toString(), "--passphrase-file", pass.toString());
        assertThat(r.exitCode()).as(r.err()).isZero();
        return ca;
    }

    /** {@code chorus consortium issue} with the options every test gives, then {@code extra}. */
    private static CliRun issue(
            String ca, String peer, String role, String days, String out, String passphraseFile, String... extra) {
        List<String> args = new ArrayList<>(List.of(
                "consortium", "issue", "--ca", ca, "--peer-id", peer, "--role", role, "--days", days, "--out", out));
        args.addAll(List.of(extra));
        args.add("--passphrase-file");
        args.add(passphraseFile);
        return CliRun.of(args.toArray(String[]::new));
    }

    private static void assertUserError(CliRun r, String expected) {
        assertThat(r.exitCode()).as("exit code; stderr: %s", r.err()).isEqualTo(2);
        assertThat(r.err().strip().lines()).as(r.err()).hasSize(1);
        assertThat(r.err()).startsWith("chorus: ").contains(expected).doesNotContain("Exception");
        assertThat(r.out()).isEmpty();
    }

    @Test
    void initIssueShowRevokeShow() throws Exception {
        Path pass = passphraseFile("pass", "a long CA passphrase");
        Path ca = dir.resolve("acme-ca");
        CliRun init = CliRun.of(
                "consortium",
                "ca",
                "init",
                "--org",
                "Acme Hospital",
                "--out",
                ca.toString(),
                "--days",
                "30",
                "--passphrase-file",
                pass.toString());
        assertThat(init.exitCode()).as(init.err()).isZero();
        Path caCrt = ca.resolve("ca.crt");
        String fingerprint = CertificateDescription.fingerprint(
                Pem.readCertificates(caCrt).getFirst().getEncoded());
        assertThat(init.out())
                .contains("wrote " + caCrt)
                .contains("wrote " + ca.resolve("ca.key"))
                .contains("sha256        " + fingerprint);
        assertThat(Files.getPosixFilePermissions(ca.resolve("ca.key")))
                .isEqualTo(PosixFilePermissions.fromString("rw-------"));

        PrivateKey node = PrivateKey.generate();
        Path nodeKey = dir.resolve("node.key");
        KeyFile.create(nodeKey, node);
        String peer = node.peerId().toBase58();
        Path cert = dir.resolve("node.crt");
        CliRun issue = issue(
                ca.toString(), peer, "member", "7", cert.toString(), pass.toString(), "--key", nodeKey.toString());
        assertThat(issue.exitCode()).as(issue.err()).isZero();
        assertThat(issue.out()).contains("wrote " + cert).contains(peer);

        CliRun show = CliRun.of("consortium", "show", cert.toString(), "--json");
        assertThat(show.exitCode()).as(show.err()).isZero();
        Map<String, Object> json = JsonReader.parseObject(show.out().strip());
        assertThat(json)
                .containsEntry("kind", "member-certificate")
                .containsEntry("organisation", "Acme Hospital")
                .containsEntry("role", "member")
                .containsEntry("peerId", peer)
                .containsKeys("serial", "issuer", "notBefore", "notAfter", "sha256");

        // what the command wrote admits the node under the roster check a peer runs, for its own peer ID only
        Roster roster = Roster.load(List.of(caCrt));
        List<byte[]> chain = List.of(Pem.readCertificates(cert).getFirst().getEncoded());
        assertThat(roster.verify(chain, peer, Instant.now(), null).admitted()).isTrue();
        String otherPeer = PrivateKey.generate().peerId().toBase58();
        assertThat(roster.verify(chain, otherPeer, Instant.now(), null).reason())
                .isEqualTo(RefusalReason.PEER_ID_MISMATCH);

        Path crl = dir.resolve("acme.crl");
        CliRun revoke = CliRun.of(
                "consortium",
                "revoke",
                "--ca",
                ca.toString(),
                "--cert",
                cert.toString(),
                "--out",
                crl.toString(),
                "--passphrase-file",
                pass.toString());
        assertThat(revoke.exitCode()).as(revoke.err()).isZero();
        assertThat(revoke.out()).contains("CRL number 1").contains("serial " + json.get("serial") + " added");

        CliRun showCrl = CliRun.of("consortium", "show", crl.toString(), "--json");
        assertThat(showCrl.exitCode()).as(showCrl.err()).isZero();
        Map<String, Object> crlJson = JsonReader.parseObject(showCrl.out().strip());
        assertThat(crlJson).containsEntry("kind", "crl").containsEntry("crlNumber", 1L);
        assertThat((List<?>) crlJson.get("revoked"))
                .singleElement()
                .satisfies(e -> assertThat(((Map<?, ?>) e).get("serial")).isEqualTo(json.get("serial")));

        RevocationLists lists = RevocationLists.empty(roster);
        lists.loadFiles(List.of(crl));
        Verdict v = roster.verify(chain, peer, Instant.now(), lists);
        assertThat(v.reason()).isEqualTo(RefusalReason.REVOKED);

        CliRun human = CliRun.of("consortium", "show", crl.toString());
        assertThat(human.out()).startsWith("crl\n").contains("crlNumber").contains((String) json.get("serial"));
    }

    @Test
    void aSecondRevocationExtendsTheCrl() throws Exception {
        Path pass = passphraseFile("pass", "passphrase");
        Path ca = initCa("ca", "Acme", pass);
        Path crl = dir.resolve("ca.crl");
        for (int i = 1; i <= 2; i++) {
            Path cert = dir.resolve("node" + i + ".crt");
            String peer = PrivateKey.generate().peerId().toBase58();
            assertThat(issue(ca.toString(), peer, "observer", "1", cert.toString(), pass.toString())
                            .exitCode())
                    .isZero();
            CliRun r = CliRun.of(
                    "consortium",
                    "revoke",
                    "--ca",
                    ca.toString(),
                    "--cert",
                    cert.toString(),
                    "--out",
                    crl.toString(),
                    "--passphrase-file",
                    pass.toString());
            assertThat(r.exitCode()).as(r.err()).isZero();
            assertThat(r.out()).contains("CRL number " + i + " of Acme, " + i + " revoked certificate(s)");
        }
        assertThat(RevocationLists.crlNumber(Pem.readCrl(crl))).isEqualTo(2);
    }

    @Test
    void wrongPassphraseIsOneLine() throws Exception {
        Path ca = initCa("ca", "Acme", passphraseFile("pass", "right"));
        CliRun r = issue(
                ca.toString(),
                PrivateKey.generate().peerId().toBase58(),
                "member",
                "1",
                dir.resolve("n.crt").toString(),
                passphraseFile("wrong", "wrong").toString());
        assertUserError(r, "chorus: wrong passphrase for " + ca.resolve("ca.key"));
        assertThat(dir.resolve("n.crt")).doesNotExist();
    }

    @Test
    void aKeyFileOthersCanReadIsRefused() throws Exception {
        Path pass = passphraseFile("pass", "right");
        Path ca = initCa("ca", "Acme", pass);
        Path key = ca.resolve("ca.key");
        Files.setPosixFilePermissions(key, PosixFilePermissions.fromString("rw-r--r--"));
        CliRun r = CliRun.of(
                "consortium",
                "revoke",
                "--ca",
                ca.toString(),
                "--cert",
                ca.resolve("ca.crt").toString(),
                "--out",
                dir.resolve("x.crl").toString(),
                "--passphrase-file",
                pass.toString());
        assertUserError(r, "is a CA certificate, not a member certificate");
        CliRun issue = issue(
                ca.toString(),
                PrivateKey.generate().peerId().toBase58(),
                "member",
                "1",
                dir.resolve("n.crt").toString(),
                pass.toString());
        assertUserError(issue, key + " has mode 0644; it must be readable by its owner only: run chmod 600 " + key);
    }

    @Test
    void noPassphraseIsOneLine() {
        assumeTrue(System.getenv(Passphrase.ENVIRONMENT_VARIABLE) == null, "CHORUS_CA_PASSPHRASE is set");
        Path ca = dir.resolve("ca");
        CliRun r = CliRun.of("consortium", "ca", "init", "--org", "Acme", "--out", ca.toString());
        assertUserError(r, "chorus: no passphrase: give --passphrase-file FILE or set CHORUS_CA_PASSPHRASE");
        assertThat(ca).doesNotExist();
    }

    @Test
    void refusesToOverwriteOutputs() throws Exception {
        Path pass = passphraseFile("pass", "right");
        Path ca = initCa("ca", "Acme", pass);
        CliRun again = CliRun.of(
                "consortium",
                "ca",
                "init",
                "--org",
                "Acme",
                "--out",
                ca.toString(),
                "--passphrase-file",
                pass.toString());
        assertUserError(again, "--out " + ca.resolve("ca.crt") + " already exists; refusing to overwrite it");

        Path existing = dir.resolve("existing.crt");
        Files.writeString(existing, "keep me");
        CliRun issue = issue(
                ca.toString(),
                PrivateKey.generate().peerId().toBase58(),
                "member",
                "1",
                existing.toString(),
                pass.toString());
        assertUserError(issue, "--out " + existing + " already exists; refusing to overwrite it");
        assertThat(Files.readString(existing)).isEqualTo("keep me");
    }

    @Test
    void badValuesAreOneLine() throws Exception {
        Path pass = passphraseFile("pass", "right");
        Path ca = initCa("ca", "Acme", pass);
        String peer = PrivateKey.generate().peerId().toBase58();
        String out = dir.resolve("n.crt").toString();
        assertUserError(
                issue(ca.toString(), peer, "admin", "1", out, pass.toString()),
                "unknown role 'admin': expected member or observer");
        assertUserError(
                issue(ca.toString(), peer, "member", "0", out, pass.toString()), "--days must be at least 1, got 0");
        assertUserError(
                issue(ca.toString(), "not/a/peer", "member", "1", out, pass.toString()),
                "'not/a/peer' is not a libp2p peer ID");
        Path otherKey = dir.resolve("other.key");
        KeyFile.create(otherKey, PrivateKey.generate());
        assertUserError(
                issue(ca.toString(), peer, "member", "1", out, pass.toString(), "--key", otherKey.toString()),
                ", not of --peer-id " + peer);
        assertUserError(
                CliRun.of(
                        "consortium",
                        "ca",
                        "init",
                        "--org",
                        "Acme",
                        "--out",
                        dir.resolve("ca2").toString(),
                        "--days",
                        "-1",
                        "--passphrase-file",
                        pass.toString()),
                "--days must be at least 1, got -1");
        assertUserError(
                CliRun.of(
                        "consortium",
                        "ca",
                        "init",
                        "--org",
                        "Acme",
                        "--out",
                        dir.resolve("ca3").toString(),
                        "--days",
                        "2000000000",
                        "--passphrase-file",
                        pass.toString()),
                "at most 36500 days");
        assertUserError(
                issue(ca.toString(), peer, "member", "2000000000", out, pass.toString()),
                "the certificate would outlive its CA");
    }

    @Test
    void refusesACertificateOrCrlOfAnotherCa() throws Exception {
        Path pass = passphraseFile("pass", "right");
        Path acme = initCa("acme", "Acme", pass);
        Path globex = initCa("globex", "Globex", pass);
        Path cert = dir.resolve("globex-node.crt");
        assertThat(issue(
                                globex.toString(),
                                PrivateKey.generate().peerId().toBase58(),
                                "member",
                                "1",
                                cert.toString(),
                                pass.toString())
                        .exitCode())
                .isZero();
        Path crl = dir.resolve("acme.crl");
        assertUserError(
                CliRun.of(
                        "consortium",
                        "revoke",
                        "--ca",
                        acme.toString(),
                        "--cert",
                        cert.toString(),
                        "--out",
                        crl.toString(),
                        "--passphrase-file",
                        pass.toString()),
                "--cert " + cert + " was not issued by this CA (Acme)");
        Path globexCrl = dir.resolve("globex.crl");
        assertThat(CliRun.of(
                                "consortium",
                                "revoke",
                                "--ca",
                                globex.toString(),
                                "--cert",
                                cert.toString(),
                                "--out",
                                globexCrl.toString(),
                                "--passphrase-file",
                                pass.toString())
                        .exitCode())
                .isZero();
        Path acmeCert = dir.resolve("acme-node.crt");
        assertThat(issue(
                                acme.toString(),
                                PrivateKey.generate().peerId().toBase58(),
                                "member",
                                "1",
                                acmeCert.toString(),
                                pass.toString())
                        .exitCode())
                .isZero();
        assertUserError(
                CliRun.of(
                        "consortium",
                        "revoke",
                        "--ca",
                        acme.toString(),
                        "--cert",
                        acmeCert.toString(),
                        "--out",
                        globexCrl.toString(),
                        "--passphrase-file",
                        pass.toString()),
                "--out " + globexCrl + " is not a CRL of this CA (Acme)");
    }

    @Test
    void showNamesTheFileOfACorruptPem() throws Exception {
        Path bad = dir.resolve("bad.pem");
        Files.writeString(bad, "-----BEGIN CERTIFICATE-----\n!!!!\n-----END CERTIFICATE-----\n");
        assertUserError(CliRun.of("consortium", "show", bad.toString()), "chorus: " + bad + ": corrupt PEM");
        Path missing = dir.resolve("missing.pem");
        assertUserError(CliRun.of("consortium", "show", missing.toString()), missing + " does not exist");
    }
}
