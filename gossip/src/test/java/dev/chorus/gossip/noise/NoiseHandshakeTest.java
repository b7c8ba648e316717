package dev.chorus.gossip.noise;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.chorus.gossip.Vectors;
import dev.chorus.gossip.identity.PrivateKey;
import java.nio.charset.StandardCharsets;
import java.security.SecureRandom;
import java.util.HexFormat;
import java.util.List;
import org.junit.jupiter.api.Test;

class NoiseHandshakeTest {
    static final PrivateKey A = PrivateKey.fromSeed(Vectors.hex("identities.A.seed"));
    static final PrivateKey B = PrivateKey.fromSeed(Vectors.hex("identities.B.seed"));
    static final SecureRandom RANDOM = new SecureRandom();

    @Test
    void payloadMatchesJsVectors() {
        byte[] staticKey = Vectors.hex("noise.staticPublicKey");
        byte[] signed = NoiseHandshake.concat(NoiseHandshake.SIGNATURE_PREFIX, staticKey);
        assertThat(signed).isEqualTo(Vectors.hex("noise.signedBytes"));
        byte[] sig = A.sign(signed);
        assertThat(sig).isEqualTo(Vectors.hex("noise.identitySig"));
        byte[] key = A.publicKey().toProtobuf();
        assertThat(new HandshakePayload(key, sig, List.of()).encode())
                .isEqualTo(Vectors.hex("noise.handshakePayloadNoExtensions"));
        assertThat(new HandshakePayload(key, sig, List.of("/yamux/1.0.0")).encode())
                .isEqualTo(Vectors.hex("noise.handshakePayloadWithYamux"));
        HandshakePayload decoded = HandshakePayload.decode(Vectors.hex("noise.handshakePayloadWithYamux"));
        assertThat(decoded.streamMuxers()).containsExactly("/yamux/1.0.0");
        assertThat(decoded.identitySig()).isEqualTo(sig);
    }

    @Test
    void protocolNameIsOneHashLength() {
        assertThat(SymmetricState.PROTOCOL_NAME.getBytes(StandardCharsets.US_ASCII))
                .hasSize(SymmetricState.HASH_LEN);
    }

    /** RFC 5869 test case 1 uses a salt, which is the Noise chaining key; outputs match its OKM blocks. */
    @Test
    void hkdfMatchesRfc5869() {
        HexFormat hex = HexFormat.of();
        byte[][] out = SymmetricState.hkdf(
                hex.parseHex("000102030405060708090a0b0c"),
                hex.parseHex("0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b"),
                2);
        // RFC 5869 A.1 with empty info: T(1) ++ T(2) is the first 64 bytes of HKDF-Expand(PRK, "", 64).
        byte[] prk = SymmetricState.hmac(
                hex.parseHex("000102030405060708090a0b0c"),
                hex.parseHex("0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b"));
        assertThat(hex.formatHex(prk)).isEqualTo("077709362c2e32df0ddc3f0dc47bba6390b6c73bb50f9c3122ec844ad7c2b3e5");
        assertThat(out[0]).isEqualTo(SymmetricState.hmac(prk, new byte[] {1}));
        assertThat(out[1]).isEqualTo(SymmetricState.hmac(prk, NoiseHandshake.concat(out[0], new byte[] {2})));
    }

    static NoiseHandshake hs(
            boolean init, PrivateKey id, List<String> muxers, dev.chorus.gossip.identity.PeerId expect) {
        return new NoiseHandshake(
                init, id, X25519KeyPair.generate(RANDOM), X25519KeyPair.generate(RANDOM), muxers, expect);
    }

