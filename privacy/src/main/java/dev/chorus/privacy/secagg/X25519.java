package dev.chorus.privacy.secagg;

import java.security.SecureRandom;
import org.bouncycastle.crypto.agreement.X25519Agreement;
import org.bouncycastle.crypto.params.X25519PrivateKeyParameters;
import org.bouncycastle.crypto.params.X25519PublicKeyParameters;

/**
 * X25519 Diffie-Hellman (RFC 7748) through Bouncy Castle. Each member of a secure-aggregation group holds two X25519
 * key pairs per round: one whose agreement with a neighbour's gives the pairwise mask seed, one whose agreement
 * encrypts the Shamir shares sent to that neighbour. Keys are the raw 32-byte strings of RFC 7748 section 5.
 */
public final class X25519 {

    /** The length of a private key, a public key and a shared secret, in bytes. */
    public static final int KEY_LENGTH = 32;

    private X25519() {}

    /** A private key and its public key, both 32 bytes; the arrays returned are copies. */
    public static final class KeyPair {
        private final byte[] privateKey;
        private final byte[] publicKey;

        private KeyPair(byte[] privateKey, byte[] publicKey) {
            this.privateKey = privateKey;
            this.publicKey = publicKey;
        }

        public byte[] privateKey() {
            return privateKey.clone();
        }

        public byte[] publicKey() {
            return publicKey.clone();
        }
    }

    /** A fresh key pair from {@code random}. */
    public static KeyPair generate(SecureRandom random) {
        X25519PrivateKeyParameters key = new X25519PrivateKeyParameters(random);
        return new KeyPair(key.getEncoded(), key.generatePublicKey().getEncoded());
    }

    /** The key pair of a given private key (RFC 7748 section 6.1: the public key is X25519(k, 9)). */
    public static KeyPair fromPrivateKey(byte[] privateKey) {
        checkLength("private key", privateKey);
        X25519PrivateKeyParameters key = new X25519PrivateKeyParameters(privateKey, 0);
        return new KeyPair(key.getEncoded(), key.generatePublicKey().getEncoded());
    }

    /**
     * X25519(privateKey, peerPublicKey), the 32-byte shared secret. An all-zero result, which a small-order public
     * key forces whatever the private key (RFC 7748 section 6.1), is refused: a peer could otherwise make its
     * pairwise mask known to everyone.
     */
    public static byte[] sharedSecret(byte[] privateKey, byte[] peerPublicKey) {
        checkLength("private key", privateKey);
        checkLength("public key", peerPublicKey);
        X25519Agreement agreement = new X25519Agreement();
        agreement.init(new X25519PrivateKeyParameters(privateKey, 0));
        byte[] secret = new byte[agreement.getAgreementSize()];
        try {
            agreement.calculateAgreement(new X25519PublicKeyParameters(peerPublicKey, 0), secret, 0);
        } catch (IllegalStateException e) {
            throw new SecAggException(
                    "X25519 agreement gave the all-zero secret: the peer's public key has small order");
        }
        return secret;
    }

    private static void checkLength(String what, byte[] key) {
        if (key.length != KEY_LENGTH) {
            throw new SecAggException("X25519 " + what + " is " + key.length + " bytes; it must be " + KEY_LENGTH);
        }
    }
}
