package dev.chorus.privacy.secagg;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/** The binary encoding: round trips, and refusal of malformed input before allocation. */
class SecAggMessageTest {

    private static List<SecAggMessage> samples(Random random) {
        byte[] id = bytes(random, 1 + random.nextInt(SecAggMessage.MAX_ROUND_ID));
        SecAggMessage.Advertise ad = new SecAggMessage.Advertise(
                id, random.nextInt(100), bytes(random, 32), bytes(random, 32), bytes(random, 64));
        List<SecAggMessage.SealedShare> sealed = List.of(
                new SecAggMessage.SealedShare(3, bytes(random, ShareCipher.CIPHERTEXT_BYTES)),
                new SecAggMessage.SealedShare(9, bytes(random, ShareCipher.CIPHERTEXT_BYTES)));
        SecAggMessage.ConsistencySignature sig = new SecAggMessage.ConsistencySignature(id, 4, bytes(random, 64));
        return List.of(
                ad,
                new SecAggMessage.AdvertiseSet(id, List.of(ad, ad)),
                new SecAggMessage.ShareKeys(id, 1, sealed),
                new SecAggMessage.ShareDelivery(id, 2, sealed),
                new SecAggMessage.MaskedInput(id, 5, random.ints(37).toArray()),
                new SecAggMessage.MaskedInput(id, 6, 16, narrow(random, 37)),
                new SecAggMessage.SurvivorSet(id, new int[] {0, 2, 5}),
                sig,
                new SecAggMessage.ConsistencySignatures(id, List.of(sig, sig)),
                new SecAggMessage.UnmaskShares(
                        id,
                        6,
                        List.of(
                                new SecAggMessage.RevealedShare(1, Recovery.Secret.SELF_MASK_SEED, bytes(random, 33)),
                                new SecAggMessage.RevealedShare(2, Recovery.Secret.MASK_KEY, bytes(random, 33)))),
                new SecAggMessage.Result(id, random.ints(11).toArray()),
                new SecAggMessage.Abort(id, "too few members signed"));
    }

    @ParameterizedTest(name = "seed {0}")
    @MethodSource("dev.chorus.privacy.secagg.Seeds#seeds")
    void everyMessageSurvivesARoundTrip(long seed) {
        for (SecAggMessage m : samples(new Random(seed))) {
            byte[] wire = m.encode();
            SecAggMessage back = SecAggMessage.decode(wire);
            assertTrue(back.getClass() == m.getClass());
            assertArrayEquals(m.roundId(), back.roundId());
            assertArrayEquals(wire, back.encode());
        }
    }

    @ParameterizedTest(name = "seed {0}")
    @MethodSource("dev.chorus.privacy.secagg.Seeds#seeds")
    void everyTruncationAndTrailingByteIsRefused(long seed) {
        for (SecAggMessage m : samples(new Random(seed))) {
            byte[] wire = m.encode();
            for (int cut = 0; cut < wire.length; cut++) {
                byte[] shortened = Arrays.copyOf(wire, cut);
                assertThrows(SecAggException.class, () -> SecAggMessage.decode(shortened));
            }
            byte[] longer = Arrays.copyOf(wire, wire.length + 1);
            assertThrows(SecAggException.class, () -> SecAggMessage.decode(longer));
        }
    }

    @ParameterizedTest(name = "seed {0}")
    @MethodSource("dev.chorus.privacy.secagg.Seeds#seeds")
    void randomBytesAreRefusedOrDecodeCleanly(long seed) {
        Random random = new Random(seed);
        for (int i = 0; i < 200; i++) {
            byte[] junk = bytes(random, random.nextInt(200));
            if (junk.length > 0) {
                junk[0] = (byte) (1 + random.nextInt(12));
            }
            try {
                SecAggMessage.decode(junk);
            } catch (SecAggException expected) {
                // Refused with a reason; anything else (an IndexOutOfBounds, an OutOfMemoryError) fails the test.
            }
        }
    }

    /** {@code n} words, every one but the last in 0..65535, as a 16-bit masked input holds them. */
    private static int[] narrow(Random random, int n) {
        int[] out = random.ints(n).toArray();
        for (int i = 0; i < n - 1; i++) {
            out[i] &= 0xFFFF;
        }
        return out;
    }

    @Test
    void aSixteenBitMaskedInputTakesTwoBytesAWordAndFourForItsCount() {
        int[] words = {0, 0xFFFF, 0x1234, 0xCAFE_F00D};
        SecAggMessage.MaskedInput m = new SecAggMessage.MaskedInput(new byte[] {7}, 2, 16, words);
        byte[] wire = m.encode();
        // tag, round ID (length + 1 byte), member, count, three 2-byte words, one 4-byte word
        assertEquals(1 + 4 + 1 + 4 + 4 + 3 * 2 + 4, wire.length);
        SecAggMessage.MaskedInput back = (SecAggMessage.MaskedInput) SecAggMessage.decode(wire);
        assertEquals(16, back.wordBits());
        assertArrayEquals(words, back.masked());
        byte[] empty = ByteBuffer.allocate(14)
                .put((byte) 12)
                .putInt(1)
                .put((byte) 7)
                .putInt(0)
                .putInt(0)
                .array();
        SecAggException e = assertThrows(SecAggException.class, () -> SecAggMessage.decode(empty));
        assertTrue(e.getMessage().contains("is empty"), e.getMessage());
        assertThrows(SecAggException.class, () -> new SecAggMessage.MaskedInput(new byte[] {7}, 2, 8, words));
    }

    @Test
    void hugeDeclaredLengthsAreRefusedBeforeAllocating() {
        byte[] id = {7};
        byte[] masked = ByteBuffer.allocate(1 + 4 + 1 + 4 + 4)
                .put((byte) 5)
                .putInt(1)
                .put((byte) 7)
                .putInt(0)
                .putInt(Integer.MAX_VALUE)
                .array();
        SecAggException e = assertThrows(SecAggException.class, () -> SecAggMessage.decode(masked));
        assertTrue(e.getMessage().contains("declares"), e.getMessage());
        byte[] within = ByteBuffer.allocate(14)
                .put((byte) 5)
                .putInt(1)
                .put((byte) 7)
                .putInt(0)
                .putInt(SecAggMessage.MAX_WORDS)
                .array();
        e = assertThrows(SecAggException.class, () -> SecAggMessage.decode(within));
        assertTrue(e.getMessage().contains("ends inside"), e.getMessage());
        byte[] longId = ByteBuffer.allocate(5)
                .put((byte) 11)
                .putInt(SecAggMessage.MAX_ROUND_ID + 1)
                .array();
        assertThrows(SecAggException.class, () -> SecAggMessage.decode(longId));
        byte[] unknown = new SecAggMessage.Abort(id, "x").encode();
        unknown[0] = 99;
        e = assertThrows(SecAggException.class, () -> SecAggMessage.decode(unknown));
        assertTrue(e.getMessage().contains("unknown message type"), e.getMessage());
        byte[] badKey = new SecAggMessage.Advertise(id, 1, new byte[31], new byte[32], new byte[64]).encode();
        assertThrows(SecAggException.class, () -> SecAggMessage.decode(badKey));
        byte[] negativeMember = ByteBuffer.allocate(14)
                .put((byte) 5)
                .putInt(1)
                .put((byte) 7)
                .putInt(-1)
                .putInt(0)
                .array();
        assertThrows(SecAggException.class, () -> SecAggMessage.decode(negativeMember));
    }

    private static byte[] bytes(Random random, int length) {
        byte[] out = new byte[length];
        random.nextBytes(out);
        return out;
    }
}
