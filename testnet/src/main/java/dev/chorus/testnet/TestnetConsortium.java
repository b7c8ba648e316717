package dev.chorus.testnet;

import dev.chorus.gossip.identity.PrivateKey;
import dev.chorus.node.membership.Membership;
import dev.chorus.node.protocol.ModelExchange;
import dev.chorus.node.secagg.SecureGroupService;
import dev.chorus.privacy.audit.EgressRecorder;
import dev.chorus.privacy.membership.CertificateAuthority;
import dev.chorus.privacy.membership.MemberCertificate;
import dev.chorus.privacy.membership.RevocationLists;
import dev.chorus.privacy.membership.Role;
import dev.chorus.privacy.membership.Roster;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * The membership of a testnet's nodes, as a consortium deploys it: each node is an institution of its own, with its
 * own CA ({@code Institution i}) on the roster every node trusts, and a member certificate from that CA for its peer
 * ID. Made once per testnet, as every run's node {@code i} has the same key; each run's node gets a fresh {@link
 * Membership} (its host's gate) from it.
 */
final class TestnetConsortium {

    /** The consortium's name: its announcement and membership topics are {@code chorus/testnet/...}. */
    static final String NAME = "testnet";

    /** How long a connection may take to show its certificate before the gate refuses it. */
    private static final Duration ADMISSION_TIMEOUT = Duration.ofSeconds(10);

    private static final Duration CA_VALIDITY = Duration.ofDays(365);
    private static final Duration CERTIFICATE_VALIDITY = Duration.ofDays(30);

    private final Roster roster;
    private final List<MemberCertificate> certificates;

    /** A CA for each of {@code keys}' nodes, and a member certificate for each. */
    TestnetConsortium(List<PrivateKey> keys) {
        Instant now = Instant.now();
        List<X509Certificate> authorities = new ArrayList<>();
        List<MemberCertificate> issued = new ArrayList<>();
        for (int i = 0; i < keys.size(); i++) {
            CertificateAuthority ca = CertificateAuthority.create("Institution " + i, CA_VALIDITY);
            authorities.add(ca.certificate());
            issued.add(ca.issue(
                    keys.get(i).peerId().toBase58(),
                    Role.MEMBER,
                    now.minus(Duration.ofMinutes(1)),
                    now.plus(CERTIFICATE_VALIDITY)));
        }
        this.roster = Roster.of(authorities);
        this.certificates = List.copyOf(issued);
    }

    /**
     * Node {@code node}'s membership: the roster, its certificate, no revocation list, and the model exchange kept
     * to members. Close it when the node's host closes.
     */
    Membership membership(int node, PrivateKey key) {
        return new Membership(
                roster,
                new RevocationLists(roster),
                List.of(),
                certificates.get(node),
                key.peerId().toBase58(),
                new Membership.Context(
                        Set.of(ModelExchange.PROTOCOL, SecureGroupService.PROTOCOL),
                        InstantSource.system(),
                        EgressRecorder.NONE,
                        ADMISSION_TIMEOUT));
    }
}
