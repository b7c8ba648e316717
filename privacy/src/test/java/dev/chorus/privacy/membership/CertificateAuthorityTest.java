package dev.chorus.privacy.membership;

import static dev.chorus.privacy.membership.HandBuiltCertificates.PEER_A;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.Arrays;
import java.util.List;
import javax.security.auth.x500.X500Principal;
import org.bouncycastle.asn1.edec.EdECObjectIdentifiers;
import org.bouncycastle.asn1.misc.MiscObjectIdentifiers;
import org.bouncycastle.asn1.misc.ScryptParams;
import org.bouncycastle.asn1.nist.NISTObjectIdentifiers;
import org.bouncycastle.asn1.pkcs.PBES2Parameters;
import org.bouncycastle.asn1.pkcs.PKCSObjectIdentifiers;
import org.bouncycastle.asn1.x509.AlgorithmIdentifier;
import org.bouncycastle.asn1.x509.SubjectPublicKeyInfo;
import org.bouncycastle.pkcs.PKCS8EncryptedPrivateKeyInfo;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A CA on real files: what it issues, how it is saved and what loading it refuses. */
class CertificateAuthorityTest {

    private static final char[] PASSPHRASE = "correct horse battery staple".toCharArray();

    @TempDir
    Path dir;

    @Test
    void aNewCaIsASelfSignedCaForItsOrganisation() throws Exception {
        CertificateAuthority ca = CertificateAuthority.create("Acme Hospital", Duration.ofDays(10));
        X509Certificate c = ca.certificate();
        assertThat(ca.organisation()).isEqualTo("Acme Hospital");
        assertThat(c.getSubjectX500Principal()).isEqualTo(new X500Principal("CN=Acme Hospital CA, O=Acme Hospital"));
        assertThat(c.getIssuerX500Principal()).isEqualTo(c.getSubjectX500Principal());
        assertThat(c.getBasicConstraints()).isZero(); // CA with path length 0
        assertThat(c.getCriticalExtensionOIDs()).contains("2.5.29.19", "2.5.29.15");
        assertThat(c.getKeyUsage()[5]).as("keyCertSign").isTrue();
        assertThat(c.getKeyUsage()[6]).as("cRLSign").isTrue();
        assertThat(c.getKeyUsage()[0]).as("digitalSignature").isFalse();
        assertThat(c.getExtensionValue("2.5.29.14"))
                .as("subject key identifier")
                .isNotNull();
        assertThat(c.getPublicKey().getAlgorithm()).isIn("Ed25519", "EdDSA");
        c.verify(c.getPublicKey());
        Duration validity =
                Duration.between(c.getNotBefore().toInstant(), c.getNotAfter().toInstant());
        assertThat(validity).isEqualTo(Duration.ofDays(10).plus(CertificateAuthority.CLOCK_SKEW));
    }

    @Test
    void aMemberCertificateBindsPeerOrganisationRoleAndValidity() throws Exception {
        CertificateAuthority ca = CertificateAuthority.create("Acme Hospital", Duration.ofDays(10));
        Instant from = Instant.now().truncatedTo(ChronoUnit.SECONDS);
        Instant to = from.plus(Duration.ofDays(3));
        MemberCertificate m = ca.issue(PEER_A, Role.OBSERVER, from, to);

        MemberCertificate back = MemberCertificate.parse(Pem.certificateFromDer(m.encoded()));
        assertThat(back).isEqualTo(m);
        assertThat(back.peerId()).isEqualTo(PEER_A);
        assertThat(back.organisation()).isEqualTo("Acme Hospital");
        assertThat(back.role()).isEqualTo(Role.OBSERVER);
        assertThat(back.notBefore()).isEqualTo(from);
        assertThat(back.notAfter()).isEqualTo(to);
        X509Certificate c = back.certificate();
        assertThat(c.getSubjectX500Principal())
                .isEqualTo(new X500Principal("CN=" + PEER_A + ", OU=observer, O=Acme Hospital"));
        assertThat(c.getSubjectAlternativeNames()).containsExactly(List.of(6, "libp2p:" + PEER_A));
        assertThat(c.getBasicConstraints()).isEqualTo(-1);
        assertThat(c.getKeyUsage()[0]).as("digitalSignature").isTrue();
        assertThat(c.getKeyUsage()[5]).as("keyCertSign").isFalse();
        assertThat(c.getExtensionValue("2.5.29.35"))
                .as("authority key identifier")
                .isNotNull();
        assertThat(back.serial().signum()).isPositive();
        assertThat(back.serial().bitLength()).isLessThanOrEqualTo(128);
        c.verify(ca.certificate().getPublicKey());
    }

