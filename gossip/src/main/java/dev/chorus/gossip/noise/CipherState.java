package dev.chorus.gossip.noise;

import java.nio.ByteBuffer;
import java.security.GeneralSecurityException;
import javax.crypto.AEADBadTagException;
import javax.crypto.Cipher;
import javax.crypto.spec.IvParameterSpec;
import javax.crypto.spec.SecretKeySpec;

/**
 * Noise CipherState (spec §5.1) for ChaChaPoly: a key and a 64-bit nonce, encoded as 4 zero bytes ++
 * the counter little-endian (spec §12.3). Not thread-safe: each direction of a connection owns one.
 */
final class CipherState {
    static final int TAG_LENGTH = 16;

    private SecretKeySpec key;
    private long nonce;
    private final Cipher cipher;
    private final byte[] iv = new byte[12];

    CipherState() {
        try {
            cipher = Cipher.getInstance("ChaCha20-Poly1305");
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("the JDK lacks ChaCha20-Poly1305", e);
        }
    }

    void initializeKey(byte[] k) {
        key = new SecretKeySpec(k, "ChaCha20");
        nonce = 0;
    }

    boolean hasKey() {
        return key != null;
    }

    long nonce() {
        return nonce;
    }

    /** For tests that probe nonce exhaustion. */
    void setNonce(long n) {
        nonce = n;
    }

    byte[] encryptWithAd(byte[] ad, byte[] plaintext) {
        if (key == null) {
            return plaintext.clone();
        }
        byte[] out = new byte[plaintext.length + TAG_LENGTH];
        encrypt(ad, ByteBuffer.wrap(plaintext), ByteBuffer.wrap(out));
        return out;
    }

    byte[] decryptWithAd(byte[] ad, byte[] ciphertext) {
        if (key == null) {
            return ciphertext.clone();
        }
        if (ciphertext.length < TAG_LENGTH) {
            throw new NoiseException("ciphertext shorter than the authentication tag");
        }
        byte[] out = new byte[ciphertext.length - TAG_LENGTH];
        decrypt(ad, ByteBuffer.wrap(ciphertext), ByteBuffer.wrap(out));
        return out;
    }

    /** Encrypts all of {@code in} into {@code out} (which needs {@code in.remaining() + 16} bytes). */
    void encrypt(byte[] ad, ByteBuffer in, ByteBuffer out) {
        try {
            cipher.init(Cipher.ENCRYPT_MODE, key, nextIv());
            if (ad != null) {
                cipher.updateAAD(ad);
            }
            cipher.doFinal(in, out);
        } catch (GeneralSecurityException e) {
            throw new NoiseException("encryption failed", e);
        }
    }

    void decrypt(byte[] ad, ByteBuffer in, ByteBuffer out) {
        try {
            cipher.init(Cipher.DECRYPT_MODE, key, nextIv());
            if (ad != null) {
                cipher.updateAAD(ad);
            }
            cipher.doFinal(in, out);
        } catch (AEADBadTagException e) {
            throw new NoiseException("message authentication failed");
        } catch (GeneralSecurityException e) {
            throw new NoiseException("decryption failed", e);
        }
    }

    /**
     * Starts encrypting one transport message; feed it with {@link #encryptUpdate} and end it with
     * {@link #finishEncryption}. The JDK's ChaCha20-Poly1305 works on arrays: heap arrays in and out avoid
     * the temporary copies its {@code ByteBuffer} path makes for direct buffers.
     */
    void startEncryption() {
        try {
            cipher.init(Cipher.ENCRYPT_MODE, key, nextIv());
        } catch (GeneralSecurityException e) {
            throw new NoiseException("encryption failed", e);
        }
    }

    /** Encrypts {@code len} bytes; {@code out} may be {@code in} at the same offset (in place). */
    void encryptUpdate(byte[] in, int inOff, int len, byte[] out, int outOff) {
        try {
            cipher.update(in, inOff, len, out, outOff);
        } catch (GeneralSecurityException e) {
            throw new NoiseException("encryption failed", e);
        }
    }

    /** Writes the 16-byte tag of the message at {@code out[outOff]}. */
    void finishEncryption(byte[] out, int outOff) {
        try {
            cipher.doFinal(out, outOff);
        } catch (GeneralSecurityException e) {
            throw new NoiseException("encryption failed", e);
        }
    }

    /**
     * Decrypts {@code len} bytes of ciphertext and tag into {@code out} (which may be {@code in} at the
     * same offset); returns the plaintext length. Nothing is written unless the tag verifies.
     */
    int decrypt(byte[] in, int inOff, int len, byte[] out, int outOff) {
        try {
            cipher.init(Cipher.DECRYPT_MODE, key, nextIv());
            return cipher.doFinal(in, inOff, len, out, outOff);
        } catch (AEADBadTagException e) {
            throw new NoiseException("message authentication failed");
        } catch (GeneralSecurityException e) {
            throw new NoiseException("decryption failed", e);
        }
    }

    private IvParameterSpec nextIv() {
        // Spec §5.1: the nonce 2^64-1 is reserved; refuse before reaching it.
        if (nonce == -1L) {
            throw new NoiseException("nonce exhausted; the connection must be closed");
        }
        long n = nonce++;
        for (int i = 0; i < 8; i++) {
            iv[4 + i] = (byte) (n >>> (8 * i));
        }
        return new IvParameterSpec(iv);
    }
}
