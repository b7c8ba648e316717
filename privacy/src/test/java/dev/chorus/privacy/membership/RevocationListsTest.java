package dev.chorus.privacy.membership;

import static dev.chorus.privacy.membership.HandBuiltCertificates.PEER_A;
import static dev.chorus.privacy.membership.HandBuiltCertificates.PEER_B;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.math.BigInteger;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.cert.X509CRL;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@link RevocationLists} keeps the highest-numbered CRL of each roster CA and nothing else. */
class RevocationListsTest {

    private static final Duration DAY = Duration.ofDays(1);

    static CertificateAuthority acme;
    static CertificateAuthority globex;
    static Roster roster;

    @TempDir
    Path dir;

    @BeforeAll
    static void authorities() {
        acme = CertificateAuthority.create("Acme Hospital", Duration.ofDays(365));
        globex = CertificateAuthority.create("Globex Clinic", Duration.ofDays(365));
        roster = Roster.of(List.of(acme.certificate(), globex.certificate()));
    }

    private static MemberCertificate issue(CertificateAuthority ca, String peer) {
        return ca.issue(
                peer, Role.MEMBER, Instant.now().minusSeconds(60), Instant.now().plus(DAY));
    }

    @Test
    void eachCrlAddsToThePreviousAndCountsUp() {
        MemberCertificate a = issue(acme, PEER_A);
        MemberCertificate b = issue(acme, PEER_B);
        X509CRL first = acme.revoke(List.of(a.serial()), null, Instant.now(), DAY);
        X509CRL second = acme.revoke(List.of(b.serial(), a.serial()), first, Instant.now(), DAY);
        assertThat(RevocationLists.crlNumber(first)).isEqualTo(BigInteger.ONE);
        assertThat(RevocationLists.crlNumber(second)).isEqualTo(BigInteger.TWO);
        assertThat(second.getRevokedCertificates()).hasSize(2);
        assertThat(second.getRevokedCertificate(a.serial())).isNotNull();
        assertThat(second.getRevokedCertificate(b.serial())).isNotNull();
    }

    @Test
    void installsOnlyNewerCrlsAndCountsInstalls() {
        MemberCertificate a = issue(acme, PEER_A);
        MemberCertificate b = issue(acme, PEER_B);
        X509CRL first = acme.revoke(List.of(a.serial()), null, Instant.now(), DAY);
        X509CRL second = acme.revoke(List.of(b.serial()), first, Instant.now(), DAY);
        RevocationLists lists = RevocationLists.empty(roster);
        assertThat(lists.isRevoked(a.certificate())).isFalse();
        assertThat(lists.version()).isZero();

        assertThat(lists.offer(second)).isTrue();
        assertThat(lists.version()).isEqualTo(1);
        assertThat(lists.offer(first)).as("older CRL number").isFalse();
        assertThat(lists.offer(second)).as("same CRL number").isFalse();
        assertThat(lists.version()).isEqualTo(1);
        assertThat(lists.lists()).containsExactly(second);
        assertThat(lists.isRevoked(a.certificate())).isTrue();
        assertThat(lists.isRevoked(b.certificate())).isTrue();
    }

    @Test
    void keepsOneCrlPerCaAndLooksUpByIssuer() {
        MemberCertificate a = issue(acme, PEER_A);
        MemberCertificate g = issue(globex, PEER_B);
        RevocationLists lists = new RevocationLists(roster);
        X509CRL globexCrl = globex.revoke(List.of(g.serial()), null, Instant.now(), DAY);
        X509CRL acmeCrl = acme.revoke(List.of(), null, Instant.now(), DAY);
        assertThat(lists.offer(globexCrl)).isTrue();
        assertThat(lists.offer(acmeCrl)).isTrue();
        assertThat(lists.lists()).containsExactly(acmeCrl, globexCrl);
        assertThat(lists.isRevoked(g.certificate())).isTrue();
        assertThat(lists.isRevoked(a.certificate())).isFalse();
    }

