package dev.chorus.privacy.membership;

import static dev.chorus.privacy.membership.HandBuiltCertificates.PEER_A;
import static dev.chorus.privacy.membership.HandBuiltCertificates.PEER_B;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.math.BigInteger;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.cert.X509CRL;
import java.time.Duration;
import java.time.Instant;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** What {@code chorus consortium show} prints, and the PEM files it reads. */
class CertificateDescriptionTest {

    private static final Instant FROM = Instant.parse("2026-01-01T00:00:00Z");
    private static final Instant TO = Instant.parse("2026-06-30T12:00:00Z");

    @TempDir
    Path dir;

    private final CertificateAuthority ca = CertificateAuthority.create("Acme \"Hospital\"", Duration.ofDays(3650));

    @Test
    void describesAMemberCertificate() throws Exception {
        MemberCertificate m = ca.issue(PEER_A, Role.MEMBER, FROM, TO);
        CertificateDescription d = CertificateDescription.of(m.certificate());
        String sha = HexFormat.ofDelimiter(":")
                .withUpperCase()
                .formatHex(MessageDigest.getInstance("SHA-256").digest(m.encoded()));
        assertThat(d.kind()).isEqualTo("member-certificate");
        assertThat(d.fields())
                .containsExactly(
                        Map.entry("organisation", "Acme \"Hospital\""),
                        Map.entry("role", "member"),
                        Map.entry("peerId", PEER_A),
                        Map.entry("serial", m.serial().toString(16)),
                        Map.entry(
                                "issuer",
                                ca.certificate().getSubjectX500Principal().getName()),
                        Map.entry("notBefore", "2026-01-01T00:00:00Z"),
                        Map.entry("notAfter", "2026-06-30T12:00:00Z"),
                        Map.entry("sha256", sha));
        assertThat(d.json())
                .startsWith("{\"kind\":\"member-certificate\",\"organisation\":\"Acme \\\"Hospital\\\"\",\"role\":"
                        + "\"member\",\"peerId\":\"" + PEER_A + "\",")
                .endsWith(",\"sha256\":\"" + sha + "\"}");
        assertThat(d.lines().getFirst()).isEqualTo("member certificate");
        assertThat(d.lines()).contains("  peerId        " + PEER_A);
    }

    @Test
    void describesACaCertificate() {
        CertificateDescription d = CertificateDescription.of(ca.certificate());
        assertThat(d.kind()).isEqualTo("ca-certificate");
        assertThat(d.fields().keySet())
                .containsExactly("organisation", "subject", "serial", "notBefore", "notAfter", "sha256");
        assertThat(d.fields().get("organisation")).isEqualTo("Acme \"Hospital\"");
    }

    @Test
    void describesACrlWithItsEntries() {
        X509CRL first = ca.revoke(List.of(BigInteger.valueOf(0xabc)), null, FROM, Duration.ofDays(30));
        X509CRL second = ca.revoke(List.of(BigInteger.valueOf(0xdef)), first, TO, Duration.ofDays(30));
        CertificateDescription d = CertificateDescription.of(second);
        assertThat(d.kind()).isEqualTo("crl");
        assertThat(d.fields().get("crlNumber")).isEqualTo(BigInteger.TWO);
        assertThat(d.fields().get("thisUpdate")).isEqualTo(TO.toString());
        assertThat(d.fields().get("nextUpdate"))
                .isEqualTo(TO.plus(Duration.ofDays(30)).toString());
        assertThat(d.json())
                .contains("\"crlNumber\":2,")
                .endsWith("\"revoked\":[{\"serial\":\"abc\",\"date\":\"2026-01-01T00:00:00Z\"},"
                        + "{\"serial\":\"def\",\"date\":\"2026-06-30T12:00:00Z\"}]}");
        assertThat(d.lines()).contains("    abc  2026-01-01T00:00:00Z", "    def  2026-06-30T12:00:00Z");
    }

    @Test
    void readsPemAndDerFilesOfEitherKind() throws Exception {
        MemberCertificate m = ca.issue(PEER_B, Role.OBSERVER, FROM, TO);
        Path pem = dir.resolve("member.pem");
        Pem.writeNew(pem, Pem.certificate(m.certificate()));
        Path der = dir.resolve("member.der");
        Files.write(der, m.encoded());
        Path crl = dir.resolve("acme.crl");
        Pem.writeNew(crl, Pem.crl(ca.revoke(List.of(m.serial()), null, FROM, Duration.ofDays(1))));
        Path crlDer = dir.resolve("acme-der.crl");
        Files.write(crlDer, Pem.readCrl(crl).getEncoded());

        assertThat(CertificateDescription.read(pem)).singleElement().satisfies(d -> assertThat(d.fields())
                .containsEntry("role", "observer"));
        assertThat(CertificateDescription.read(der)).singleElement().satisfies(d -> assertThat(d.fields())
                .containsEntry("peerId", PEER_B));
        assertThat(CertificateDescription.read(crl)).singleElement().satisfies(d -> assertThat(d.kind())
                .isEqualTo("crl"));
        assertThat(CertificateDescription.read(crlDer)).singleElement().satisfies(d -> assertThat(d.kind())
                .isEqualTo("crl"));
    }

    @Test
    void errorsNameTheFile() throws Exception {
        Path garbage = dir.resolve("garbage.pem");
        Files.writeString(garbage, "hello\n");
        assertThatThrownBy(() -> CertificateDescription.read(garbage))
                .isInstanceOf(MembershipException.class)
                .hasMessage(garbage + ": not a CRL (no -----BEGIN X509 CRL----- line)");
        assertThatThrownBy(() -> Pem.readCertificates(garbage))
                .isInstanceOf(MembershipException.class)
                .hasMessage(garbage + ": not a certificate (no -----BEGIN CERTIFICATE----- line)");

        Path truncated = dir.resolve("truncated.pem");
        String text = Pem.certificate(ca.certificate());
        Files.writeString(truncated, text.substring(0, text.length() / 2));
        assertThatThrownBy(() -> CertificateDescription.read(truncated))
                .isInstanceOf(MembershipException.class)
                .hasMessageStartingWith(truncated + ": corrupt PEM");

        Path missing = dir.resolve("missing.pem");
        assertThatThrownBy(() -> CertificateDescription.read(missing))
                .isInstanceOf(MembershipException.class)
                .hasMessage(missing + " does not exist");
    }

    @Test
    void writeNewRefusesAnExistingFileAndWriteAtomicallyReplacesIt() throws Exception {
        Path f = dir.resolve("out.pem");
        Pem.writeNew(f, "one\n");
        assertThatThrownBy(() -> Pem.writeNew(f, "two\n"))
                .isInstanceOf(MembershipException.class)
                .hasMessage(f + " already exists; refusing to overwrite it");
        Pem.writeAtomically(f, "three\n");
        assertThat(Files.readString(f)).isEqualTo("three\n");
        try (var s = Files.list(dir)) {
            assertThat(s).containsExactly(f); // no temporary file left behind
        }
    }
}