    @Test
    void serialsDiffer() {
        CertificateAuthority ca = CertificateAuthority.create("Acme Hospital", Duration.ofDays(10));
        Instant now = Instant.now();
        MemberCertificate a = ca.issue(PEER_A, Role.MEMBER, now, now.plusSeconds(60));
        MemberCertificate b = ca.issue(PEER_A, Role.MEMBER, now, now.plusSeconds(60));
        assertThat(a.serial()).isNotEqualTo(b.serial());
    }

    @Test
    void bindsTheNodesOwnPublicKeyWhenGiven() throws Exception {
        CertificateAuthority ca = CertificateAuthority.create("Acme Hospital", Duration.ofDays(10));
        byte[] raw = new byte[32];
        Arrays.fill(raw, (byte) 7);
        Instant now = Instant.now();
        MemberCertificate m = ca.issue(PEER_A, raw, Role.MEMBER, now, now.plusSeconds(60));
        SubjectPublicKeyInfo spki =
                SubjectPublicKeyInfo.getInstance(m.certificate().getPublicKey().getEncoded());
        assertThat(spki.getAlgorithm().getAlgorithm()).isEqualTo(EdECObjectIdentifiers.id_Ed25519);
        assertThat(spki.getPublicKeyData().getOctets()).isEqualTo(raw);
        assertThatThrownBy(() -> ca.issue(PEER_A, new byte[31], Role.MEMBER, now, now.plusSeconds(60)))
                .isInstanceOf(MembershipException.class)
                .hasMessageContaining("32 bytes");
    }

    @Test
    void refusesWhatIsNotAPeerIdAndImpossibleValidities() {
        CertificateAuthority ca = CertificateAuthority.create("Acme Hospital", Duration.ofDays(10));
        Instant now = Instant.now();
        for (String bad : List.of("", "12D3KooW0OIl", "peer id", "x".repeat(129))) {
            assertThatThrownBy(() -> ca.issue(bad, Role.MEMBER, now, now.plusSeconds(60)))
                    .as(bad)
                    .isInstanceOf(MembershipException.class)
                    .hasMessageContaining("is not a libp2p peer ID");
        }
        assertThatThrownBy(() -> ca.issue(PEER_A, Role.MEMBER, now, now))
                .isInstanceOf(MembershipException.class)
                .hasMessageContaining("before it starts");
        assertThatThrownBy(() -> ca.issue(PEER_A, Role.MEMBER, now, now.plus(Duration.ofDays(11))))
                .isInstanceOf(MembershipException.class)
                .hasMessageContaining("outlive its CA");
    }

    @Test
    void rolesRoundTripThroughTheirIds() {
        for (Role r : Role.values()) {
            assertThat(Role.parse(r.id())).isEqualTo(r);
        }
        assertThat(Role.MEMBER.id()).isEqualTo("member");
        assertThat(Role.OBSERVER.id()).isEqualTo("observer");
        assertThatThrownBy(() -> Role.parse("admin"))
                .isInstanceOf(MembershipException.class)
                .hasMessage("unknown role 'admin': expected member or observer");
    }

