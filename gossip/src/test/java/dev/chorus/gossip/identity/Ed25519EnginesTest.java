package dev.chorus.gossip.identity;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.chorus.gossip.libcrypto.CryptoMode;
import dev.chorus.gossip.libcrypto.LibCryptoUnavailableException;
import java.util.HexFormat;
import java.util.SplittableRandom;
import org.bouncycastle.crypto.params.Ed25519PublicKeyParameters;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The two Ed25519 implementations: the RFC 8032 vectors, the same signatures on random keys and messages, forgeries
 * refused by both, and the choice between them, including a libcrypto that is not there.
 */
class Ed25519EnginesTest {
    private static final String MISSING = "libcrypto-missing-for-test.so.9";

    /** libcrypto's engine, or a skipped test saying why there is none on this machine. */
    private static Ed25519Engine openssl() {
        Ed25519Engines.Selection s =
                Ed25519Engines.select(CryptoMode.AUTO, dev.chorus.gossip.libcrypto.LibCryptoProbe.DEFAULT_LIBRARY);
        assumeTrue(s.name().equals("openssl"), "libcrypto is unusable here: " + s.reason());
        return s.engine();
    }

    @Test
    void bouncyCastleReproducesTheRfc8032Vectors() {
        assertThat(Ed25519Engines.knownAnswerFailure(Ed25519Engines.bouncyCastle()))
                .isNull();
    }

    @Test
    void theSelfTestCatchesAnEngineThatSignsWrongly() {
        Ed25519Engine wrong = new Ed25519Engine() {
            @Override
            public String name() {
                return "wrong";
            }

            @Override
            public byte[] sign(byte[] seed, byte[] publicKey, byte[] message) {
                byte[] s = Ed25519Engines.bouncyCastle().sign(seed, publicKey, message);
                s[0] ^= 1;
                return s;
            }

            @Override
            public boolean verify(byte[] publicKey, byte[] message, byte[] signature) {
                return true;
            }
        };
        assertThat(Ed25519Engines.knownAnswerFailure(wrong)).contains("other bytes than the published ones");
    }

    @Test
    void opensslReproducesTheRfc8032Vectors() {
        assertThat(Ed25519Engines.knownAnswerFailure(openssl())).isNull();
    }

