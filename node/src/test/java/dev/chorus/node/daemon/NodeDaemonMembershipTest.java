package dev.chorus.node.daemon;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.chorus.aggregation.ModelUpdate;
import dev.chorus.gossip.host.ConnectionGate;
import dev.chorus.gossip.host.Host;
import dev.chorus.gossip.host.HostConfig;
import dev.chorus.gossip.identity.KeyFile;
import dev.chorus.gossip.identity.PrivateKey;
import dev.chorus.gossip.multiaddr.Multiaddr;
import dev.chorus.gossip.pubsub.Pubsub;
import dev.chorus.gossip.pubsub.PubsubConfig;
import dev.chorus.node.NodeTestDirs;
import dev.chorus.node.announce.GossipsubAnnouncements;
import dev.chorus.node.announce.ModelAnnouncement;
import dev.chorus.node.averaging.SnapshotBuffer;
import dev.chorus.node.checkpoint.CheckpointStore;
import dev.chorus.node.config.ConfigException;
import dev.chorus.node.config.ConfigLoader;
import dev.chorus.node.membership.Consortium;
import dev.chorus.node.protocol.FragmentCatalog;
import dev.chorus.node.protocol.ModelExchange;
import dev.chorus.privacy.audit.EgressAuditLog;
import dev.chorus.privacy.audit.EgressRecord;
import dev.chorus.privacy.membership.CertificateAuthority;
import dev.chorus.privacy.membership.MemberCertificate;
import dev.chorus.privacy.membership.Pem;
import dev.chorus.privacy.membership.Role;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Two member daemons of two institutions train and exchange on loopback while five attackers with valid libp2p keys
 * try, throughout, to pull their models, push models into their averages and publish announcements: one without a
 * certificate, one with a certificate from a CA outside the roster, one with an expired certificate, one presenting
 * another node's certificate, and a member whose certificate is revoked mid-run. None of the first four gets a
 * model byte, has a push merged or a message delivered; the revoked one is cut off within seconds of its CRL
 * reaching the node that holds the CRL directory, and of the CRL reaching the other node by gossip; and the egress
 * audit log of each member shows no model body or fragment sent to any of them (to the revoked one, none after
 * its revocation reached the member).
 */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class NodeDaemonMembershipTest {

    @TempDir
    Path dir;

    private final Consortium consortium = new Consortium();
    private final List<AutoCloseable> open = new ArrayList<>();
    private final HttpClient http = HttpClient.newHttpClient();

    @AfterEach
    void closeAll() throws Exception {
        for (int i = open.size() - 1; i >= 0; i--) {
            open.get(i).close();
        }
        http.close();
    }

    private Path roster() throws Exception {
        Path a = dir.resolve("roster/hospital-a.crt");
        Files.createDirectories(a.getParent());
        Files.writeString(a, Pem.certificate(consortium.hospitalA.certificate()));
        Path b = dir.resolve("roster/hospital-b.crt");
        Files.writeString(b, Pem.certificate(consortium.hospitalB.certificate()));
        return a.getParent();
    }

    /** A member daemon's directory: key, certificate, an empty CRL directory and node.yaml. */
    private Path memberHome(String name, CertificateAuthority ca, List<String> bootstrap) throws Exception {
        Path home = dir.resolve(name);
        Files.createDirectories(home.resolve("crl"));
        PrivateKey key = PrivateKey.generate();
        KeyFile.create(home.resolve("identity.key"), key);
        Files.writeString(
                home.resolve("member.crt"),
                Pem.certificate(Consortium.issue(ca, key, Role.MEMBER).certificate()));
        Path rosterDir = dir.resolve("roster");
        String yaml = NodeTestDirs.baseYaml()
                + "membership:\n"
                + "  roster: [" + rosterDir.resolve("hospital-a.crt") + ", " + rosterDir.resolve("hospital-b.crt")
                + "]\n"
                + "  certificate: member.crt\n"
                + "  crl: [crl]\n";
        NodeTestDirs.wdbc(home);
        Files.writeString(home.resolve("node.yaml"), yaml);
        return home;
    }

    private NodeDaemon start(Path home, List<String> bootstrap) {
        List<String> overrides = new ArrayList<>(List.of(
                "training.pause_ms=10",
                "averaging.strategy=async",
                "averaging.every_steps=2",
                "averaging.announce_every_seconds=0.3",
                "checkpoint.every_steps=50"));
        if (!bootstrap.isEmpty()) {
            overrides.add("network.bootstrap=[" + String.join(", ", bootstrap) + "]");
        }
        NodeDaemon d = NodeDaemon.start(ConfigLoader.load(home.resolve("node.yaml"), overrides));
        open.add(d);
        return d;
    }

    /** One attacker: a host with a valid key, and what it got from the members. */
    private final class Attacker {
        final String name;
        final PrivateKey key = PrivateKey.generate();
        final Host host;
        final GossipsubAnnouncements announcements;
        ModelExchange exchange;
        final AtomicLong pulledBytes = new AtomicLong();
        final AtomicLong pushesAccepted = new AtomicLong();
        final AtomicLong delivered = new AtomicLong();
        /** Members whose verdict admitted this attacker (only an attacker that presents a certificate hears one). */
        final Map<String, Boolean> admittedBy = new ConcurrentHashMap<>();

        final boolean presents;

        Attacker(String name, java.util.function.Function<PrivateKey, ConnectionGate> gate) {
            this.name = name;
            this.presents = gate != null;
            host = Host.start(
                            HostConfig.defaults(key)
                                    .withListenAddrs(List.of(Multiaddr.parse("/ip4/127.0.0.1/tcp/0")))
                                    .withDialBackoff(Duration.ofMillis(50), Duration.ofMillis(200)),
                            gate == null ? null : gate.apply(key))
                    .join();
            open.add(host);
            Pubsub pubsub = Pubsub.start(host, PubsubConfig.defaults());
            open.add(pubsub);
            announcements = new GossipsubAnnouncements(pubsub, "test-consortium", key);
            open.add(announcements);
        }

        String peer() {
            return key.peerId().toBase58();
        }

        /** One round of attempts on every member: connect, pull, push, publish. */
        void attack(List<NodeDaemon> members, byte[] architecture, int dimension, long round) {
            if (exchange == null) {
                exchange = new ModelExchange(
                        host,
                        architecture,
                        dimension,
                        ModelExchange.Config.defaults(),
                        new SnapshotBuffer(),
                        new FragmentCatalog(),
                        dev.chorus.privacy.audit.EgressRecorder.NONE);
                exchange.start(u -> true);
            }
            float[] poison = new float[dimension];
            java.util.Arrays.fill(poison, 1e6f);
            for (NodeDaemon d : members) {
                String target = Multiaddr.parse(d.listenAddrs().getFirst())
                        .peerId()
                        .orElseThrow()
                        .toBase58();
                try {
                    host.connect(Multiaddr.parse(d.listenAddrs().getFirst())).get(5, TimeUnit.SECONDS);
                    if (presents) {
                        admittedBy.put(target, true);
                    }
                } catch (Exception e) {
                    continue;
                }
                try {
                    ModelUpdate u = exchange.pull(target, null).get(5, TimeUnit.SECONDS);
                    pulledBytes.addAndGet(4L * u.values().length);
                } catch (Exception e) {
                    // refused: what membership must do
                }
                try {
                    exchange.push(target, ModelUpdate.full(peer(), 1_000_000 + round, 1_000_000, poison))
                            .get(5, TimeUnit.SECONDS);
                    pushesAccepted.incrementAndGet();
                } catch (Exception e) {
                    // refused
                }
            }
            try {
                int recipients = announcements
                        .publishAsync(new ModelAnnouncement(
                                peer(),
                                architecture,
                                1_000_000 + round,
                                1_000_000,
                                new byte[32],
                                System.currentTimeMillis(),
                                Map.of("accuracy", 1.0)))
                        .get(5, TimeUnit.SECONDS);
                delivered.addAndGet(recipients);
            } catch (Exception e) {
                // no mesh peers
            }
        }
    }

    @Test
    void outsidersGetNothingAndARevokedMemberIsCutOff() throws Exception {
        roster();
        Path homeA = memberHome("member-a", consortium.hospitalA, List.of());
        NodeDaemon a = start(homeA, List.of());
        Path homeB = memberHome("member-b", consortium.hospitalB, List.of());
        NodeDaemon b = start(homeB, List.of(a.listenAddrs().getFirst()));
        List<NodeDaemon> members = List.of(a, b);
        waitFor(() -> a.peers().size() == 1 && b.peers().size() == 1, "the members to admit each other");
        waitFor(() -> !a.members().isEmpty(), "an announcement of b at a");
        byte[] architecture = a.members().getFirst().announcement().architecture();
        CheckpointStore checkpoints = new CheckpointStore(a.config().checkpointDir(), 3);
        waitFor(() -> checkpoints.loadLatest().isPresent(), "a's first checkpoint");
        int dimension = checkpoints.loadLatest().orElseThrow().parameters().length;

        Instant now = Instant.now();
        PrivateKey victim = PrivateKey.generate();
        List<Attacker> outsiders = List.of(
                new Attacker("no certificate", null),
                new Attacker(
                        "CA outside the roster",
                        k -> Consortium.presentOnly(Consortium.issue(consortium.outsider, k, Role.MEMBER))),
                new Attacker(
                        "expired",
                        k -> Consortium.presentOnly(consortium.hospitalA.issue(
                                k.peerId().toBase58(),
                                Role.MEMBER,
                                now.minus(Duration.ofDays(9)),
                                now.minusSeconds(60)))),
                new Attacker(
                        "another node's certificate",
                        k -> Consortium.presentOnly(Consortium.issue(consortium.hospitalB, victim, Role.MEMBER))));
        MemberCertificate[] revokedCert = new MemberCertificate[1];
        Attacker revoked = new Attacker("revoked mid-run", k -> {
            revokedCert[0] = Consortium.issue(consortium.hospitalB, k, Role.MEMBER);
            return Consortium.presentOnly(revokedCert[0]);
        });

        long stepsBefore = a.metrics().steps() + b.metrics().steps();
        for (int round = 0; round < 6; round++) {
            for (Attacker x : outsiders) {
                x.attack(members, architecture, dimension, round);
            }
            revoked.attack(members, architecture, dimension, round);
            Thread.sleep(200);
        }
        assertThat(revoked.pulledBytes.get())
                .as("before its revocation the member is one, and gets models (this checks the attack itself)")
                .isPositive();

        // Hospital B revokes it; the CRL lands in a's CRL directory only; b learns it from a, by gossip.
        var crl =
                consortium.hospitalB.revoke(List.of(revokedCert[0].serial()), null, Instant.now(), Duration.ofDays(7));
        Pem.writeAtomically(homeA.resolve("crl/hospital-b.crl"), Pem.crl(crl));
        waitFor(
                () -> a.membership().gate().refusals().getOrDefault("revoked", 0L) >= 1
                        && b.membership().gate().refusals().getOrDefault("revoked", 0L) >= 1,
                "both members to cut off the revoked member");
        Instant cutOff = Instant.now();
        long revokedPulledAtCutOff = revoked.pulledBytes.get();
        long revokedPushesAtCutOff = revoked.pushesAccepted.get();
        for (int round = 6; round < 12; round++) {
            for (Attacker x : outsiders) {
                x.attack(members, architecture, dimension, round);
            }
            revoked.attack(members, architecture, dimension, round);
            Thread.sleep(200);
        }
        long stepsAfter = a.metrics().steps() + b.metrics().steps();

        for (Attacker x : outsiders) {
            assertThat(x.admittedBy).as(x.name + ": admitted by no member").isEmpty();
            assertThat(x.pulledBytes.get()).as(x.name + ": model bytes pulled").isZero();
            assertThat(x.pushesAccepted.get()).as(x.name + ": pushes accepted").isZero();
            assertThat(x.delivered.get()).as(x.name + ": messages delivered").isZero();
        }
        assertThat(revoked.pulledBytes.get())
                .as("revoked: pulled after its cut-off")
                .isEqualTo(revokedPulledAtCutOff);
        assertThat(revoked.pushesAccepted.get())
                .as("revoked: pushes after its cut-off")
                .isEqualTo(revokedPushesAtCutOff);
        for (NodeDaemon d : members) {
            Map<String, Long> refused = d.membership().gate().refusals();
            assertThat(refused.getOrDefault("no-certificate", 0L)).isPositive();
            assertThat(refused.getOrDefault("unknown-ca", 0L)).isPositive();
            assertThat(refused.getOrDefault("expired", 0L)).isPositive();
            assertThat(refused.getOrDefault("peer-id-mismatch", 0L)).isPositive();
            for (var m : d.members()) {
                assertThat(m.announcement().peer())
                        .as("announcements heard come from members only")
                        .isNotIn(outsiders.stream().map(Attacker::peer).toList().toArray());
            }
            assertThat(d.peers()).extracting(p -> p.peerId()).doesNotContain(revoked.peer());
        }
        assertThat(stepsAfter).as("the members kept training").isGreaterThan(stepsBefore);

        String metrics = get(a, "/metrics");
        assertThat(metrics).contains("chorus_membership_refused_total{reason=\"no-certificate\"}");
        String api = get(a, "/api/members");
        assertThat(api).contains("\"enforced\":true").contains("Hospital B").contains("\"revoked\"");

        for (NodeDaemon d : members) {
            d.close();
            List<EgressRecord.Sent> toAttackers = new ArrayList<>();
            List<String> outsiderPeers = outsiders.stream().map(Attacker::peer).toList();
            long[] toMembers = {0};
            EgressAuditLog.read(d.config().auditDir(), rec -> {
                EgressRecord.Sent s = rec.sent();
                boolean model = s.kind().equals("model-body") || s.kind().equals("fragment");
                if (model && outsiderPeers.contains(s.peer())) {
                    toAttackers.add(s);
                }
                if (model && s.peer().equals(revoked.peer()) && s.time().isAfter(cutOff)) {
                    toAttackers.add(s);
                }
                if (model && !outsiderPeers.contains(s.peer()) && !s.peer().equals(revoked.peer())) {
                    toMembers[0]++;
                }
            });
            assertThat(toAttackers)
                    .as("model payloads in the egress audit log to attackers")
                    .isEmpty();
            assertThat(toMembers[0]).as("model payloads to the other member").isPositive();
        }
    }

    /**
     * An observer is admitted and joins the announcement topic, but what it publishes is rejected: it is not heard
     * as a member, and each rejected message counts against its gossipsub score (P4).
     */
    @Test
    void anObserversAnnouncementsAreRejectedAndCountAgainstItsScore() throws Exception {
        roster();
        NodeDaemon a = start(memberHome("member-a", consortium.hospitalA, List.of()), List.of());
        PrivateKey key = PrivateKey.generate();
        var membership = consortium.membership(
                key,
                Consortium.issue(consortium.hospitalB, key, Role.OBSERVER),
                java.util.Set.of(ModelExchange.PROTOCOL));
        open.add(membership);
        Host host = Host.start(
                        HostConfig.defaults(key).withListenAddrs(List.of(Multiaddr.parse("/ip4/127.0.0.1/tcp/0"))),
                        membership.gate())
                .join();
        open.add(host);
        Pubsub pubsub = Pubsub.start(host, PubsubConfig.defaults());
        open.add(pubsub);
        GossipsubAnnouncements announcements = new GossipsubAnnouncements(pubsub, "test-consortium", key);
        open.add(announcements);
        List<ModelAnnouncement> heard = new java.util.concurrent.CopyOnWriteArrayList<>();
        announcements.subscribe(heard::add);
        host.connect(Multiaddr.parse(a.listenAddrs().getFirst())).get(10, TimeUnit.SECONDS);
        waitFor(() -> !heard.isEmpty(), "the observer to read a member's announcement");

        byte[] architecture = heard.getFirst().architecture();
        for (int i = 0; i < 10; i++) {
            announcements.publishAsync(new ModelAnnouncement(
                    key.peerId().toBase58(),
                    architecture,
                    1_000 + i,
                    10,
                    new byte[32],
                    System.currentTimeMillis(),
                    Map.of()));
            Thread.sleep(100);
        }
        waitFor(() -> a.pubsub().score(key.peerId()).join() < 0, "the observer's score at the member to fall below 0");
        assertThat(a.members())
                .extracting(m -> m.announcement().peer())
                .doesNotContain(key.peerId().toBase58());
        assertThat(a.announcementsRejected()).isPositive();
    }

    @Test
    void aNodeWithARosterButAnotherNodesCertificateRefusesToStart() throws Exception {
        roster();
        Path home = memberHome("member-a", consortium.hospitalA, List.of());
        PrivateKey other = PrivateKey.generate();
        Files.writeString(
                home.resolve("member.crt"),
                Pem.certificate(Consortium.issue(consortium.hospitalA, other, Role.MEMBER)
                        .certificate()));
        assertThatThrownBy(() -> start(home, List.of()))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("membership.certificate")
                .hasMessageContaining("peer-id-mismatch")
                .satisfies(e -> assertThat(e.getMessage()).doesNotContain("\n"));
    }

    @Test
    void aNodeWithARosterAndNoCertificateRefusesToStart() throws Exception {
        roster();
        Path home = memberHome("member-a", consortium.hospitalA, List.of());
        Files.writeString(
                home.resolve("node.yaml"),
                Files.readString(home.resolve("node.yaml")).replace("  certificate: member.crt\n", ""));
        assertThatThrownBy(() -> start(home, List.of()))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("membership.certificate: required with membership.roster");
    }

    private String get(NodeDaemon d, String path) throws Exception {
        HttpResponse<String> r = http.send(
                HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + d.apiPort() + path))
                        .build(),
                HttpResponse.BodyHandlers.ofString());
        return r.body();
    }

    private static void waitFor(java.util.function.BooleanSupplier c, String what) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (!c.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("waited 30 s for " + what);
            }
            Thread.sleep(50);
        }
    }
}
