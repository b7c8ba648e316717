package dev.chorus.gossip.noise;

import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.junit.FuzzTest;
import dev.chorus.gossip.identity.PrivateKey;
import java.security.SecureRandom;
import java.util.List;

/**
 * Coverage-guided fuzz tests of the Noise XX handshake's decoders: a handshake payload and each handshake message a
 * remote sends are rejected only with {@link NoiseException}, and an accepted payload re-encodes to a payload that
 * decodes equal. Regression inputs: {@code NoiseFuzzTestInputs/}.
 */
class NoiseFuzzTest {
    private static final SecureRandom RANDOM = new SecureRandom();
    private static final PrivateKey IDENTITY = PrivateKey.fromSeed(new byte[32]);

    @FuzzTest
    void payload(byte[] data) {
        HandshakePayload p;
        try {
            p = HandshakePayload.decode(data);
        } catch (NoiseException rejected) {
            return;
        }
        assertThat(p.streamMuxers()).hasSizeLessThanOrEqualTo(HandshakePayload.MAX_MUXERS);
        HandshakePayload again = HandshakePayload.decode(p.encode());
        assertThat(again.identityKey()).isEqualTo(p.identityKey());
        assertThat(again.identitySig()).isEqualTo(p.identitySig());
        assertThat(again.streamMuxers()).isEqualTo(p.streamMuxers());
    }

    /** The responder reads message 1 (e), then the initiator's message 3 (s, payload). */
    @FuzzTest
    void responderMessages(byte[] data) {
        NoiseHandshake responder = handshake(false);
        int cut = Math.min(data.length, 32);
        try {
            responder.readMessage(java.util.Arrays.copyOfRange(data, 0, cut));
            responder.writeMessage();
            responder.readMessage(java.util.Arrays.copyOfRange(data, cut, data.length));
        } catch (NoiseException rejected) {
            assertThat(responder.isComplete()).isFalse();
        }
    }

    /** The initiator reads message 2 (e, ee, s, es, payload) after sending message 1. */
    @FuzzTest
    void initiatorMessage(byte[] data) {
        NoiseHandshake initiator = handshake(true);
        initiator.writeMessage();
        try {
            initiator.readMessage(data);
        } catch (NoiseException rejected) {
            assertThat(initiator.isMyTurn()).isFalse();
        }
    }

    private static NoiseHandshake handshake(boolean initiator) {
        return new NoiseHandshake(
                initiator,
                IDENTITY,
                X25519KeyPair.generate(RANDOM),
                X25519KeyPair.generate(RANDOM),
                List.of("/yamux/1.0.0"),
                null);
    }
}
