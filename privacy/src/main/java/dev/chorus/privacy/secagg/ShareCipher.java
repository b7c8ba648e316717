package dev.chorus.privacy.secagg;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.util.Arrays;
import javax.crypto.AEADBadTagException;
import javax.crypto.Cipher;
import javax.crypto.spec.IvParameterSpec;
import javax.crypto.spec.SecretKeySpec;

/**
 * Encryption of a member's two Shamir shares to one neighbour, so that the relay that routes them learns nothing:
 * ChaCha20-Poly1305 (RFC 8439) under HKDF-SHA256(salt = {@value #SALT}, ikm = X25519(share keys), info = round ID,
 * min, max). Both directions of a pair share the key, so the nonce is (sender, recipient, 0): never the same twice
 * under one key. The associated data binds the round ID, the sender and the recipient, so that a ciphertext replayed
 * into another round or to another member fails to open.
 */
final class ShareCipher {

    static final String SALT = "chorus/secagg/share-aead/v1";
    /** Two share values and the 16-byte tag. */
    static final int CIPHERTEXT_BYTES = 2 * ShamirShare.VALUE_BYTES + 16;

    private ShareCipher() {}

    static byte[] seal(byte[] privateKey, byte[] peerPublicKey, byte[] roundId, int from, int to, byte[] plaintext) {
        return run(Cipher.ENCRYPT_MODE, privateKey, peerPublicKey, roundId, from, to, plaintext);
    }

    /** The plaintext; a {@link SecAggException} if the ciphertext was not sealed by {@code from} to {@code to}. */
    static byte[] open(byte[] privateKey, byte[] peerPublicKey, byte[] roundId, int from, int to, byte[] ciphertext) {
        return run(Cipher.DECRYPT_MODE, privateKey, peerPublicKey, roundId, from, to, ciphertext);
    }

    private static byte[] run(
            int mode, byte[] privateKey, byte[] peerPublicKey, byte[] roundId, int from, int to, byte[] input) {
        byte[] secret = X25519.sharedSecret(privateKey, peerPublicKey);
        byte[] info = ByteBuffer.allocate(roundId.length + 8)
                .put(roundId)
                .putInt(Math.min(from, to))
                .putInt(Math.max(from, to))
                .array();
        byte[] key = Hkdf.derive(SALT.getBytes(StandardCharsets.US_ASCII), secret, info, 32);
        Arrays.fill(secret, (byte) 0);
        byte[] nonce = ByteBuffer.allocate(12).putInt(from).putInt(to).array();
        byte[] aad = ByteBuffer.allocate(roundId.length + 8)
                .put(roundId)
                .putInt(from)
                .putInt(to)
                .array();
        try {
            Cipher cipher = Cipher.getInstance("ChaCha20-Poly1305");
            cipher.init(mode, new SecretKeySpec(key, "ChaCha20"), new IvParameterSpec(nonce));
            cipher.updateAAD(aad);
            return cipher.doFinal(input);
        } catch (AEADBadTagException e) {
            throw new SecAggException("the share from member " + from + " to " + to + " does not open", e);
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("ChaCha20-Poly1305 is missing from this JDK", e);
        } finally {
            Arrays.fill(key, (byte) 0);
        }
    }
}
