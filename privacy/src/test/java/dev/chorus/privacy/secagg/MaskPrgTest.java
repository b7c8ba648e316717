package dev.chorus.privacy.secagg;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * The mask generator: the raw ChaCha20 keystream against RFC 8439 (section 2.4.2 and appendix A.1 test vector #1),
 * through the same accumulation code as the masks, then the properties of the derived streams.
 */
class MaskPrgTest {

    private static final HexFormat HEX = HexFormat.of();

    /** Little-endian words of {@code bytes} (whose length is a multiple of 4). */
    private static int[] words(byte[] bytes) {
        int[] out = new int[bytes.length / 4];
        ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN).asIntBuffer().get(out);
        return out;
    }

    @Test
    void rfc8439AppendixA1VectorOneIsTheZeroKeyStream() {
        byte[] expected = HEX.parseHex("76b8e0ada0f13d90405d6ae55386bd28bdd219b8a08ded1aa836efcc8b770dc7"
                + "da41597c5157488d7724e03fb8d84a376a43b8f41518a11cc387b669b2ee6586");
        int[] stream = MaskPrg.keystreamWords(new byte[32], new byte[12], 0, 16);
        assertThat(stream).isEqualTo(words(expected));
    }

    @Test
    void rfc8439Section242SunscreenKeystream() {
        byte[] key = new byte[32];
        for (int i = 0; i < 32; i++) {
            key[i] = (byte) i;
        }
        byte[] nonce = HEX.parseHex("000000000000004a00000000");
        byte[] plaintext = ("Ladies and Gentlemen of the class of '99: If I could offer you only one tip for the"
                        + " future, sunscreen would be it.")
                .getBytes(StandardCharsets.US_ASCII);
        byte[] ciphertext = HEX.parseHex("6e2e359a2568f98041ba0728dd0d6981e97e7aec1d4360c20a27afccfd9fae0b"
                + "f91b65c5524733ab8f593dabcd62b3571639d624e65152ab8f530c359f0861d8"
                + "07ca0dbf500d6a6156a38e088a22b65e52bc514d16ccf806818ce91ab7793736"
                + "5af90bbf74a35be6b40b8eedf2785e42874d");
        // The keystream is ciphertext XOR plaintext; compare its first 28 words (112 of the 114 bytes).
        byte[] keystream = new byte[112];
        for (int i = 0; i < keystream.length; i++) {
            keystream[i] = (byte) (ciphertext[i] ^ plaintext[i]);
        }
        assertThat(MaskPrg.keystreamWords(key, nonce, 1, 28)).isEqualTo(words(keystream));
    }

    @Test
    void aStreamIsDeterministicAndItsPrefixesAgreeAcrossBufferBoundaries() {
        byte[] seed = seed(1);
        byte[] label = MaskPrg.label("self", "round-7");
        int[] longer = MaskPrg.expand(seed, label, 10_000);
        assertThat(MaskPrg.expand(seed, label, 10_000)).isEqualTo(longer);
        // 4096 words fill one 16 KiB buffer exactly; 4097 cross into a second.
        assertThat(MaskPrg.expand(seed, label, 4097)).isEqualTo(Arrays.copyOf(longer, 4097));
        assertThat(MaskPrg.expand(seed, label, 3)).isEqualTo(Arrays.copyOf(longer, 3));
        assertThat(MaskPrg.expand(seed, label, 0)).isEmpty();
    }

    @Test
    void differentSeedsOrLabelsGiveUnrelatedStreams() {
        int[] base = MaskPrg.expand(seed(1), MaskPrg.label("self", "round-7"), 1000);
        int[] otherSeed = MaskPrg.expand(seed(2), MaskPrg.label("self", "round-7"), 1000);
        int[] otherRound = MaskPrg.expand(seed(1), MaskPrg.label("self", "round-8"), 1000);
        int[] otherPurpose = MaskPrg.expand(seed(1), MaskPrg.label("pairwise", "round-7"), 1000);
        for (int[] other : new int[][] {otherSeed, otherRound, otherPurpose}) {
            // Two independent uniform streams agree on a word with probability 2^-32.
            int equal = 0;
            for (int i = 0; i < base.length; i++) {
                equal += base[i] == other[i] ? 1 : 0;
            }
            assertThat(equal).isZero();
        }
    }

    @Test
    void addThenSubtractRestoresTheVector() {
        Random random = new Random(42);
        int[] vector = random.ints(5000).toArray();
        int[] copy = vector.clone();
        MaskPrg.add(vector, seed(3), MaskPrg.label("pairwise", "r"));
        assertThat(vector).isNotEqualTo(copy);
        MaskPrg.subtract(vector, seed(3), MaskPrg.label("pairwise", "r"));
        assertThat(vector).isEqualTo(copy);
    }

    @Test
    void aSeedOfTheWrongLengthIsRefused() {
        assertThatThrownBy(() -> MaskPrg.expand(new byte[16], new byte[0], 4))
                .isInstanceOf(SecAggException.class)
                .hasMessageContaining("16 bytes");
    }

    private static byte[] seed(int value) {
        byte[] seed = new byte[32];
        new Random(value).nextBytes(seed);
        return seed;
    }
}
