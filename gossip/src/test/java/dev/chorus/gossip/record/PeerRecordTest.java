package dev.chorus.gossip.record;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.chorus.gossip.encoding.ProtobufWriter;
import dev.chorus.gossip.identity.PrivateKey;
import dev.chorus.gossip.multiaddr.Multiaddr;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** Signed envelopes and peer records: round trips, and every way a record must be refused. */
class PeerRecordTest {

    private static final PrivateKey ALICE = PrivateKey.fromSeed(new byte[32]);
    private static final PrivateKey BOB = PrivateKey.fromSeed(filled(7));

    private static byte[] filled(int v) {
        byte[] b = new byte[32];
        java.util.Arrays.fill(b, (byte) v);
        return b;
    }

    private static final List<Multiaddr> ADDRS =
            List.of(Multiaddr.parse("/ip4/10.0.0.1/tcp/4001"), Multiaddr.parse("/ip6/::1/tcp/4002"));

    @Test
    void aSealedRecordRoundTripsThroughItsEnvelope() {
        PeerRecord r = new PeerRecord(ALICE.peerId(), 1_733_000_000_000L, ADDRS);
        byte[] bytes = r.seal(ALICE).encode();
        SignedEnvelope e = SignedEnvelope.decode(bytes);
        assertThat(e.verify(PeerRecord.DOMAIN)).isTrue();
        assertThat(e.verify("another-domain")).isFalse();
        assertThat(e.payloadType()).containsExactly(0x03, 0x01);
        assertThat(PeerRecord.open(bytes)).isEqualTo(r);
        assertThat(e.encode()).isEqualTo(bytes);
    }

    /** The signature covers each part after its varint length, so moving bytes between parts breaks it. */
    @Test
    void theSignedBytesArePrefixedWithTheirLengths() {
        byte[] a = SignedEnvelope.signedBytes("d", new byte[] {1}, new byte[] {2, 3});
        assertThat(a).containsExactly(1, 'd', 1, 1, 2, 2, 3);
        assertThat(SignedEnvelope.signedBytes("d", new byte[] {1, 2}, new byte[] {3}))
                .isNotEqualTo(a);
    }

    @ParameterizedTest
    @ValueSource(ints = {0, 1, 2, 3, 4, 5, 6, 7})
    void anyFlippedByteOfTheEnvelopeIsRefused(int seed) {
        byte[] bytes = new PeerRecord(ALICE.peerId(), 5, ADDRS).seal(ALICE).encode();
        SplittableRandom rnd = new SplittableRandom(seed);
        for (int k = 0; k < 64; k++) {
            byte[] bad = bytes.clone();
            int at = rnd.nextInt(bad.length);
            bad[at] ^= (byte) (1 + rnd.nextInt(255));
            // Either it no longer parses, or it parses to something that does not open (or to the same record,
            // where the flip hit a byte the signature does not cover: none in this encoding).
            assertThatThrownBy(() -> PeerRecord.open(bad)).isInstanceOf(RecordException.class);
        }
    }

    @Test
    void aRecordOfOnePeerSignedByAnotherIsRefused() {
        byte[] payload = new ProtobufWriter()
                .bytes(1, ALICE.peerId().toBytes())
                .varint(2, 1)
                .toByteArray();
        SignedEnvelope e = SignedEnvelope.seal(BOB, PeerRecord.DOMAIN, new byte[] {0x03, 0x01}, payload);
        assertThat(e.verify(PeerRecord.DOMAIN)).isTrue();
        assertThatThrownBy(() -> PeerRecord.open(e))
                .isInstanceOf(RecordException.class)
                .hasMessage("peer record of " + ALICE.peerId() + " signed by " + BOB.peerId());
        assertThatThrownBy(() -> new PeerRecord(ALICE.peerId(), 1, ADDRS).seal(BOB))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void anotherDomainOrPayloadTypeIsRefused() {
        byte[] payload = new ProtobufWriter().bytes(1, ALICE.peerId().toBytes()).toByteArray();
        SignedEnvelope otherDomain =
                SignedEnvelope.seal(ALICE, "libp2p-routing-state", new byte[] {0x03, 0x01}, payload);
        assertThatThrownBy(() -> PeerRecord.open(otherDomain)).hasMessage("peer record's signature does not verify");
        SignedEnvelope otherType = SignedEnvelope.seal(ALICE, PeerRecord.DOMAIN, new byte[] {0x03, 0x02}, payload);
        assertThatThrownBy(() -> PeerRecord.open(otherType))
                .hasMessage("signed envelope does not hold a peer record (payload type 0302)");
    }

    @Test
    void boundsAndMalformedInput() {
        List<Multiaddr> many = new ArrayList<>();
        for (int i = 0; i < PeerRecord.MAX_ADDRESSES + 1; i++) {
            many.add(Multiaddr.parse("/ip4/10.0.0.1/tcp/" + (1000 + i)));
        }
        assertThatThrownBy(() -> new PeerRecord(ALICE.peerId(), 1, many)).isInstanceOf(RecordException.class);
        ProtobufWriter w = new ProtobufWriter().bytes(1, ALICE.peerId().toBytes());
        for (Multiaddr a : many) {
            w.message(3, new ProtobufWriter().bytes(1, a.toBytes()));
        }
        SignedEnvelope tooMany =
                SignedEnvelope.seal(ALICE, PeerRecord.DOMAIN, new byte[] {0x03, 0x01}, w.toByteArray());
        assertThatThrownBy(() -> PeerRecord.open(tooMany)).hasMessageContaining("more than 32 addresses");
        assertThatThrownBy(() -> SignedEnvelope.decode(new byte[SignedEnvelope.MAX_BYTES + 1]))
                .hasMessageContaining("more than 8192");
        assertThatThrownBy(() -> SignedEnvelope.decode(new byte[] {0x0a, 0x05, 1}))
                .isInstanceOf(RecordException.class);
        assertThatThrownBy(() -> SignedEnvelope.decode(new byte[0])).hasMessage("signed envelope lacks its public key");
    }

    @ParameterizedTest
    @ValueSource(longs = {11, 12, 13, 14})
    void randomBytesNeverThrowAnythingButARecordException(long seed) {
        SplittableRandom rnd = new SplittableRandom(seed);
        for (int k = 0; k < 2000; k++) {
            byte[] junk = new byte[rnd.nextInt(200)];
            rnd.nextBytes(junk);
            try {
                PeerRecord.open(junk);
            } catch (RecordException expected) {
                // the only failure allowed
            }
        }
    }
}
