package dev.chorus.node.announce;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.chorus.gossip.identity.PrivateKey;
import dev.chorus.node.protocol.ArchitectureHash;
import dev.chorus.node.protocol.ExchangeException;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;

class ModelAnnouncementsTest {

    private static ModelAnnouncement announcement(PrivateKey key) {
        return new ModelAnnouncement(
                key.peerId().toBase58(),
                ArchitectureHash.of("logreg", 30, 2, 31),
                120,
                114,
                new byte[32],
                1_700_000_000_000L,
                Map.of("loss", 0.12, "accuracy", 0.96));
    }

    @Test
    void signedAnnouncementRoundTrips() {
        PrivateKey key = PrivateKey.generate();
        ModelAnnouncement a = announcement(key);
        assertThat(SignedAnnouncements.verify(SignedAnnouncements.sign(a, key))).isEqualTo(a);
    }

    @Test
    void tamperedForgedOrTruncatedMessagesAreRejected() {
        PrivateKey key = PrivateKey.generate();
        byte[] signed = SignedAnnouncements.sign(announcement(key), key);
        for (int i = 0; i < signed.length; i += 7) {
            byte[] bad = signed.clone();
            bad[i] ^= 0x20;
            assertThatThrownBy(() -> SignedAnnouncements.verify(bad)).isInstanceOf(ExchangeException.class);
        }
        byte[] cut = java.util.Arrays.copyOf(signed, signed.length - 1);
        assertThatThrownBy(() -> SignedAnnouncements.verify(cut)).isInstanceOf(ExchangeException.class);
        // a node cannot sign an announcement in another node's name
        PrivateKey other = PrivateKey.generate();
        assertThatThrownBy(() -> SignedAnnouncements.sign(announcement(key), other))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void inMemoryTopicDeliversVerifiedAnnouncementsToOthersOnly() throws Exception {
        InMemoryAnnouncements.Topic topic = new InMemoryAnnouncements.Topic();
        PrivateKey ka = PrivateKey.generate();
        PrivateKey kb = PrivateKey.generate();
        InMemoryAnnouncements a = topic.join(ka);
        InMemoryAnnouncements b = topic.join(kb);
        List<ModelAnnouncement> heardByA = new CopyOnWriteArrayList<>();
        List<ModelAnnouncement> heardByB = new CopyOnWriteArrayList<>();
        a.subscribe(heardByA::add);
        AutoCloseable sub = b.subscribe(heardByB::add);

        a.publish(announcement(ka));
        assertThat(heardByB).containsExactly(announcement(ka));
        assertThat(heardByA).isEmpty();

        byte[] forged = SignedAnnouncements.sign(announcement(kb), kb);
        forged[10] ^= 1;
        topic.deliverRaw(forged, null);
        assertThat(a.rejected()).isEqualTo(1);
        assertThat(b.rejected()).isEqualTo(1);
        assertThat(heardByA).isEmpty();

        sub.close();
        a.publish(announcement(ka));
        assertThat(heardByB).hasSize(1);
    }

    @Test
    void metricsAreBounded() {
        PrivateKey key = PrivateKey.generate();
        assertThatThrownBy(() -> new ModelAnnouncement(
                        key.peerId().toBase58(), new byte[32], 1, 1, new byte[32], 0, Map.of("loss", Double.NaN)))
                .isInstanceOf(IllegalArgumentException.class);
        java.util.Map<String, Double> many = new java.util.HashMap<>();
        for (int i = 0; i < 17; i++) {
            many.put("m" + i, 1.0);
        }
        assertThatThrownBy(
                        () -> new ModelAnnouncement(key.peerId().toBase58(), new byte[32], 1, 1, new byte[32], 0, many))
                .isInstanceOf(IllegalArgumentException.class);
    }
}
