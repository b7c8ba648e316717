package dev.chorus.node.membership;

import dev.chorus.gossip.identity.PrivateKey;
import dev.chorus.privacy.audit.EgressRecorder;
import dev.chorus.privacy.membership.CertificateAuthority;
import dev.chorus.privacy.membership.MemberCertificate;
import dev.chorus.privacy.membership.RevocationLists;
import dev.chorus.privacy.membership.Role;
import dev.chorus.privacy.membership.Roster;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.List;
import java.util.Set;

/** A test consortium: two institutions' CAs on the roster, and a third CA outside it. */
public final class Consortium {
    public final CertificateAuthority hospitalA = CertificateAuthority.create("Hospital A", Duration.ofDays(365));
    public final CertificateAuthority hospitalB = CertificateAuthority.create("Hospital B", Duration.ofDays(365));
    public final CertificateAuthority outsider = CertificateAuthority.create("Outside Lab", Duration.ofDays(365));
    public final Roster roster = Roster.of(List.of(hospitalA.certificate(), hospitalB.certificate()));

    public static MemberCertificate issue(CertificateAuthority ca, PrivateKey node, Role role) {
        Instant now = Instant.now();
        return ca.issue(
                node.peerId().toBase58(), role, now.minus(Duration.ofMinutes(1)), now.plus(Duration.ofDays(30)));
    }

    /** A node's membership with a fresh revocation list set. */
    public Membership membership(PrivateKey node, MemberCertificate own, Set<String> memberOnly) {
        return new Membership(
                roster,
                new RevocationLists(roster),
                List.of(),
                own,
                node.peerId().toBase58(),
                new Membership.Context(memberOnly, InstantSource.system(), EgressRecorder.NONE, Duration.ofSeconds(5)));
    }

    /** A gate that presents {@code chain} and checks nothing: what an attacker, or a diagnostic client, runs. */
    public static MembershipGate presentOnly(MemberCertificate presented) {
        return new MembershipGate(
                null,
                null,
                List.of(presented.encoded()),
                Set.of(),
                InstantSource.system(),
                EgressRecorder.NONE,
                Duration.ofSeconds(5));
    }
}
