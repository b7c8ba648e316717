package dev.chorus.gossip.noise;

import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/** Noise SymmetricState (spec §5.2) with SHA-256: chaining key, handshake hash and a CipherState. */
final class SymmetricState {
    static final String PROTOCOL_NAME = "Noise_XX_25519_ChaChaPoly_SHA256";
    static final int HASH_LEN = 32;

    private byte[] ck;
    private byte[] h;
    /**
     * The handshake's own cipher state is always the JDK's: it seals three short messages, and a handshake
     * that fails halfway leaves no native context behind.
     */
    private final CipherState cipher = new CipherState();

    private final AeadProvider transport;

    /** @param transport the implementation of the two transport cipher states that {@link #split} makes */
    SymmetricState(AeadProvider transport) {
        this.transport = transport;
        byte[] name = PROTOCOL_NAME.getBytes(StandardCharsets.US_ASCII);
        // The name is exactly HASHLEN bytes, so h = name, unhashed and unpadded (spec §5.2).
        h = name.clone();
        ck = name.clone();
    }

    byte[] handshakeHash() {
        return h.clone();
    }

    void mixHash(byte[] data) {
        h = sha256(h, data);
    }

    void mixKey(byte[] ikm) {
        byte[][] out = hkdf(ck, ikm, 2);
        ck = out[0];
        cipher.initializeKey(out[1]);
    }

    byte[] encryptAndHash(byte[] plaintext) {
        byte[] c = cipher.encryptWithAd(h, plaintext);
        mixHash(c);
        return c;
    }

    byte[] decryptAndHash(byte[] ciphertext) {
        byte[] p = cipher.decryptWithAd(h, ciphertext);
        mixHash(ciphertext);
        return p;
    }

    boolean hasKey() {
        return cipher.hasKey();
    }

    /** Spec §5.2 Split(): the initiator sends with the first, the responder with the second. */
    CipherState[] split() {
        byte[][] k = hkdf(ck, new byte[0], 2);
        CipherState c1 = new CipherState(transport);
        c1.initializeKey(k[0]);
        CipherState c2 = new CipherState(transport);
        c2.initializeKey(k[1]);
        return new CipherState[] {c1, c2};
    }

    /** Spec §4.3 HKDF with HMAC-SHA256. */
    static byte[][] hkdf(byte[] chainingKey, byte[] ikm, int outputs) {
        byte[] tempKey = hmac(chainingKey, ikm);
        byte[][] out = new byte[outputs][];
        byte[] prev = new byte[0];
        for (int i = 0; i < outputs; i++) {
            byte[] in = new byte[prev.length + 1];
            System.arraycopy(prev, 0, in, 0, prev.length);
            in[prev.length] = (byte) (i + 1);
            prev = hmac(tempKey, in);
            out[i] = prev;
        }
        return out;
    }

    static byte[] hmac(byte[] key, byte[] data) {
        try {
            Mac mac = Mac.getInstance("HmacSHA256");
            mac.init(new SecretKeySpec(key, "HmacSHA256"));
            return mac.doFinal(data);
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException(e);
        }
    }

    static byte[] sha256(byte[] a, byte[] b) {
        try {
            MessageDigest d = MessageDigest.getInstance("SHA-256");
            d.update(a);
            d.update(b);
            return d.digest();
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException(e);
        }
    }
}
