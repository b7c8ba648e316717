package dev.chorus.gossip.identity;

/**
 * An implementation of Ed25519 (RFC 8032, pure: the message itself is hashed, twice to sign and once to verify).
 * Every implementation gives the same signatures, so the choice is local: peers need not agree on it. See {@link
 * Ed25519Engines}.
 */
public interface Ed25519Engine {
    /** {@code bc} or {@code openssl}. */
    String name();

    /** The 64-byte signature of {@code message} by the key with this 32-byte seed and public key. */
    byte[] sign(byte[] seed, byte[] publicKey, byte[] message);

    /**
     * Signs with one key again and again: an implementation whose key takes work to set up (libcrypto derives the
     * public key from the seed) sets it up once. Safe to share between threads.
     */
    default Signer signer(byte[] seed, byte[] publicKey) {
        byte[] s = seed.clone();
        byte[] p = publicKey.clone();
        return message -> sign(s, p, message);
    }

    /** One key's signatures; see {@link #signer}. */
    @FunctionalInterface
    interface Signer {
        /** The 64-byte signature of {@code message}. */
        byte[] sign(byte[] message);
    }

    /**
     * Whether {@code signature} (64 bytes) is that of {@code message} by {@code publicKey} (32 bytes); false for a
     * public key that is not a point of the curve.
     */
    boolean verify(byte[] publicKey, byte[] message, byte[] signature);
}
