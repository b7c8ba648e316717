package dev.chorus.gossip.pubsub;

import static org.assertj.core.api.Assertions.assertThat;

import dev.chorus.gossip.identity.PeerId;
import org.junit.jupiter.api.Test;

/** The seen-cache and the message cache on a controlled clock. */
class CachesTest {
    static MessageId id(int i) {
        return MessageId.of(new byte[] {(byte) (i >> 8), (byte) i});
    }

    static PubsubMessage msg(String topic, int i) {
        return new PubsubMessage(null, new byte[] {(byte) i}, null, topic, null, null);
    }

    @Test
    void seenCacheForgetsAfterTheTtlAndStaysWithinCapacity() {
        SeenCache c = new SeenCache(120_000, 100);
        assertThat(c.add(id(1), 0)).isTrue();
        assertThat(c.add(id(1), 1000)).isFalse();
        assertThat(c.contains(id(1), 119_999)).isTrue();
        assertThat(c.contains(id(1), 120_000)).isFalse();
        assertThat(c.add(id(1), 120_000)).isTrue();
        for (int i = 2; i < 1000; i++) {
            c.add(id(i), 120_000 + i);
        }
        assertThat(c.size()).isEqualTo(100);
        assertThat(c.evictedEarly()).isEqualTo(899);
        assertThat(c.contains(id(999), 121_000)).isTrue();
        c.prune(500_000);
        assertThat(c.size()).isZero();
    }

    @Test
    void messageCacheWindowsGossipAndHistory() {
        MessageCache mc = new MessageCache(5, 3, 1000);
        mc.put(id(1), msg("a", 1));
        mc.put(id(2), msg("b", 2));
        assertThat(mc.gossipIds("a")).containsExactly(id(1));
        mc.shift();
        mc.put(id(3), msg("a", 3));
        assertThat(mc.gossipIds("a")).containsExactly(id(3), id(1));
        mc.shift();
        mc.shift();
        // id(1) is now in the 4th window: not advertised, still retrievable.
        assertThat(mc.gossipIds("a")).containsExactly(id(3));
        assertThat(mc.get(id(1))).isNotNull();
        mc.shift();
        mc.shift();
        assertThat(mc.get(id(1))).isNull();
        assertThat(mc.get(id(3))).isNotNull();
        mc.shift();
        assertThat(mc.size()).isZero();
    }

    @Test
    void messageCacheCountsTransmissionsPerPeerAndIsBounded() {
        MessageCache mc = new MessageCache(5, 3, 2);
        PeerId p = RouterHarness.key(1).peerId(), q = RouterHarness.key(2).peerId();
        assertThat(mc.put(id(1), msg("a", 1))).isTrue();
        assertThat(mc.put(id(1), msg("a", 1))).isFalse();
        for (int i = 0; i < 3; i++) {
            assertThat(mc.getForPeer(id(1), p, 3)).isNotNull();
        }
        assertThat(mc.getForPeer(id(1), p, 3)).isNull();
        assertThat(mc.getForPeer(id(1), q, 3)).isNotNull();
        assertThat(mc.put(id(2), msg("a", 2))).isTrue();
        assertThat(mc.put(id(3), msg("a", 3))).as("full").isFalse();
        assertThat(mc.size()).isEqualTo(2);
    }
}
