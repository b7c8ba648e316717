package dev.chorus.gossip.identity;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.chorus.gossip.Vectors;
import java.util.HexFormat;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class PeerIdTest {
    @ParameterizedTest
    @ValueSource(strings = {"A", "B"})
    void keysAndPeerIdsMatchJsVectors(String who) {
        String p = "identities." + who + ".";
        PrivateKey key = PrivateKey.fromSeed(Vectors.hex(p + "seed"));
        assertThat(key.publicKey().raw()).isEqualTo(Vectors.hex(p + "rawPublicKey"));
        assertThat(key.publicKey().toProtobuf()).isEqualTo(Vectors.hex(p + "publicKeyProtobuf"));
        assertThat(key.toProtobuf()).isEqualTo(Vectors.hex(p + "privateKeyProtobuf"));
        PeerId id = key.peerId();
        assertThat(id.toBytes()).isEqualTo(Vectors.hex(p + "peerIdBytes"));
        assertThat(id.toBase58()).isEqualTo(Vectors.text(p + "peerIdBase58"));
        assertThat(id.toCid()).isEqualTo(Vectors.text(p + "peerIdCidBase32"));
        assertThat(PeerId.parse(Vectors.text(p + "peerIdCidBase32"))).isEqualTo(id);
        assertThat(PeerId.parse(Vectors.text(p + "peerIdBase58"))).isEqualTo(id);
        assertThat(id.publicKey()).contains(key.publicKey());
        assertThat(PrivateKey.fromProtobuf(Vectors.hex(p + "privateKeyProtobuf"))
                        .peerId())
                .isEqualTo(id);
    }

    @Test
    void specVector() {
        PublicKey pk = PublicKey.fromProtobuf(Vectors.hex("peerIdSpecVector.publicKeyProtobuf"));
        assertThat(pk.type()).isEqualTo(KeyType.ED25519);
        assertThat(pk.toPeerId().toBase58()).isEqualTo(Vectors.text("peerIdSpecVector.peerIdBase58"));
        assertThat(pk.toPeerId().toBytes()).isEqualTo(Vectors.hex("peerIdSpecVector.peerIdBytes"));
    }

    /** RSA keys are too large to inline: their peer ID is a sha2-256 multihash (Qm...). */
    @Test
    void largeKeysUseSha256() {
        byte[] rsaPb = new dev.chorus.gossip.encoding.ProtobufWriter()
                .varint(1, 0)
                .bytes(2, new byte[270])
                .toByteArray();
        PeerId id = PublicKey.fromProtobuf(rsaPb).toPeerId();
        assertThat(id.toBase58()).startsWith("Qm");
        assertThat(id.publicKey()).isEmpty();
        assertThat(PeerId.parse(id.toBase58())).isEqualTo(id);
        assertThat(PeerId.parse(id.toCid())).isEqualTo(id);
    }

    @Test
    void signaturesVerify() {
        PrivateKey key = PrivateKey.fromSeed(Vectors.hex("identities.A.seed"));
        byte[] sig = key.sign(Vectors.hex("noise.signedBytes"));
        assertThat(sig).isEqualTo(Vectors.hex("noise.identitySig"));
        assertThat(key.publicKey().verify(Vectors.hex("noise.signedBytes"), sig))
                .isTrue();
        sig[0] ^= 1;
        assertThat(key.publicKey().verify(Vectors.hex("noise.signedBytes"), sig))
                .isFalse();
        assertThat(key.publicKey().verify(new byte[1], new byte[3])).isFalse();
    }

    @Test
    void rejectsBadPeerIds() {
        assertThatThrownBy(() -> PeerId.parse("12D3KooW0000")).isInstanceOf(InvalidPeerIdException.class);
        assertThatThrownBy(() -> PeerId.parse("")).isInstanceOf(InvalidPeerIdException.class);
        assertThatThrownBy(() -> PeerId.parse("xyz")).isInstanceOf(InvalidPeerIdException.class);
        // An identity multihash whose length byte lies.
        byte[] bytes = Vectors.hex("identities.A.peerIdBytes");
        bytes[1] = 0x30;
        assertThatThrownBy(() -> PeerId.fromBytes(bytes)).isInstanceOf(InvalidPeerIdException.class);
        // A CIDv1 with a different codec (dag-pb 0x70).
        assertThatThrownBy(() -> PeerId.parse("bafybeigdyrzt5sfp7udm7hu76uh7y26nf3efuylqabf3oclgtqy55fbzdi"))
                .isInstanceOf(InvalidPeerIdException.class);
        assertThatThrownBy(() -> PublicKey.fromProtobuf(HexFormat.of().parseHex("0801121f00")))
                .isInstanceOf(InvalidKeyException.class);
    }

    /** A key whose 32 bytes are not a point of the curve verifies nothing, and says so by false, not by throwing. */
    @org.junit.jupiter.api.Test
    void aKeyOffTheCurveVerifiesNothing() {
        java.util.SplittableRandom rnd = new java.util.SplittableRandom(3);
        int offCurve = 0;
        for (int k = 0; k < 64; k++) {
            byte[] raw = new byte[32];
            rnd.nextBytes(raw);
            PublicKey key = PublicKey.ed25519(raw);
            try {
                new org.bouncycastle.crypto.params.Ed25519PublicKeyParameters(raw, 0);
            } catch (IllegalArgumentException e) {
                offCurve++;
            }
            org.assertj.core.api.Assertions.assertThat(key.verify(new byte[] {1, 2, 3}, new byte[64]))
                    .isFalse();
        }
        org.assertj.core.api.Assertions.assertThat(offCurve)
                .as("random strings off the curve")
                .isPositive();
    }
}
