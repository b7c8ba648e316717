package dev.chorus.privacy.secagg;

import java.security.GeneralSecurityException;
import java.util.Arrays;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * HKDF with HMAC-SHA256 (RFC 5869): {@link #extract} a pseudorandom key from input keying material and a salt, then
 * {@link #expand} it into as many bytes as needed, bound to an {@code info} label. Secure aggregation uses it to turn
 * an X25519 shared secret into a pairwise mask seed bound to the round, and a seed into a ChaCha20 key bound to a
 * label, so that no key is ever used for two purposes.
 */
public final class Hkdf {

    /** The HMAC-SHA256 output length, in bytes. */
    public static final int HASH_LENGTH = 32;

    /** RFC 5869 section 2.3: at most 255 blocks of output. */
    public static final int MAX_OUTPUT_LENGTH = 255 * HASH_LENGTH;

    private static final String HMAC = "HmacSHA256";

    private Hkdf() {}

    /** RFC 5869 section 2.2: PRK = HMAC-SHA256(salt, ikm); an empty salt stands for 32 zero bytes. */
    public static byte[] extract(byte[] salt, byte[] ikm) {
        byte[] key = salt.length == 0 ? new byte[HASH_LENGTH] : salt;
        Mac mac = mac(key);
        return mac.doFinal(ikm);
    }

    /** RFC 5869 section 2.3: T(i) = HMAC(PRK, T(i-1) | info | i), the first {@code length} bytes of T(1) | T(2)... */
    public static byte[] expand(byte[] prk, byte[] info, int length) {
        if (length < 0 || length > MAX_OUTPUT_LENGTH) {
            throw new SecAggException(
                    "HKDF output length " + length + " is outside 0.." + MAX_OUTPUT_LENGTH + " (RFC 5869 section 2.3)");
        }
        if (prk.length < HASH_LENGTH) {
            throw new SecAggException("HKDF pseudorandom key is " + prk.length + " bytes; at least 32 are needed");
        }
        Mac mac = mac(prk);
        byte[] out = new byte[length];
        byte[] block = new byte[0];
        int written = 0;
        for (int i = 1; written < length; i++) {
            mac.update(block);
            mac.update(info);
            mac.update((byte) i);
            block = mac.doFinal();
            int n = Math.min(block.length, length - written);
            System.arraycopy(block, 0, out, written, n);
            written += n;
        }
        Arrays.fill(block, (byte) 0);
        return out;
    }

    /** Extract then expand: {@code length} bytes derived from {@code ikm}, bound to {@code salt} and {@code info}. */
    public static byte[] derive(byte[] salt, byte[] ikm, byte[] info, int length) {
        byte[] prk = extract(salt, ikm);
        try {
            return expand(prk, info, length);
        } finally {
            Arrays.fill(prk, (byte) 0);
        }
    }

    private static Mac mac(byte[] key) {
        try {
            Mac mac = Mac.getInstance(HMAC);
            mac.init(new SecretKeySpec(key, HMAC));
            return mac;
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("the JDK lacks " + HMAC, e);
        }
    }
}
