package dev.chorus.privacy.membership;

import static dev.chorus.privacy.membership.HandBuiltCertificates.PEER_A;
import static dev.chorus.privacy.membership.HandBuiltCertificates.PEER_B;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.security.cert.X509Certificate;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** {@link Roster#verify}: one test per refusal reason, each with a chain that only that check rejects. */
class RosterTest {

    private static final Duration DAY = Duration.ofDays(1);

    static CertificateAuthority acme;
    static CertificateAuthority globex;
    static Roster roster;

    @BeforeAll
    static void authorities() {
        acme = CertificateAuthority.create("Acme Hospital", Duration.ofDays(365));
        globex = CertificateAuthority.create("Globex Clinic", Duration.ofDays(365));
        roster = Roster.of(List.of(acme.certificate(), globex.certificate()));
    }

    private static MemberCertificate issueNow(CertificateAuthority ca, String peer, Role role) {
        Instant now = Instant.now();
        return ca.issue(peer, role, now.minus(Duration.ofMinutes(1)), now.plus(DAY));
    }

    private static Verdict verify(MemberCertificate m, String peer) {
        return roster.verify(List.of(m.encoded()), peer, Instant.now(), RevocationLists.empty(roster));
    }

    @Test
    void admitsACertificateOfARosterCaForItsPeer() {
        MemberCertificate m = issueNow(acme, PEER_A, Role.MEMBER);
        Verdict v = verify(m, PEER_A);
        assertThat(v.admitted()).as(v.detail()).isTrue();
        assertThat(v.reason()).isNull();
        assertThat(v.member().peerId()).isEqualTo(PEER_A);
        assertThat(v.member().organisation()).isEqualTo("Acme Hospital");
        assertThat(v.member().role()).isEqualTo(Role.MEMBER);
        assertThat(v.member().serial()).isEqualTo(m.serial());
    }

    @Test
    void theChainMayCarryTheCaCertificateAfterTheMemberCertificate() throws Exception {
        MemberCertificate m = issueNow(globex, PEER_B, Role.OBSERVER);
        Verdict v = roster.verify(List.of(m.encoded(), globex.certificate().getEncoded()), PEER_B, Instant.now(), null);
        assertThat(v.admitted()).as(v.detail()).isTrue();
        assertThat(v.member().role()).isEqualTo(Role.OBSERVER);
    }

    @Test
    void refusesACertificateForAnotherPeer() {
        MemberCertificate m = issueNow(acme, PEER_A, Role.MEMBER);
        Verdict v = verify(m, PEER_B);
        assertThat(v.reason()).isEqualTo(RefusalReason.PEER_ID_MISMATCH);
        assertThat(v.detail()).contains(PEER_A).contains(PEER_B);
        assertThat(v.member().peerId()).isEqualTo(PEER_A);
    }

    @Test
    void refusesAnExpiredCertificate() {
        Instant now = Instant.now();
        MemberCertificate m = acme.issue(PEER_A, Role.MEMBER, now.minus(Duration.ofDays(2)), now.minus(DAY));
        assertThat(verify(m, PEER_A).reason()).isEqualTo(RefusalReason.EXPIRED);
    }

    @Test
    void refusesACertificateNotValidYet() {
        Instant now = Instant.now();
        MemberCertificate m = acme.issue(PEER_A, Role.MEMBER, now.plus(DAY), now.plus(Duration.ofDays(2)));
        assertThat(verify(m, PEER_A).reason()).isEqualTo(RefusalReason.NOT_YET_VALID);
    }

    @Test
    void checksTheValidityOfTheIssuingCaToo() {
        // the member certificate starts an hour back, its CA five minutes back: ten minutes back only the CA fails
        Instant now = Instant.now();
        MemberCertificate m = acme.issue(PEER_A, Role.MEMBER, now.minus(Duration.ofHours(1)), now.plus(DAY));
        Instant tenMinutesAgo = now.minus(Duration.ofMinutes(10));
        Verdict v = roster.verify(List.of(m.encoded()), PEER_A, tenMinutesAgo, null);
        assertThat(v.reason()).isEqualTo(RefusalReason.NOT_YET_VALID);
        assertThat(v.detail()).contains("the CA certificate of 'Acme Hospital'");
        assertThat(roster.verify(List.of(m.encoded()), PEER_A, now, null).admitted())
                .isTrue();
    }

    @Test
    void refusesACaOutsideTheRoster() {
        CertificateAuthority stranger = CertificateAuthority.create("Initech", Duration.ofDays(30));
        Verdict v = verify(issueNow(stranger, PEER_A, Role.MEMBER), PEER_A);
        assertThat(v.reason()).isEqualTo(RefusalReason.UNKNOWN_CA);
        assertThat(v.member()).isNotNull();
    }

    @Test
    void refusesACaOfTheSameNameWithAnotherKey() {
        // same subject as a roster CA, so it is looked up; only the signature tells them apart
        CertificateAuthority impostor = CertificateAuthority.create("Acme Hospital", Duration.ofDays(30));
        Verdict v = verify(issueNow(impostor, PEER_A, Role.MEMBER), PEER_A);
        assertThat(v.reason()).isEqualTo(RefusalReason.BAD_SIGNATURE);
    }

    @Test
    void refusesACertificateWithAFlippedSignatureByte() {
        byte[] der = issueNow(acme, PEER_A, Role.MEMBER).encoded();
        der[der.length - 5] ^= 0x01; // the signature BIT STRING closes the encoding
        Verdict v = roster.verify(List.of(der), PEER_A, Instant.now(), null);
        assertThat(v.reason()).isEqualTo(RefusalReason.BAD_SIGNATURE);
    }

    @Test
    void refusesARosterCaThatAdmitsNodesForAnotherOrganisation() throws Exception {
        HandBuiltCertificates.Authority rogue = HandBuiltCertificates.authority("Umbrella Labs");
        Roster withRogue = Roster.of(List.of(acme.certificate(), rogue.certificate()));
        X509Certificate claimsAcme = HandBuiltCertificates.member(rogue, "Acme Hospital", Role.MEMBER, PEER_A);
        Verdict v = withRogue.verify(List.of(claimsAcme.getEncoded()), PEER_A, Instant.now(), null);
        assertThat(v.reason()).isEqualTo(RefusalReason.ORGANISATION_MISMATCH);
        assertThat(v.detail()).contains("Acme Hospital").contains("Umbrella Labs");
        // the same CA admitting its own organisation passes, so the refusal above is the organisation check's
        X509Certificate own = HandBuiltCertificates.member(rogue, "Umbrella Labs", Role.MEMBER, PEER_A);
        assertThat(withRogue
                        .verify(List.of(own.getEncoded()), PEER_A, Instant.now(), null)
                        .admitted())
                .isTrue();
    }

    @Test
    void refusesARevokedCertificate() {
        MemberCertificate m = issueNow(acme, PEER_A, Role.MEMBER);
        MemberCertificate other = issueNow(acme, PEER_B, Role.MEMBER);
        RevocationLists lists = RevocationLists.empty(roster);
        assertThat(lists.offer(acme.revoke(List.of(m.serial()), null, Instant.now(), DAY)))
                .isTrue();
        Verdict v = roster.verify(List.of(m.encoded()), PEER_A, Instant.now(), lists);
        assertThat(v.reason()).isEqualTo(RefusalReason.REVOKED);
        assertThat(roster.verify(List.of(other.encoded()), PEER_B, Instant.now(), lists)
                        .admitted())
                .isTrue();
    }

    @Test
    void refusesAnEmptyChain() {
        assertThat(roster.verify(List.of(), PEER_A, Instant.now(), null).reason())
                .isEqualTo(RefusalReason.NO_CERTIFICATE);
        assertThat(roster.verify(null, PEER_A, Instant.now(), null).reason()).isEqualTo(RefusalReason.NO_CERTIFICATE);
    }

    @Test
    void refusesBytesThatAreNotACertificate() {
        Verdict v = roster.verify(List.of(new byte[] {0x30, 0x03, 1, 2, 3}), PEER_A, Instant.now(), null);
        assertThat(v.reason()).isEqualTo(RefusalReason.MALFORMED);
        assertThat(v.member()).isNull();
    }

    @Test
    void refusesACaCertificatePresentedAsAMember() throws Exception {
        Verdict v = roster.verify(List.of(acme.certificate().getEncoded()), PEER_A, Instant.now(), null);
        assertThat(v.reason()).isEqualTo(RefusalReason.MALFORMED);
    }

    @Test
    void refusesTooManyOrTooLargeCertificates() {
        byte[] good = issueNow(acme, PEER_A, Role.MEMBER).encoded();
        assertThat(roster.verify(Collections.nCopies(4, good), PEER_A, Instant.now(), null)
                        .admitted())
                .isTrue();
        Verdict tooMany = roster.verify(Collections.nCopies(5, good), PEER_A, Instant.now(), null);
        assertThat(tooMany.reason()).isEqualTo(RefusalReason.MALFORMED);
        assertThat(tooMany.detail()).contains("at most 4");

        byte[] large = Arrays.copyOf(good, Roster.MAX_CERTIFICATE_BYTES + 1);
        List<byte[]> chain = new ArrayList<>(List.of(good, large));
        Verdict tooLarge = roster.verify(chain, PEER_A, Instant.now(), null);
        assertThat(tooLarge.reason()).isEqualTo(RefusalReason.MALFORMED);
        assertThat(tooLarge.detail()).contains("16384");
    }

    @Test
    void refusesTwoCasOfOneOrganisation() {
        CertificateAuthority second = CertificateAuthority.create("Acme Hospital", Duration.ofDays(30));
        assertThatThrownBy(() -> Roster.of(List.of(acme.certificate(), second.certificate())))
                .isInstanceOf(MembershipException.class)
                .hasMessageContaining("two CA certificates for organisation 'Acme Hospital'");
    }

    @Test
    void refusesAMemberCertificateAsARosterCa() {
        MemberCertificate m = issueNow(acme, PEER_A, Role.MEMBER);
        assertThatThrownBy(() -> Roster.of(List.of(m.certificate())))
                .isInstanceOf(MembershipException.class)
                .hasMessageContaining("is not a CA certificate");
        assertThatThrownBy(() -> Roster.of(List.of()))
                .isInstanceOf(MembershipException.class)
                .hasMessageContaining("empty");
    }

    @Test
    void knowsItsOrganisationsAndFindsACaByIssuer() {
        assertThat(roster.organisations()).containsExactly("Acme Hospital", "Globex Clinic");
        MemberCertificate m = issueNow(globex, PEER_B, Role.MEMBER);
        assertThat(roster.authorityFor(m.certificate().getIssuerX500Principal()))
                .contains(globex.certificate());
        assertThat(roster.authorities()).containsExactly(acme.certificate(), globex.certificate());
    }
}
