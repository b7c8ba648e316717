package dev.chorus.privacy.secagg;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.security.SecureRandom;
import java.util.HexFormat;
import org.junit.jupiter.api.Test;

/** X25519 against RFC 7748: the scalar multiplications of section 5.2 and the key agreement of section 6.1. */
class X25519Test {

    private static final HexFormat HEX = HexFormat.of();

    private static String mult(String scalar, String u) {
        return HEX.formatHex(X25519.sharedSecret(HEX.parseHex(scalar), HEX.parseHex(u)));
    }

    @Test
    void rfc7748Section52ScalarMultiplication() {
        assertThat(mult(
                        "a546e36bf0527c9d3b16154b82465edd62144c0ac1fc5a18506a2244ba449ac4",
                        "e6db6867583030db3594c1a424b15f7c726624ec26b3353b10a903a6d0ab1c4c"))
                .isEqualTo("c3da55379de9c6908e94ea4df28d084f32eccf03491c71f754b4075577a28552");
        // The second input u has its top bit set, which RFC 7748 section 5 requires to be ignored.
        assertThat(mult(
                        "4b66e9d4d1b4673c5ad22691957d6af5c11b6421e0ea01d42ca4169e7918ba0d",
                        "e5210f12786811d3f4b7959d0538ae2c31dbe7106fc03c3efc4cd549c715a493"))
                .isEqualTo("95cbde9476e8907d7aade45cb4b873f88b595a68799fa152e6f8f7647aac7957");
    }

    @Test
    void rfc7748Section61DiffieHellman() {
        byte[] alicePrivate = HEX.parseHex("77076d0a7318a57d3c16c17251b26645df4c2f87ebc0992ab177fba51db92c2a");
        byte[] bobPrivate = HEX.parseHex("5dab087e624a8a4b79e17f8b83800ee66f3bb1292618b6fd1c2f8b27ff88e0eb");
        X25519.KeyPair alice = X25519.fromPrivateKey(alicePrivate);
        X25519.KeyPair bob = X25519.fromPrivateKey(bobPrivate);
        assertThat(HEX.formatHex(alice.publicKey()))
                .isEqualTo("8520f0098930a754748b7ddcb43ef75a0dbf3a0d26381af4eba4a98eaa9b4e6a");
        assertThat(HEX.formatHex(bob.publicKey()))
                .isEqualTo("de9edb7d7b7dc1b4d35b61c2ece435373f8343c85b78674dadfc7e146f882b4f");
        String shared = "4a5d9d5ba4ce2de1728e3bf480350f25e07e21c947d19e3376f09b3c1e161742";
        assertThat(HEX.formatHex(X25519.sharedSecret(alicePrivate, bob.publicKey())))
                .isEqualTo(shared);
        assertThat(HEX.formatHex(X25519.sharedSecret(bobPrivate, alice.publicKey())))
                .isEqualTo(shared);
    }

    @Test
    void generatedKeysAgree() {
        SecureRandom random = new SecureRandom();
        X25519.KeyPair a = X25519.generate(random);
        X25519.KeyPair b = X25519.generate(random);
        assertThat(X25519.sharedSecret(a.privateKey(), b.publicKey()))
                .isEqualTo(X25519.sharedSecret(b.privateKey(), a.publicKey()));
        assertThat(X25519.fromPrivateKey(a.privateKey()).publicKey()).isEqualTo(a.publicKey());
    }

    @Test
    void aSmallOrderPublicKeyOrAWrongLengthIsRefused() {
        byte[] key = X25519.generate(new SecureRandom()).privateKey();
        // u = 0 has order 1: every scalar maps it to the all-zero secret.
        assertThatThrownBy(() -> X25519.sharedSecret(key, new byte[32]))
                .isInstanceOf(SecAggException.class)
                .hasMessageContaining("small order");
        assertThatThrownBy(() -> X25519.sharedSecret(key, new byte[31]))
                .isInstanceOf(SecAggException.class)
                .hasMessageContaining("31 bytes");
    }
}
