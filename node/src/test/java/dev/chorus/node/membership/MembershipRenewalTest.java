package dev.chorus.node.membership;

import static org.assertj.core.api.Assertions.assertThat;

import dev.chorus.gossip.host.Connection;
import dev.chorus.gossip.host.Host;
import dev.chorus.gossip.host.HostConfig;
import dev.chorus.gossip.identity.PrivateKey;
import dev.chorus.gossip.multiaddr.Multiaddr;
import dev.chorus.privacy.audit.EgressRecorder;
import dev.chorus.privacy.membership.MemberCertificate;
import dev.chorus.privacy.membership.Pem;
import dev.chorus.privacy.membership.Role;
import java.math.BigInteger;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Certificate renewal without downtime: a node loaded from files takes a replaced certificate file within a poll
 * and presents the new certificate on new connections, while connections admitted before keep going; a
 * replacement that does not verify for the node is ignored.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class MembershipRenewalTest {

    @TempDir
    Path dir;

    private final Consortium consortium = new Consortium();
    private final List<AutoCloseable> open = new ArrayList<>();

    @AfterEach
    void closeAll() throws Exception {
        for (int i = open.size() - 1; i >= 0; i--) {
            open.get(i).close();
        }
    }

    private Host host(PrivateKey key, Membership m) {
        Host h = Host.start(
                        HostConfig.defaults(key).withListenAddrs(List.of(Multiaddr.parse("/ip4/127.0.0.1/tcp/0"))),
                        m.gate())
                .join();
        open.add(h);
        return h;
    }

    private Membership peer(PrivateKey key) {
        Membership m = consortium.membership(key, Consortium.issue(consortium.hospitalB, key, Role.MEMBER), Set.of());
        open.add(m);
        return m;
    }

    /** The serial of the certificate {@code seen} admitted {@code node} with. */
    private static BigInteger presentedBy(Membership seen, PrivateKey node) {
        return seen.gate().certificateOf(node.peerId().toBase58()).orElseThrow().serial();
    }

    @Test
    void aReplacedCertificateFileIsPresentedOnNewConnections() throws Exception {
        Path rosterA = dir.resolve("a.crt");
        Path rosterB = dir.resolve("b.crt");
        Files.writeString(rosterA, Pem.certificate(consortium.hospitalA.certificate()));
        Files.writeString(rosterB, Pem.certificate(consortium.hospitalB.certificate()));
        PrivateKey key = PrivateKey.generate();
        MemberCertificate first = Consortium.issue(consortium.hospitalA, key, Role.MEMBER);
        Path certFile = dir.resolve("member.crt");
        Files.writeString(certFile, Pem.certificate(first.certificate()));
        Membership node = Membership.load(
                List.of(rosterA, rosterB),
                certFile,
                List.of(),
                key.peerId().toBase58(),
                Set.of(),
                InstantSource.system(),
                EgressRecorder.NONE);
        open.add(node);
        Host a = host(key, node);

        PrivateKey bKey = PrivateKey.generate();
        Membership b = peer(bKey);
        Connection before = host(bKey, b).connect(a.listenAddrs().get(0)).get(10, TimeUnit.SECONDS);
        assertThat(presentedBy(b, key)).isEqualTo(first.serial());

        // Another node's certificate in the file: not valid for this node, so it is not taken.
        Pem.writeAtomically(
                certFile,
                Pem.certificate(Consortium.issue(consortium.hospitalA, PrivateKey.generate(), Role.MEMBER)
                        .certificate()));
        Thread.sleep(2 * Membership.POLL.toMillis() + 500);
        assertThat(node.certificate().serial()).isEqualTo(first.serial());

        MemberCertificate renewed = Consortium.issue(consortium.hospitalA, key, Role.MEMBER);
        Pem.writeAtomically(certFile, Pem.certificate(renewed.certificate()));
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (!node.certificate().serial().equals(renewed.serial())) {
            assertThat(System.nanoTime()).as("the renewed certificate taken").isLessThan(deadline);
            Thread.sleep(50);
        }

        PrivateKey cKey = PrivateKey.generate();
        Membership c = peer(cKey);
        host(cKey, c).connect(a.listenAddrs().get(0)).get(10, TimeUnit.SECONDS);
        assertThat(presentedBy(c, key))
                .as("a new connection sees the renewed certificate")
                .isEqualTo(renewed.serial());
        assertThat(before.isOpen())
                .as("the connection admitted before keeps going")
                .isTrue();
        assertThat(presentedBy(b, key)).isEqualTo(first.serial());
    }
}