    @Test
    void refusesACrlFromOutsideTheRoster() {
        CertificateAuthority stranger = CertificateAuthority.create("Initech", Duration.ofDays(30));
        RevocationLists lists = RevocationLists.empty(roster);
        assertThatThrownBy(() -> lists.offer(stranger.revoke(List.of(BigInteger.TEN), null, Instant.now(), DAY)))
                .isInstanceOf(MembershipException.class)
                .hasMessageContaining("not a roster CA")
                .hasMessageContaining("Initech");
        assertThat(lists.version()).isZero();
    }

    @Test
    void refusesACrlWithABadSignature() throws Exception {
        CertificateAuthority impostor = CertificateAuthority.create("Acme Hospital", Duration.ofDays(30));
        RevocationLists lists = RevocationLists.empty(roster);
        X509CRL forged = impostor.revoke(List.of(BigInteger.TEN), null, Instant.now(), DAY);
        assertThatThrownBy(() -> lists.offer(forged))
                .isInstanceOf(MembershipException.class)
                .hasMessageContaining("bad signature");
        byte[] der =
                acme.revoke(List.of(BigInteger.TEN), null, Instant.now(), DAY).getEncoded();
        der[der.length - 3] ^= 0x40;
        assertThatThrownBy(() -> lists.offer(der))
                .isInstanceOf(MembershipException.class)
                .hasMessageContaining("bad signature");
        assertThat(lists.version()).isZero();
    }

    @Test
    void refusesGarbageBytes() {
        RevocationLists lists = RevocationLists.empty(roster);
        assertThatThrownBy(() -> lists.offer(new byte[] {1, 2, 3}))
                .isInstanceOf(MembershipException.class)
                .hasMessageContaining("not a DER X.509 CRL");
        assertThatThrownBy(() -> lists.offer(new byte[0])).isInstanceOf(MembershipException.class);
    }

    @Test
    void aCaRefusesToExtendAnotherCasCrl() {
        X509CRL globexCrl = globex.revoke(List.of(BigInteger.TEN), null, Instant.now(), DAY);
        assertThatThrownBy(() -> acme.revoke(List.of(BigInteger.ONE), globexCrl, Instant.now(), DAY))
                .isInstanceOf(MembershipException.class)
                .hasMessageContaining("not by this CA");
    }

    @Test
    void loadsCrlFilesAndDirectories() throws Exception {
        MemberCertificate a = issue(acme, PEER_A);
        MemberCertificate g = issue(globex, PEER_B);
        Path crls = Files.createDirectories(dir.resolve("crls"));
        Pem.writeAtomically(
                crls.resolve("acme.crl"), Pem.crl(acme.revoke(List.of(a.serial()), null, Instant.now(), DAY)));
        Files.writeString(crls.resolve("notes.txt"), "not a CRL, and not read");
        Path single = dir.resolve("globex.pem");
        Files.write(
                single,
                globex.revoke(List.of(g.serial()), null, Instant.now(), DAY).getEncoded());
        RevocationLists lists = RevocationLists.empty(roster);
        lists.loadFiles(List.of(crls, single));
        assertThat(lists.isRevoked(a.certificate())).isTrue();
        assertThat(lists.isRevoked(g.certificate())).isTrue();
        assertThat(lists.version()).isEqualTo(2);
    }

    @Test
    void aFileFromOutsideTheRosterIsNamedInTheError() throws Exception {
        CertificateAuthority stranger = CertificateAuthority.create("Initech", Duration.ofDays(30));
        Path f = dir.resolve("initech.crl");
        Pem.writeAtomically(f, Pem.crl(stranger.revoke(List.of(), null, Instant.now(), DAY)));
        assertThatThrownBy(() -> RevocationLists.empty(roster).loadFiles(List.of(f)))
                .isInstanceOf(MembershipException.class)
                .hasMessageStartingWith(f + ": ")
                .hasMessageContaining("not a roster CA");
    }
}
