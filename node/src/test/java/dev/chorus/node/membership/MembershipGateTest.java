package dev.chorus.node.membership;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.chorus.gossip.core.Stream;
import dev.chorus.gossip.host.Connection;
import dev.chorus.gossip.host.ConnectionGate;
import dev.chorus.gossip.host.Host;
import dev.chorus.gossip.host.HostConfig;
import dev.chorus.gossip.identity.PrivateKey;
import dev.chorus.gossip.multiaddr.Multiaddr;
import dev.chorus.gossip.protocol.Echo;
import dev.chorus.gossip.protocol.Sink;
import dev.chorus.privacy.membership.CertificateAuthority;
import dev.chorus.privacy.membership.MemberCertificate;
import dev.chorus.privacy.membership.Role;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Real hosts on loopback behind {@link MembershipGate}s. {@link Echo} stands in for the model exchange (a
 * member-only protocol) and {@link Sink} for gossipsub (open to observers too).
 */
@Timeout(value = 90, unit = TimeUnit.SECONDS)
class MembershipGateTest {

    private final Consortium consortium = new Consortium();
    private final List<AutoCloseable> open = new ArrayList<>();

    @AfterEach
    void closeAll() throws Exception {
        for (int i = open.size() - 1; i >= 0; i--) {
            open.get(i).close();
        }
    }

    private record Node(PrivateKey key, Host host, Membership membership) {}

    private Node member(CertificateAuthority ca, Role role) {
        PrivateKey key = PrivateKey.generate();
        Membership m = consortium.membership(key, Consortium.issue(ca, key, role), Set.of(Echo.ID));
        open.add(m);
        return new Node(key, host(key, m.gate()), m);
    }

    private Host host(PrivateKey key, ConnectionGate gate) {
        HostConfig cfg = HostConfig.defaults(key)
                .withListenAddrs(List.of(Multiaddr.parse("/ip4/127.0.0.1/tcp/0")))
                .withGracePeriod(Duration.ofMillis(200));
        Host h = Host.start(cfg, gate).join();
        h.setHandler(Echo.ID, Echo.handler());
        h.setHandler(Sink.ID, Sink.handler(r -> {}));
        open.add(h);
        return h;
    }

    private static String echo(Connection c) throws Exception {
        Stream s = c.newStream(Echo.ID).get(10, TimeUnit.SECONDS);
        // A stream proposed lazily may be refused after these writes: each waits, so a refusal fails as the read's.
        s.write("ping".getBytes(StandardCharsets.US_ASCII)).get(10, TimeUnit.SECONDS);
        s.closeWrite().get(10, TimeUnit.SECONDS);
        return new String(s.readToEnd(100).get(10, TimeUnit.SECONDS), StandardCharsets.US_ASCII);
    }

    @Test
    void membersOfTwoInstitutionsAdmitEachOtherAndExchange() throws Exception {
        Node a = member(consortium.hospitalA, Role.MEMBER);
        Node b = member(consortium.hospitalB, Role.MEMBER);
        Connection c = a.host().connect(b.host().listenAddrs().get(0)).get(10, TimeUnit.SECONDS);
        assertThat(echo(c)).isEqualTo("ping");
        waitFor(() -> b.host().connections().size() == 1);
        assertThat(echo(b.host().connections().get(0))).isEqualTo("ping");
        assertThat(a.membership().gate().certificateOf(b.key().peerId().toBase58()))
                .get()
                .satisfies(cert -> {
                    assertThat(cert.organisation()).isEqualTo("Hospital B");
                    assertThat(cert.role()).isEqualTo(Role.MEMBER);
                });
        assertThat(a.membership().gate().refusals().values()).allMatch(n -> n == 0);
        assertThat(a.membership().directory().publishRefusal(b.key().peerId().toBase58()))
                .isEmpty();
    }

    @Test
    void anOutsiderWithoutACertificateRunsNothingButIdentifyAndPing() throws Exception {
        Node a = member(consortium.hospitalA, Role.MEMBER);
        PrivateKey key = PrivateKey.generate();
        Host outsider = host(key, null); // a valid libp2p key, no gate, no certificate
        Connection c = outsider.connect(a.host().listenAddrs().get(0)).get(10, TimeUnit.SECONDS);
        assertThatThrownBy(() -> echo(c)).isInstanceOf(ExecutionException.class);
        c.closeFuture().get(10, TimeUnit.SECONDS);
        assertThat(a.host().connections()).isEmpty();
        assertThat(a.membership().gate().refusals()).containsEntry("no-certificate", 1L);
        assertThat(a.membership().gate().recentRefusals().get(0).peer())
                .isEqualTo(key.peerId().toBase58());
    }