    @Test
    void savesAndLoadsWithThePassphrase() throws Exception {
        CertificateAuthority ca = CertificateAuthority.create("Acme Hospital", Duration.ofDays(10));
        Path caDir = dir.resolve("acme-ca");
        ca.save(caDir, PASSPHRASE);
        assertThat(Files.getPosixFilePermissions(caDir.resolve("ca.key")))
                .isEqualTo(PosixFilePermissions.fromString("rw-------"));
        assertThat(Files.readString(caDir.resolve("ca.key"))).startsWith("-----BEGIN ENCRYPTED PRIVATE KEY-----");
        assertThat(Files.readString(caDir.resolve("ca.crt"))).startsWith("-----BEGIN CERTIFICATE-----");
        try (var s = Files.list(caDir)) {
            assertThat(s.map(p -> p.getFileName().toString())).containsExactlyInAnyOrder("ca.crt", "ca.key");
        }

        CertificateAuthority loaded = CertificateAuthority.load(caDir, PASSPHRASE.clone());
        assertThat(loaded.certificate()).isEqualTo(ca.certificate());
        assertThat(loaded.organisation()).isEqualTo("Acme Hospital");
        // the loaded key signs what the saved certificate verifies
        Instant now = Instant.now();
        loaded.issue(PEER_A, Role.MEMBER, now, now.plusSeconds(60))
                .certificate()
                .verify(ca.certificate().getPublicKey());

        assertThatThrownBy(() -> CertificateAuthority.load(caDir, "wrong".toCharArray()))
                .isInstanceOf(MembershipException.class)
                .hasMessage("wrong passphrase for " + caDir.resolve("ca.key"));
    }

    @Test
    void theKeyIsPbes2WithScryptAndAes256WithinOpenSslsMemoryLimit() throws Exception {
        Path caDir = dir.resolve("ca");
        CertificateAuthority.create("Acme Hospital", Duration.ofDays(10)).save(caDir, PASSPHRASE);
        byte[] der = Pem.blocks(caDir.resolve("ca.key"), Files.readAllBytes(caDir.resolve("ca.key")))
                .getFirst()
                .getContent();
        AlgorithmIdentifier alg = new PKCS8EncryptedPrivateKeyInfo(der).getEncryptionAlgorithm();
        assertThat(alg.getAlgorithm()).isEqualTo(PKCSObjectIdentifiers.id_PBES2);
        PBES2Parameters pbes2 = PBES2Parameters.getInstance(alg.getParameters());
        assertThat(pbes2.getEncryptionScheme().getAlgorithm()).isEqualTo(NISTObjectIdentifiers.id_aes256_CBC);
        assertThat(pbes2.getKeyDerivationFunc().getAlgorithm()).isEqualTo(MiscObjectIdentifiers.id_scrypt);
        ScryptParams scrypt =
                ScryptParams.getInstance(pbes2.getKeyDerivationFunc().getParameters());
        long n = scrypt.getCostParameter().longValueExact();
        long r = scrypt.getBlockSize().longValueExact();
        long p = scrypt.getParallelizationParameter().longValueExact();
        // OpenSSL reads PKCS#8 keys with a 32 MiB scrypt limit: about 128 * r * (N + 2) bytes plus 128 * r * p
        assertThat(128 * r * (n + 2) + 128 * r * p).isLessThanOrEqualTo(32L << 20);
        // and the work stays at OWASP's floor: N * r * p of at least 2^14 * 8 * 5
        assertThat(n * r * p).isGreaterThanOrEqualTo((1L << 14) * 8 * 5);
    }

    @Test
    void refusesToOverwriteACa() throws Exception {
        Path caDir = dir.resolve("ca");
        CertificateAuthority.create("Acme Hospital", Duration.ofDays(10)).save(caDir, PASSPHRASE);
        String before = Files.readString(caDir.resolve("ca.key"));
        CertificateAuthority other = CertificateAuthority.create("Acme Hospital", Duration.ofDays(10));
        assertThatThrownBy(() -> other.save(caDir, PASSPHRASE))
                .isInstanceOf(MembershipException.class)
                .hasMessageContaining("already exists");
        assertThat(Files.readString(caDir.resolve("ca.key"))).isEqualTo(before);

        Path keyOnly = Files.createDirectories(dir.resolve("key-only"));
        Files.writeString(keyOnly.resolve("ca.key"), "x");
        assertThatThrownBy(() -> other.save(keyOnly, PASSPHRASE))
                .isInstanceOf(MembershipException.class)
                .hasMessage(keyOnly.resolve("ca.key") + " already exists; refusing to overwrite a CA");
        assertThat(keyOnly.resolve("ca.crt")).doesNotExist();
    }

