package dev.chorus.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.chorus.gossip.identity.KeyFile;
import dev.chorus.gossip.identity.PrivateKey;
import dev.chorus.learning.json.JsonReader;
import dev.chorus.node.NodeTestDirs;
import dev.chorus.node.config.ConfigLoader;
import dev.chorus.node.daemon.NodeDaemon;
import dev.chorus.node.membership.Consortium;
import dev.chorus.privacy.membership.CertificateAuthority;
import dev.chorus.privacy.membership.Pem;
import dev.chorus.privacy.membership.RefusalReason;
import dev.chorus.privacy.membership.Role;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code chorus model pull} against a member node started in-process, with a roster of two institutions: a client
 * without a certificate, with one from a CA outside the roster, or with another node's is refused with the node's
 * reason ({@link RefusalReason#id()}) and exit 1; a member of the other institution pulls the model (its parameter
 * count) and exits 0; a multiaddr without {@code /p2p/} is a usage error in one line.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class ModelPullCommandTest {

    @TempDir
    Path dir;

    private final Consortium consortium = new Consortium();
    private NodeDaemon node;
    private String target;
    private List<Path> roster;

    /** Starts a member of Hospital A with the roster of Hospital A and Hospital B. */
    private void startMember() throws Exception {
        Path a = Files.createDirectories(dir.resolve("roster")).resolve("hospital-a.crt");
        Files.writeString(a, Pem.certificate(consortium.hospitalA.certificate()));
        Path b = dir.resolve("roster").resolve("hospital-b.crt");
        Files.writeString(b, Pem.certificate(consortium.hospitalB.certificate()));
        roster = List.of(a, b);
        Path home = dir.resolve("member");
        Path yaml = NodeTestDirs.create(
                home, "membership:\n  roster: [" + a + ", " + b + "]\n  certificate: member.crt\n  crl: [crl]\n");
        Files.createDirectories(home.resolve("crl"));
        Files.writeString(
                home.resolve("member.crt"),
                Pem.certificate(
                        Consortium.issue(consortium.hospitalA, KeyFile.load(home.resolve("identity.key")), Role.MEMBER)
                                .certificate()));
        node = NodeDaemon.start(ConfigLoader.load(yaml, List.of("training.pause_ms=5")));
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (!node.ready() && System.nanoTime() < deadline) {
            Thread.sleep(20);
        }
        assertThat(node.ready()).as("the member node is ready").isTrue();
        target = node.listenAddrs().getFirst();
    }

    @AfterEach
    void stop() {
        if (node != null) {
            node.close();
        }
    }

    /** A client's key file, and a certificate file for {@code certifiedKey} from {@code ca}. */
    private List<String> client(String name, CertificateAuthority ca, PrivateKey certifiedKey, PrivateKey key)
            throws Exception {
        return client(name, ca, certifiedKey, key, Role.MEMBER);
    }

    private List<String> client(
            String name, CertificateAuthority ca, PrivateKey certifiedKey, PrivateKey key, Role role) throws Exception {
        Path keyFile = dir.resolve(name + ".key");
        KeyFile.create(keyFile, key);
        Path cert = dir.resolve(name + ".crt");
        Files.writeString(
                cert, Pem.certificate(Consortium.issue(ca, certifiedKey, role).certificate()));
        return List.of("--key", keyFile.toString(), "--certificate", cert.toString());
    }

    private static CliRun pull(String target, List<String> options) {
        List<String> args = new ArrayList<>(List.of("model", "pull", target));
        args.addAll(options);
        args.add("--json");
        return CliRun.of(args.toArray(String[]::new));
    }

    private static void assertRefused(CliRun r, RefusalReason reason) {
        assertThat(r.exitCode()).as("%s%s", r.out(), r.err()).isEqualTo(1);
        Map<String, Object> event = JsonReader.parseObject(r.out().strip());
        assertThat(event).containsEntry("event", "refused").containsEntry("reason", reason.id());
    }

    @Test
    void onlyAMemberPullsTheModel() throws Exception {
        startMember();
        assertRefused(pull(target, List.of()), RefusalReason.NO_CERTIFICATE);

        PrivateKey outsider = PrivateKey.generate();
        assertRefused(
                pull(target, client("outsider", consortium.outsider, outsider, outsider)), RefusalReason.UNKNOWN_CA);

        PrivateKey thief = PrivateKey.generate();
        assertRefused(
                pull(target, client("thief", consortium.hospitalB, PrivateKey.generate(), thief)),
                RefusalReason.PEER_ID_MISMATCH);

        PrivateKey observer = PrivateKey.generate();
        CliRun o = pull(target, client("observer", consortium.hospitalB, observer, observer, Role.OBSERVER));
        assertThat(o.exitCode()).as("%s%s", o.out(), o.err()).isEqualTo(1);
        assertThat(JsonReader.parseObject(o.out().strip()))
                .as("an observer is admitted, but not to the model exchange")
                .containsEntry("event", "refused")
                .containsEntry("reason", "not-permitted");

        PrivateKey member = PrivateKey.generate();
        List<String> options = new ArrayList<>(client("member", consortium.hospitalB, member, member));
        options.add("--roster");
        roster.forEach(p -> options.add(p.toString()));
        CliRun r = pull(target, options);
        assertThat(r.exitCode()).as("%s%s", r.out(), r.err()).isZero();
        Map<String, Object> pulled = JsonReader.parseObject(r.out().strip());
        assertThat(pulled).containsEntry("event", "pulled").containsEntry("peer", node.peerId());
        assertThat(pulled.get("parameters"))
                .isEqualTo((long) node.averagingEngine().localModel().dimension());
        assertThat((Long) pulled.get("bytes")).isPositive();

        assertThat(node.membership().gate().refusals())
                .containsKeys(
                        RefusalReason.NO_CERTIFICATE.id(),
                        RefusalReason.UNKNOWN_CA.id(),
                        RefusalReason.PEER_ID_MISMATCH.id());
    }

    @Test
    void aMultiaddrWithoutAPeerIdIsAUsageError() {
        String bare = "/ip4/127.0.0.1/tcp/4001";
        CliRun r = CliRun.of("model", "pull", bare, "--json");
        assertThat(r.exitCode()).isEqualTo(Main.EXIT_USAGE);
        assertThat(r.out()).isEmpty();
        assertThat(r.err().strip()).isEqualTo("chorus: MULTIADDR: " + bare + " must end in /p2p/<peer id>");
    }
}
