package dev.chorus.gossip.noise;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.chorus.gossip.libcrypto.CryptoMode;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Both ChaCha20-Poly1305 implementations against RFC 8439 and against each other: byte for byte the same
 * sealed messages for seeded random keys, nonces, AD and plaintexts of many lengths, each opening the
 * other's, and both refusing a tampered tag, ciphertext or AD with the same exception.
 */
class NoiseAeadConformanceTest {
    private static final long SEED = 0x5eed_ae4dL;
    private static final int[] LENGTHS = {0, 1, 15, 16, 17, 63, 64, 65, 255, 256, 1000, 4096, 65519, 65535};
    private static final int[] AD_LENGTHS = {0, 1, 12, 32, 100};

    private static AeadProvider openssl;

    @BeforeAll
    static void loadLibcrypto() {
        NoiseCiphers.Selection s = NoiseCiphers.select(CryptoMode.AUTO, LibCrypto.DEFAULT_LIBRARY);
        assumeTrue(s.name().equals("openssl"), "libcrypto is unusable here: " + s.reason());
        openssl = s.provider();
    }

    static Stream<Arguments> lengths() {
        List<Arguments> out = new ArrayList<>();
        for (int len : LENGTHS) {
            for (int ad : AD_LENGTHS) {
                out.add(Arguments.of(len, ad));
            }
        }
        return out.stream();
    }

    private static AeadProvider provider(String name) {
        return name.equals("jdk") ? NoiseCiphers.jdk() : openssl;
    }

    @ParameterizedTest
    @ValueSource(strings = {"jdk", "openssl"})
    void sealsAndOpensTheRfc8439Example(String name) {
        AeadProvider p = provider(name);
        assertThat(NoiseCiphers.knownAnswerFailure(p)).isNull();
        try (NoiseAead a = p.create(NoiseCiphers.KAT_KEY)) {
            assertThat(a.seal(NoiseCiphers.KAT_NONCE, NoiseCiphers.KAT_AD, NoiseCiphers.KAT_PLAINTEXT))
                    .isEqualTo(NoiseCiphers.KAT_SEALED);
        }
    }

    @ParameterizedTest(name = "plaintext {0} bytes, AD {1} bytes")
    @MethodSource("lengths")
    void theProvidersAgreeByteForByte(int length, int adLength) {
        SplittableRandom r = new SplittableRandom(SEED ^ (length * 31L + adLength));
        byte[] key = bytes(r, 32);
        byte[] nonce = bytes(r, 12);
        byte[] ad = bytes(r, adLength);
        byte[] plain = bytes(r, length);
        try (NoiseAead jdk = NoiseCiphers.jdk().create(key);
                NoiseAead ssl = openssl.create(key)) {
            byte[] a = jdk.seal(nonce, ad, plain);
            byte[] b = ssl.seal(nonce, ad, plain);
            assertThat(b).as("seed %x, %d bytes, AD %d", SEED, length, adLength).isEqualTo(a);
            assertThat(jdk.open(nonce, ad, b)).isEqualTo(plain);
            assertThat(ssl.open(nonce, ad, a)).isEqualTo(plain);
        }
    }

    /** Sealing in pieces, from heap arrays, heap buffers and direct buffers, gives the bytes of one whole seal. */
    @ParameterizedTest
    @ValueSource(strings = {"jdk", "openssl"})
    void sealingInPiecesFromAnyBufferMatchesOneSeal(String name) {
        SplittableRandom r = new SplittableRandom(SEED);
        byte[] key = bytes(r, 32);
        try (NoiseAead whole = NoiseCiphers.jdk().create(key);
                NoiseAead pieces = provider(name).create(key)) {
            for (int m = 0; m < 50; m++) {
                byte[] nonce = bytes(r, 12);
                byte[] plain = bytes(r, r.nextInt(0, 70_000));
                byte[] expected = whole.seal(nonce, null, plain);
                byte[] out = new byte[plain.length + 16];
                pieces.startSeal(nonce, null);
                int pos = 0;
                while (pos < plain.length) {
                    int n = Math.min(plain.length - pos, r.nextInt(1, 9000));
                    switch (r.nextInt(3)) {
                        case 0 -> pieces.sealUpdate(plain, pos, n, out, pos);
                        case 1 -> pieces.sealUpdate(ByteBuffer.wrap(plain, pos, n), out, pos);
                        default -> {
                            ByteBuffer d = ByteBuffer.allocateDirect(n + 5).position(5);
                            d.put(plain, pos, n).position(5);
                            pieces.sealUpdate(d, out, pos);
                            assertThat(d.position()).isEqualTo(5);
                        }
                    }
                    pos += n;
                }
                pieces.finishSeal(out, plain.length);
                assertThat(out).as("seed %x, message %d", SEED, m).isEqualTo(expected);
            }
        }
    }