    /** Presents a certificate that must be refused for {@code reason}; the attacker's own gate checks nothing. */
    private void refused(MemberCertificate presented, PrivateKey attackerKey, String reason) throws Exception {
        Node a = member(consortium.hospitalA, Role.MEMBER);
        Host attacker = host(attackerKey, Consortium.presentOnly(presented));
        assertThatThrownBy(() -> attacker.connect(a.host().listenAddrs().get(0)).get(10, TimeUnit.SECONDS))
                .as("the attacker's dial fails: the member refused its certificate")
                .hasMessageContaining(reason);
        waitFor(() -> a.membership().gate().refusals().getOrDefault(reason, 0L) == 1L);
        assertThat(a.host().connections()).isEmpty();
        // A dial from the member's side is refused the same way.
        assertThatThrownBy(() -> a.host().connect(attacker.listenAddrs().get(0)).get(10, TimeUnit.SECONDS))
                .isInstanceOf(ExecutionException.class);
        assertThat(a.host().connections()).isEmpty();
    }

    @Test
    void aCertificateFromACaOutsideTheRosterIsRefused() throws Exception {
        PrivateKey key = PrivateKey.generate();
        refused(Consortium.issue(consortium.outsider, key, Role.MEMBER), key, "unknown-ca");
    }

    @Test
    void anExpiredCertificateIsRefused() throws Exception {
        PrivateKey key = PrivateKey.generate();
        Instant now = Instant.now();
        MemberCertificate expired = consortium.hospitalB.issue(
                key.peerId().toBase58(), Role.MEMBER, now.minus(Duration.ofDays(10)), now.minus(Duration.ofDays(1)));
        refused(expired, key, "expired");
    }

    @Test
    void anotherNodesCertificateIsRefused() throws Exception {
        PrivateKey victim = PrivateKey.generate();
        MemberCertificate stolen = Consortium.issue(consortium.hospitalB, victim, Role.MEMBER);
        refused(stolen, PrivateKey.generate(), "peer-id-mismatch");
    }

    @Test
    void anObserverReadsButDoesNotRunMemberOnlyProtocols() throws Exception {
        Node a = member(consortium.hospitalA, Role.MEMBER);
        Node observer = member(consortium.hospitalB, Role.OBSERVER);
        Connection c = observer.host().connect(a.host().listenAddrs().get(0)).get(10, TimeUnit.SECONDS);
        assertThatThrownBy(() -> echo(c))
                .as("the member refuses the observer's stream")
                .isInstanceOf(ExecutionException.class);
        Connection atA = a.host().connection(observer.key().peerId());
        assertThat(atA).isNotNull();
        assertThat(atA.permits(Echo.ID)).isFalse();
        assertThat(atA.permits(Sink.ID)).isTrue();
        Stream sink = c.newStream(Sink.ID).get(10, TimeUnit.SECONDS);
        assertThat(Sink.send(sink, 1000, 1).get(10, TimeUnit.SECONDS).bytesAcknowledged())
                .isEqualTo(1000);
        assertThat(a.membership()
                        .directory()
                        .publishRefusal(observer.key().peerId().toBase58()))
                .get()
                .asString()
                .contains("observer");
    }

    @Test
    void aRevokedMembersConnectionsCloseAndItIsRefusedAfterwards() throws Exception {
        Node a = member(consortium.hospitalA, Role.MEMBER);
        PrivateKey key = PrivateKey.generate();
        MemberCertificate cert = Consortium.issue(consortium.hospitalB, key, Role.MEMBER);
        Membership revokedLater = consortium.membership(key, cert, Set.of(Echo.ID));
        open.add(revokedLater);
        Host m = host(key, revokedLater.gate());
        Connection c = m.connect(a.host().listenAddrs().get(0)).get(10, TimeUnit.SECONDS);
        assertThat(echo(c)).isEqualTo("ping");

        var crl = consortium.hospitalB.revoke(List.of(cert.serial()), null, Instant.now(), Duration.ofDays(7));
        assertThat(a.membership().revocations().offer(crl)).isTrue();
        assertThat(a.membership().gate().recheck()).isEqualTo(1);
        c.closeFuture().get(10, TimeUnit.SECONDS);
        assertThat(a.membership().gate().refusals()).containsEntry("revoked", 1L);
        assertThat(a.membership().directory().publishRefusal(key.peerId().toBase58()))
                .get()
                .asString()
                .contains("revoked");
        Thread.sleep(1100); // past the dial backoff's first second
        assertThatThrownBy(() -> m.connect(a.host().listenAddrs().get(0)).get(10, TimeUnit.SECONDS))
                .hasMessageContaining("revoked");
    }

    static void waitFor(BooleanSupplier condition) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("condition not met within 20 s");
            }
            Thread.sleep(20);
        }
    }
}
