package dev.chorus.privacy.secagg;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.util.Arrays;
import javax.crypto.Cipher;
import javax.crypto.spec.ChaCha20ParameterSpec;
import javax.crypto.spec.SecretKeySpec;

/**
 * The mask generator: a 32-byte seed and a label expand into a stream of uint32 words, added to or subtracted from a
 * vector in Z_2^32.
 *
 * <p>Construction: key = HKDF-SHA256(salt = {@value #SALT}, ikm = seed, info = label, 32 bytes); the stream is the
 * ChaCha20 keystream (RFC 8439, the JDK's {@code "ChaCha20"} cipher) under that key with the all-zero 96-bit nonce and
 * block counter 0; word i is keystream bytes 4i..4i+3 read little-endian. The label carries the round ID and the
 * mask's purpose (self mask or pairwise mask), so one seed never yields the same stream in two rounds or for two
 * purposes; since each (seed, label) gives its own key, the fixed nonce is never reused under one key for different
 * streams. The 32-bit block counter bounds a stream at 2^36 words, far above any model.
 *
 * <p>Words go through a 16 KiB buffer and the cipher's bulk {@code update}, so expanding d words costs one pass and
 * no per-word allocation.
 */
public final class MaskPrg {

    /** The HKDF salt that separates mask keys from every other key derived from the same secrets. */
    static final String SALT = "chorus/secagg/prg/v1";

    static final int KEY_LENGTH = 32;
    static final int NONCE_LENGTH = 12;

    private static final int CHUNK_BYTES = 16 * 1024;
    private static final byte[] ZEROS = new byte[CHUNK_BYTES];
    private static final VarHandle LITTLE_ENDIAN_INT =
            MethodHandles.byteArrayViewVarHandle(int[].class, ByteOrder.LITTLE_ENDIAN);

    private MaskPrg() {}

    /** The first {@code count} words of the stream of {@code seed} under {@code label}. */
    public static int[] expand(byte[] seed, byte[] label, int count) {
        int[] out = new int[count];
        add(out, seed, label);
        return out;
    }

    /** {@code target[i] += word i} (mod 2^32) for every i of {@code target}. */
    public static void add(int[] target, byte[] seed, byte[] label) {
        apply(target, seed, label, true);
    }

    /** {@code target[i] -= word i} (mod 2^32) for every i of {@code target}. */
    public static void subtract(int[] target, byte[] seed, byte[] label) {
        apply(target, seed, label, false);
    }

    /** A label of UTF-8 text, for a purpose and a round ID. */
    public static byte[] label(String purpose, String roundId) {
        return (purpose + "\u0000" + roundId).getBytes(StandardCharsets.UTF_8);
    }

    private static void apply(int[] target, byte[] seed, byte[] label, boolean add) {
        if (seed.length != KEY_LENGTH) {
            throw new SecAggException("mask seed is " + seed.length + " bytes; it must be " + KEY_LENGTH);
        }
        byte[] key = Hkdf.derive(SALT.getBytes(StandardCharsets.US_ASCII), seed, label, KEY_LENGTH);
        try {
            accumulate(cipher(key, new byte[NONCE_LENGTH], 0), target, add);
        } finally {
            Arrays.fill(key, (byte) 0);
        }
    }

    /**
     * The raw ChaCha20 keystream words for a key, nonce and initial block counter, through the same code as the
     * masks (visible for the RFC 8439 test vectors).
     */
    static int[] keystreamWords(byte[] key, byte[] nonce, int counter, int count) {
        int[] out = new int[count];
        accumulate(cipher(key, nonce, counter), out, true);
        return out;
    }

    private static void accumulate(Cipher cipher, int[] target, boolean add) {
        byte[] buffer = new byte[Math.min(CHUNK_BYTES, target.length * 4)];
        int word = 0;
        while (word < target.length) {
            int words = Math.min(buffer.length / 4, target.length - word);
            int bytes = words * 4;
            try {
                int produced = cipher.update(ZEROS, 0, bytes, buffer, 0);
                if (produced != bytes) {
                    throw new IllegalStateException("ChaCha20 produced " + produced + " bytes for " + bytes);
                }
            } catch (GeneralSecurityException e) {
                throw new IllegalStateException("ChaCha20 keystream failed", e);
            }
            if (add) {
                for (int i = 0; i < words; i++) {
                    target[word + i] += (int) LITTLE_ENDIAN_INT.get(buffer, i * 4);
                }
            } else {
                for (int i = 0; i < words; i++) {
                    target[word + i] -= (int) LITTLE_ENDIAN_INT.get(buffer, i * 4);
                }
            }
            word += words;
        }
        Arrays.fill(buffer, (byte) 0);
    }

    private static Cipher cipher(byte[] key, byte[] nonce, int counter) {
        try {
            // A fresh cipher per stream: the JDK refuses to re-initialise one ChaCha20 object with the same key and
            // nonce, and a cipher holds key state that must not be shared between threads.
            Cipher cipher = Cipher.getInstance("ChaCha20");
            cipher.init(
                    Cipher.ENCRYPT_MODE, new SecretKeySpec(key, "ChaCha20"), new ChaCha20ParameterSpec(nonce, counter));
            return cipher;
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("the JDK's ChaCha20 cipher is unavailable", e);
        }
    }
}
