package dev.chorus.node.announce;

import static org.assertj.core.api.Assertions.assertThat;

import dev.chorus.gossip.host.Host;
import dev.chorus.gossip.host.HostConfig;
import dev.chorus.gossip.identity.PrivateKey;
import dev.chorus.gossip.multiaddr.Multiaddr;
import dev.chorus.gossip.pubsub.Pubsub;
import dev.chorus.gossip.pubsub.PubsubConfig;
import dev.chorus.node.protocol.ArchitectureHash;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** Three real hosts on loopback, each with gossipsub and the consortium's announcement topic. */
class GossipsubAnnouncementsTest {

    private final List<AutoCloseable> closing = new ArrayList<>();

    @AfterEach
    void close() throws Exception {
        for (AutoCloseable c : closing.reversed()) {
            c.close();
        }
    }

    private record Member(PrivateKey key, Host host, Pubsub pubsub, GossipsubAnnouncements topic) {}

    private Member member() {
        PrivateKey key = PrivateKey.generate();
        Host host = Host.start(HostConfig.defaults(key)
                        .withListenAddrs(List.of(Multiaddr.parse("/ip4/127.0.0.1/tcp/0")))
                        .withGracePeriod(Duration.ofMillis(100)))
                .join();
        closing.add(host);
        Pubsub pubsub = Pubsub.start(host, PubsubConfig.defaults());
        closing.add(pubsub);
        GossipsubAnnouncements topic = new GossipsubAnnouncements(pubsub, "icu-study", key);
        closing.add(topic);
        return new Member(key, host, pubsub, topic);
    }

    private static ModelAnnouncement announcement(PrivateKey key, long version, long timestamp) {
        return new ModelAnnouncement(
                key.peerId().toBase58(),
                ArchitectureHash.of("logreg", 30, 2, 31),
                version,
                455,
                ModelAnnouncement.parameterDigest(new float[] {1, 2, 3}),
                timestamp,
                Map.of("accuracy", 0.95, "loss", 0.14));
    }

    private static void waitFor(String what, BooleanSupplier condition) throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("timed out waiting for " + what);
            }
            Thread.sleep(20);
        }
    }

    @Test
    void announcementsReachEveryMemberAndForgeriesAreRejected() throws Exception {
        Member a = member();
        Member b = member();
        Member c = member();
        a.host().connect(b.host().listenAddrs().get(0)).join();
        a.host().connect(c.host().listenAddrs().get(0)).join();
        b.host().connect(c.host().listenAddrs().get(0)).join();
        String topic = GossipsubAnnouncements.topic("icu-study");
        assertThat(a.topic().topic()).isEqualTo(topic);
        for (Member m : List.of(a, b, c)) {
            waitFor(
                    "topic peers of " + m.key().peerId(),
                    () -> m.pubsub().topicPeers(topic).join().size() == 2);
        }
        List<ModelAnnouncement> heardByB = new CopyOnWriteArrayList<>();
        List<ModelAnnouncement> heardByC = new CopyOnWriteArrayList<>();
        ConsortiumMembers membersOfB =
                new ConsortiumMembers(16, Duration.ofMinutes(1), java.time.InstantSource.system());
        b.topic().subscribe(heardByB::add);
        b.topic().subscribe(membersOfB);
        c.topic().subscribe(heardByC::add);

        ModelAnnouncement fromA = announcement(a.key(), 40, System.currentTimeMillis());
        a.topic().publishAsync(fromA).join();
        waitFor("B and C to hear A", () -> heardByB.size() == 1 && heardByC.size() == 1);
        assertThat(heardByB.getFirst()).isEqualTo(fromA);
        assertThat(heardByC.getFirst()).isEqualTo(fromA);
        assertThat(membersOfB.member(a.key().peerId().toBase58()))
                .get()
                .extracting(m -> m.announcement().version())
                .isEqualTo(40L);

        // C replays A's signed announcement as a pubsub message of its own: the signature verifies, but the
        // author is not the announced peer, so B rejects it (and gossipsub does not forward it).
        byte[] replayed =
                SignedAnnouncements.sign(announcement(a.key(), 1_000_000, System.currentTimeMillis()), a.key());
        c.pubsub().publish(topic, replayed).join();
        // Garbage and a bad signature, published by C under its own name.
        c.pubsub().publish(topic, "not an announcement".getBytes()).join();
        byte[] tampered = SignedAnnouncements.sign(announcement(c.key(), 7, System.currentTimeMillis()), c.key());
        tampered[40] ^= 1;
        c.pubsub().publish(topic, tampered).join();
        waitFor("B to reject three messages", () -> b.topic().rejected() == 3);
        waitFor("A to reject three messages", () -> a.topic().rejected() == 3);

        // C's own genuine announcement still goes through.
        ModelAnnouncement fromC = announcement(c.key(), 12, System.currentTimeMillis());
        c.topic().publish(fromC);
        waitFor("B to hear C", () -> heardByB.size() == 2);
        assertThat(heardByB).containsExactly(fromA, fromC);
        assertThat(membersOfB.members())
                .extracting(m -> m.announcement().peer())
                .containsExactlyInAnyOrder(
                        a.key().peerId().toBase58(), c.key().peerId().toBase58());
        assertThat(b.topic().rejected()).isEqualTo(3);
        assertThat(heardByB.stream().mapToLong(ModelAnnouncement::version)).doesNotContain(1_000_000L, 7L);
        assertThat(Instant.ofEpochMilli(fromC.timestampMillis())).isBeforeOrEqualTo(Instant.now());
    }
}