    @Test
    void fullHandshakeAgreesOnKeysAndPeers() {
        NoiseHandshake i = hs(true, A, List.of("/yamux/1.0.0", "/mplex/6.7.0"), B.peerId());
        NoiseHandshake r = hs(false, B, List.of("/mplex/6.7.0", "/yamux/1.0.0"), null);
        byte[] m1 = i.writeMessage();
        assertThat(m1).hasSize(32);
        r.readMessage(m1);
        i.readMessage(r.writeMessage());
        r.readMessage(i.writeMessage());
        assertThat(i.isComplete()).isTrue();
        assertThat(r.isComplete()).isTrue();
        assertThat(i.handshakeHash()).isEqualTo(r.handshakeHash());
        SecureSession si = i.session();
        SecureSession sr = r.session();
        assertThat(si.remotePeer()).isEqualTo(B.peerId());
        assertThat(sr.remotePeer()).isEqualTo(A.peerId());
        assertThat(si.inlinedMuxer()).isEqualTo("/yamux/1.0.0");
        assertThat(sr.inlinedMuxer()).isEqualTo("/yamux/1.0.0");
        byte[] c = si.sender.encryptWithAd(null, "hello".getBytes());
        assertThat(new String(sr.receiver.decryptWithAd(null, c))).isEqualTo("hello");
        byte[] c2 = sr.sender.encryptWithAd(null, "back".getBytes());
        assertThat(new String(si.receiver.decryptWithAd(null, c2))).isEqualTo("back");
    }

    @Test
    void noInlineMuxerWhenOneSideOffersNone() {
        NoiseHandshake i = hs(true, A, List.of(), null);
        NoiseHandshake r = hs(false, B, List.of("/yamux/1.0.0"), null);
        r.readMessage(i.writeMessage());
        i.readMessage(r.writeMessage());
        r.readMessage(i.writeMessage());
        assertThat(i.session().inlinedMuxer()).isNull();
        assertThat(r.session().inlinedMuxer()).isNull();
    }

    @Test
    void noCommonMuxerFails() {
        NoiseHandshake i = hs(true, A, List.of("/mplex/6.7.0"), null);
        NoiseHandshake r = hs(false, B, List.of("/yamux/1.0.0"), null);
        r.readMessage(i.writeMessage());
        i.readMessage(r.writeMessage());
        r.readMessage(i.writeMessage());
        assertThatThrownBy(i::session).hasMessageContaining("no common stream muxer");
    }

    @Test
    void wrongPeerIsRefused() {
        PrivateKey other = PrivateKey.generate();
        NoiseHandshake i = hs(true, A, List.of(), other.peerId());
        NoiseHandshake r = hs(false, B, List.of(), null);
        r.readMessage(i.writeMessage());
        assertThatThrownBy(() -> i.readMessage(r.writeMessage()))
                .isInstanceOf(PeerIdMismatchException.class)
                .hasMessageContaining("dialed " + other.peerId());
    }

    @Test
    void tamperedMessageFailsAuthentication() {
        NoiseHandshake i = hs(true, A, List.of(), null);
        NoiseHandshake r = hs(false, B, List.of(), null);
        r.readMessage(i.writeMessage());
        byte[] m2 = r.writeMessage();
        m2[40] ^= 1; // inside the encrypted static key
        assertThatThrownBy(() -> i.readMessage(m2))
                .isInstanceOf(NoiseException.class)
                .hasMessageContaining("authentication");
    }

    @Test
    void truncatedMessagesAreRefused() {
        NoiseHandshake r = hs(false, B, List.of(), null);
        assertThatThrownBy(() -> r.readMessage(new byte[31])).isInstanceOf(NoiseException.class);
        NoiseHandshake i = hs(true, A, List.of(), null);
        i.writeMessage();
        assertThatThrownBy(() -> i.readMessage(new byte[50]))
                .isInstanceOf(NoiseException.class)
                .hasMessageContaining("too short");
    }

    @Test
    void nonceExhaustionIsRefused() {
        CipherState c = new CipherState();
        c.initializeKey(new byte[32]);
        c.setNonce(-1L);
        assertThatThrownBy(() -> c.encryptWithAd(null, new byte[1])).hasMessageContaining("nonce exhausted");
    }
}