    /** Sealing into a direct buffer (the frame the socket sends from) gives the bytes of an array seal. */
    @ParameterizedTest
    @ValueSource(strings = {"jdk", "openssl"})
    void sealingIntoADirectBufferMatchesOneSeal(String name) {
        SplittableRandom r = new SplittableRandom(SEED + 3);
        byte[] key = bytes(r, 32);
        try (NoiseAead whole = NoiseCiphers.jdk().create(key);
                NoiseAead pieces = provider(name).create(key)) {
            assertThat(pieces.directOutput()).isEqualTo(name.equals("openssl"));
            for (int m = 0; m < 30; m++) {
                byte[] nonce = bytes(r, 12);
                byte[] plain = bytes(r, r.nextInt(0, 65520));
                byte[] expected = whole.seal(nonce, null, plain);
                ByteBuffer out = ByteBuffer.allocateDirect(plain.length + 16 + 3);
                pieces.startSeal(nonce, null);
                int pos = 0;
                while (pos < plain.length) {
                    int n = Math.min(plain.length - pos, r.nextInt(1, 9000));
                    ByteBuffer in = r.nextBoolean()
                            ? ByteBuffer.wrap(plain, pos, n)
                            : ByteBuffer.allocateDirect(n).put(0, plain, pos, n);
                    pieces.sealUpdate(in, out.slice(3 + pos, n));
                    pos += n;
                }
                pieces.finishSeal(out.slice(3 + plain.length, 16));
                byte[] got = new byte[plain.length + 16];
                out.get(3, got);
                assertThat(got).as("seed %x, message %d", SEED + 3, m).isEqualTo(expected);
            }
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"jdk", "openssl"})
    void opensInPlace(String name) {
        SplittableRandom r = new SplittableRandom(SEED + 1);
        byte[] key = bytes(r, 32);
        byte[] nonce = bytes(r, 12);
        byte[] plain = bytes(r, 65519);
        try (NoiseAead a = provider(name).create(key)) {
            byte[] frame = new byte[plain.length + 16 + 7];
            System.arraycopy(a.seal(nonce, null, plain), 0, frame, 7, plain.length + 16);
            assertThat(a.open(nonce, null, frame, 7, plain.length + 16, frame, 7))
                    .isEqualTo(plain.length);
            assertThat(Arrays.copyOfRange(frame, 7, 7 + plain.length)).isEqualTo(plain);
        }
    }

    static Stream<Arguments> tamperings() {
        List<Arguments> out = new ArrayList<>();
        for (String p : List.of("jdk", "openssl")) {
            for (String t : List.of("tag", "ciphertext", "ad", "nonce", "truncated")) {
                out.add(Arguments.of(p, t));
            }
        }
        return out.stream();
    }

    @ParameterizedTest(name = "{0}: {1}")
    @MethodSource("tamperings")
    void aTamperedMessageIsRefusedAndLeavesNoPlaintext(String name, String tampering) {
        SplittableRandom r = new SplittableRandom(SEED + 2);
        byte[] key = bytes(r, 32);
        byte[] nonce = bytes(r, 12);
        byte[] ad = bytes(r, 32);
        byte[] plain = bytes(r, 3000);
        byte[] sealed = NoiseCiphers.jdk().create(key).seal(nonce, ad, plain);
        byte[] usedAd = ad.clone();
        byte[] usedNonce = nonce.clone();
        int len = sealed.length;
        switch (tampering) {
            case "tag" -> sealed[sealed.length - 3] ^= 0x40;
            case "ciphertext" -> sealed[1234] ^= 1;
            case "ad" -> usedAd[0] ^= 1;
            case "nonce" -> usedNonce[11] ^= 1;
            default -> len = 15;
        }
        try (NoiseAead a = provider(name).create(key)) {
            byte[] frame = sealed.clone();
            int n = len;
            assertThatThrownBy(() -> a.open(usedNonce, usedAd, frame, 0, n, frame, 0))
                    .isInstanceOf(NoiseException.class);
            if (!tampering.equals("truncated")) {
                // Opened in place: whatever was written over the ciphertext is not the plaintext.
                byte[] region = Arrays.copyOf(frame, plain.length);
                assertThat(region).isNotEqualTo(plain);
                assertThat(countEqual(region, plain)).isLessThan(100);
            }
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"jdk", "openssl"})
    void aClosedCipherRefusesUse(String name) {
        NoiseAead a = provider(name).create(new byte[32]);
        a.close();
        a.close();
        assertThatThrownBy(() -> a.seal(new byte[12], null, new byte[10])).isInstanceOf(NoiseException.class);
        assertThatThrownBy(() -> a.open(new byte[12], null, new byte[20])).isInstanceOf(NoiseException.class);
    }

    @Test
    void aKeyOfTheWrongLengthIsRefused() {
        assertThatThrownBy(() -> openssl.create(new byte[31])).hasMessageContaining("32 bytes");
        assertThatThrownBy(() -> NoiseCiphers.jdk().create(new byte[33])).hasMessageContaining("32 bytes");
    }

    private static int countEqual(byte[] a, byte[] b) {
        int n = 0;
        for (int i = 0; i < a.length; i++) {
            n += a[i] == b[i] ? 1 : 0;
        }
        return n;
    }

    private static byte[] bytes(SplittableRandom r, int n) {
        byte[] b = new byte[n];
        r.nextBytes(b);
        return b;
    }
}