    /** Keys and messages (0 bytes to 200 KiB) drawn from the seed: the same signature from both, each verifies both. */
    @ParameterizedTest(name = "seed {0}")
    @ValueSource(longs = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12})
    void bothEnginesAgreeByteForByteAndRefuseForgeries(long seed) {
        Ed25519Engine openssl = openssl();
        Ed25519Engine bc = Ed25519Engines.bouncyCastle();
        SplittableRandom r = new SplittableRandom(seed);
        PrivateKey key = PrivateKey.fromSeed(bytes(r, 32));
        byte[] pub = key.publicKey().raw();
        byte[] keySeed = seedOf(key);
        int length = seed <= 3 ? (int) seed - 1 : r.nextInt(200 * 1024);
        byte[] message = bytes(r, length);

        byte[] bySsl = openssl.sign(keySeed, pub, message);
        byte[] byBc = bc.sign(keySeed, pub, message);
        assertThat(bySsl).hasSize(64).isEqualTo(byBc);
        assertThat(openssl.verify(pub, message, byBc)).isTrue();
        assertThat(bc.verify(pub, message, bySsl)).isTrue();

        byte[] forged = bySsl.clone();
        forged[r.nextInt(64)] ^= (byte) (1 << r.nextInt(8));
        assertThat(openssl.verify(pub, message, forged)).isFalse();
        assertThat(bc.verify(pub, message, forged)).isFalse();
        if (length > 0) {
            byte[] altered = message.clone();
            altered[r.nextInt(length)] ^= 1;
            assertThat(openssl.verify(pub, altered, bySsl)).isFalse();
            assertThat(bc.verify(pub, altered, bySsl)).isFalse();
        }
        byte[] otherKey = PrivateKey.fromSeed(bytes(r, 32)).publicKey().raw();
        assertThat(openssl.verify(otherKey, message, bySsl)).isFalse();
        assertThat(bc.verify(otherKey, message, bySsl)).isFalse();
    }

    @Test
    void aSignerKeepsItsKeyAndSignsAsTheOneShotCallFromSeveralThreads() throws Exception {
        Ed25519Engine openssl = openssl();
        SplittableRandom r = new SplittableRandom(99);
        byte[] seed = bytes(r, 32);
        byte[] pub = PrivateKey.fromSeed(seed).publicKey().raw();
        for (Ed25519Engine e : new Ed25519Engine[] {openssl, Ed25519Engines.bouncyCastle()}) {
            Ed25519Engine.Signer signer = e.signer(seed, pub);
            java.util.List<java.util.concurrent.Future<Boolean>> results = new java.util.ArrayList<>();
            try (var pool = java.util.concurrent.Executors.newFixedThreadPool(4)) {
                for (int i = 0; i < 32; i++) {
                    byte[] message = bytes(r, r.nextInt(20_000));
                    results.add(pool.submit(() -> java.util.Arrays.equals(
                            signer.sign(message), Ed25519Engines.bouncyCastle().sign(seed, pub, message))));
                }
                for (var f : results) {
                    assertThat(f.get()).as(e.name()).isTrue();
                }
            }
        }
    }

    @Test
    void aPublicKeyOffTheCurveOrOfTheWrongLengthVerifiesNothing() {
        Ed25519Engine openssl = openssl();
        byte[] offCurve = null;
        for (int y = 2; offCurve == null; y++) {
            byte[] candidate = new byte[32];
            candidate[0] = (byte) y;
            try {
                new Ed25519PublicKeyParameters(candidate, 0);
            } catch (IllegalArgumentException notAPoint) {
                offCurve = candidate;
            }
        }
        byte[] signature = new byte[64];
        for (Ed25519Engine e : new Ed25519Engine[] {openssl, Ed25519Engines.bouncyCastle()}) {
            assertThat(e.verify(offCurve, new byte[10], signature)).as(e.name()).isFalse();
            assertThat(e.verify(new byte[31], new byte[10], signature))
                    .as(e.name())
                    .isFalse();
            assertThat(e.verify(offCurve, new byte[10], new byte[63]))
                    .as(e.name())
                    .isFalse();
        }
    }

    @Test
    void autoFallsBackToBouncyCastleWhenLibcryptoIsMissing() {
        Ed25519Engines.Selection s = Ed25519Engines.select(CryptoMode.AUTO, MISSING);
        assertThat(s.name()).isEqualTo("bc");
        assertThat(s.engine()).isSameAs(Ed25519Engines.bouncyCastle());
        assertThat(s.reason()).contains(MISSING).contains("did not load");
        assertThat(s.toString()).doesNotContain("\n");
    }

    @Test
    void aLibraryWithoutTheEvpFunctionsIsRefusedInOneLine() {
        Ed25519Engines.Selection s = Ed25519Engines.select(CryptoMode.AUTO, "libc.so.6");
        assertThat(s.name()).isEqualTo("bc");
        assertThat(s.reason()).contains("libc.so.6").doesNotContain("\n");
    }

    @Test
    void jdkModeIsBouncyCastleAndOpensslModeWithoutLibcryptoFailsNamingTheReason() {
        assertThat(Ed25519Engines.select(CryptoMode.JDK, dev.chorus.gossip.libcrypto.LibCryptoProbe.DEFAULT_LIBRARY)
                        .name())
                .isEqualTo("bc");
        assertThatThrownBy(() -> Ed25519Engines.select(CryptoMode.OPENSSL, MISSING))
                .isInstanceOf(LibCryptoUnavailableException.class)
                .hasMessageContaining("OpenSSL's Ed25519 was required but is unusable")
                .hasMessageContaining(MISSING);
        assertThatThrownBy(() -> CryptoMode.parse("fast"))
                .hasMessageContaining("'fast'")
                .hasMessageContaining("auto, jdk or openssl");
    }

    @Test
    void keysSignAndVerifyThroughTheEngineInUse() {
        Ed25519Engines.Selection before = Ed25519Engines.current();
        try {
            PrivateKey key = PrivateKey.fromSeed(HexFormat.of().parseHex(Ed25519Engines.RFC_8032_VECTORS[2][0]));
            byte[] message = HexFormat.of().parseHex(Ed25519Engines.RFC_8032_VECTORS[2][2]);
            byte[] published = HexFormat.of().parseHex(Ed25519Engines.RFC_8032_VECTORS[2][3]);
            for (CryptoMode mode : new CryptoMode[] {CryptoMode.JDK, CryptoMode.AUTO}) {
                Ed25519Engines.use(mode);
                assertThat(key.sign(message)).as(mode.name()).isEqualTo(published);
                assertThat(key.publicKey().verify(message, published))
                        .as(mode.name())
                        .isTrue();
            }
            assertThat(Ed25519Engines.use(CryptoMode.JDK).engine()).isSameAs(Ed25519Engines.bouncyCastle());
            assertThat(Ed25519Engines.current().name()).isEqualTo("bc");
        } finally {
            Ed25519Engines.restore(before);
        }
    }

    private static byte[] bytes(SplittableRandom r, int n) {
        byte[] b = new byte[n];
        r.nextBytes(b);
        return b;
    }

    /** The 32-byte seed of a key, from its protobuf ({@code seed ++ public} after a 4-byte header). */
    private static byte[] seedOf(PrivateKey key) {
        byte[] pb = key.toProtobuf();
        return java.util.Arrays.copyOfRange(pb, pb.length - 64, pb.length - 32);
    }
}
