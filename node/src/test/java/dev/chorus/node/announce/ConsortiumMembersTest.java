package dev.chorus.node.announce;

import static org.assertj.core.api.Assertions.assertThat;

import dev.chorus.gossip.identity.PrivateKey;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

class ConsortiumMembersTest {

    private final AtomicReference<Instant> now = new AtomicReference<>(Instant.parse("2026-06-01T12:00:00Z"));
    private final InstantSource clock = () -> now.get();

    private ModelAnnouncement announcement(String peer, long version, Instant at) {
        return new ModelAnnouncement(
                peer, new byte[32], version, 100, new byte[32], at.toEpochMilli(), Map.of("accuracy", 0.9));
    }

    private void advance(Duration d) {
        now.set(now.get().plus(d));
    }

    @Test
    void keepsTheNewestAnnouncementOfEachPeerAndIgnoresReplaysAndTheFuture() {
        ConsortiumMembers members = new ConsortiumMembers(8, Duration.ofMinutes(1), clock);
        String p = PrivateKey.generate().peerId().toBase58();
        members.accept(announcement(p, 10, now.get()));
        advance(Duration.ofSeconds(5));
        members.accept(announcement(p, 20, now.get()));
        // an older message of the same peer, replayed
        members.accept(announcement(p, 999, now.get().minusSeconds(3)));
        // dated too far ahead of the local clock
        members.accept(announcement(
                p, 30, now.get().plus(ConsortiumMembers.MAX_CLOCK_SKEW).plusSeconds(1)));
        assertThat(members.member(p))
                .get()
                .extracting(m -> m.announcement().version())
                .isEqualTo(20L);
        assertThat(members.accepted()).isEqualTo(2);
        assertThat(members.ignored()).isEqualTo(2);
        // a little ahead is clock skew, not an attack
        members.accept(announcement(p, 30, now.get().plusSeconds(60)));
        assertThat(members.member(p))
                .get()
                .extracting(m -> m.announcement().version())
                .isEqualTo(30L);
    }

    @Test
    void membersExpireAndTheLeastRecentlyHeardMakesRoom() {
        ConsortiumMembers members = new ConsortiumMembers(3, Duration.ofSeconds(30), clock);
        List<String> peers = IntStream.range(0, 4)
                .mapToObj(i -> PrivateKey.generate().peerId().toBase58())
                .toList();
        for (int i = 0; i < 3; i++) {
            members.accept(announcement(peers.get(i), i, now.get()));
            advance(Duration.ofSeconds(1));
        }
        assertThat(members.size()).isEqualTo(3);
        members.accept(announcement(peers.get(3), 3, now.get()));
        assertThat(members.members())
                .extracting(m -> m.announcement().peer())
                .containsExactly(peers.get(3), peers.get(2), peers.get(1));
        advance(Duration.ofSeconds(29));
        // peer 1 was last heard 31 s ago, past the expiry; peer 2 exactly 30 s ago
        assertThat(members.members())
                .extracting(m -> m.announcement().peer())
                .containsExactly(peers.get(3), peers.get(2));
        assertThat(members.member(peers.get(1))).isEmpty();
        advance(Duration.ofMinutes(5));
        assertThat(members.members()).isEmpty();
    }
}