    @Test
    void refusesAKeyFileOthersCanRead() throws Exception {
        Path caDir = dir.resolve("ca");
        CertificateAuthority.create("Acme Hospital", Duration.ofDays(10)).save(caDir, PASSPHRASE);
        Path key = caDir.resolve("ca.key");
        Files.setPosixFilePermissions(key, PosixFilePermissions.fromString("rw-r--r--"));
        assertThatThrownBy(() -> CertificateAuthority.load(caDir, PASSPHRASE))
                .isInstanceOf(MembershipException.class)
                .hasMessageContaining(key + " has mode 0644")
                .hasMessageContaining("run chmod 600 " + key);
    }

    @Test
    void namesTheFileOfACorruptPem() throws Exception {
        Path caDir = dir.resolve("ca");
        CertificateAuthority.create("Acme Hospital", Duration.ofDays(10)).save(caDir, PASSPHRASE);
        Path crt = caDir.resolve("ca.crt");
        Files.writeString(crt, "-----BEGIN CERTIFICATE-----\nnot base64 at all!\n-----END CERTIFICATE-----\n");
        assertThatThrownBy(() -> CertificateAuthority.load(caDir, PASSPHRASE))
                .isInstanceOf(MembershipException.class)
                .hasMessageStartingWith(crt + ": ");

        Path caDir2 = dir.resolve("ca2");
        CertificateAuthority.create("Acme Hospital", Duration.ofDays(10)).save(caDir2, PASSPHRASE);
        Path key = caDir2.resolve("ca.key");
        String pem = Files.readString(key);
        Files.writeString(key, pem.replace("-----END ENCRYPTED PRIVATE KEY-----", "-----END CERTIFICATE-----"));
        assertThatThrownBy(() -> CertificateAuthority.load(caDir2, PASSPHRASE))
                .isInstanceOf(MembershipException.class)
                .hasMessageStartingWith(key + ": corrupt PEM");
    }

    @Test
    void refusesMissingFilesAndAKeyOfAnotherCa() throws Exception {
        Path missing = dir.resolve("nowhere");
        assertThatThrownBy(() -> CertificateAuthority.load(missing, PASSPHRASE))
                .isInstanceOf(MembershipException.class)
                .hasMessageContaining("no CA directory " + missing);

        Path a = dir.resolve("a");
        Path b = dir.resolve("b");
        CertificateAuthority.create("Acme Hospital", Duration.ofDays(10)).save(a, PASSPHRASE);
        CertificateAuthority.create("Acme Hospital", Duration.ofDays(10)).save(b, PASSPHRASE);
        Files.copy(b.resolve("ca.key"), a.resolve("ca.key"), StandardCopyOption.REPLACE_EXISTING);
        assertThatThrownBy(() -> CertificateAuthority.load(a, PASSPHRASE))
                .isInstanceOf(MembershipException.class)
                .hasMessage(a.resolve("ca.key") + " does not match " + a.resolve("ca.crt")
                        + ": the key did not sign this CA");

        Files.delete(a.resolve("ca.key"));
        assertThatThrownBy(() -> CertificateAuthority.load(a, PASSPHRASE))
                .isInstanceOf(MembershipException.class)
                .hasMessage("CA key file " + a.resolve("ca.key") + " does not exist");
    }

    @Test
    void refusesBadOrganisationNames() {
        for (String bad : List.of("", " Acme", "Acme\n", "x".repeat(65))) {
            assertThatThrownBy(() -> CertificateAuthority.create(bad, Duration.ofDays(1)))
                    .as(bad)
                    .isInstanceOf(MembershipException.class)
                    .hasMessageContaining("organisation name");
        }
        assertThatThrownBy(() -> CertificateAuthority.create("Acme", Duration.ZERO))
                .isInstanceOf(MembershipException.class);
        assertThatThrownBy(() -> CertificateAuthority.create("Acme", Duration.ofDays(36_501)))
                .isInstanceOf(MembershipException.class)
                .hasMessageContaining("at most 36500 days");
    }
}
