package dev.chorus.gossip.noise;

import java.nio.ByteBuffer;

/**
 * Noise CipherState (spec §5.1) for ChaChaPoly: a key and a 64-bit nonce, encoded as 4 zero bytes ++
 * the counter little-endian (spec §12.3). The cipher itself comes from an {@link AeadProvider}, keyed
 * once per key. Not thread-safe: each direction of a connection owns one.
 */
final class CipherState implements AutoCloseable {
    static final int TAG_LENGTH = NoiseAead.TAG_LENGTH;

    private final AeadProvider provider;
    private NoiseAead aead;
    private long nonce;
    private final byte[] iv = new byte[NoiseAead.NONCE_LENGTH];

    /** A cipher state on the JDK's implementation. */
    CipherState() {
        this(JdkAead.PROVIDER);
    }

    CipherState(AeadProvider provider) {
        this.provider = provider;
    }

    void initializeKey(byte[] k) {
        NoiseAead previous = aead;
        aead = provider.create(k);
        if (previous != null) {
            previous.close();
        }
        nonce = 0;
    }

    boolean hasKey() {
        return aead != null;
    }

    /** The implementation's name, {@code jdk} or {@code openssl}. */
    String providerName() {
        return provider.name();
    }

    long nonce() {
        return nonce;
    }

    /** For tests that probe nonce exhaustion. */
    void setNonce(long n) {
        nonce = n;
    }

    byte[] encryptWithAd(byte[] ad, byte[] plaintext) {
        if (aead == null) {
            return plaintext.clone();
        }
        return aead.seal(nextIv(), ad, plaintext);
    }

    byte[] decryptWithAd(byte[] ad, byte[] ciphertext) {
        if (aead == null) {
            return ciphertext.clone();
        }
        if (ciphertext.length < TAG_LENGTH) {
            throw new NoiseException("ciphertext shorter than the authentication tag");
        }
        return aead.open(nextIv(), ad, ciphertext);
    }

    /**
     * Starts encrypting one transport message; feed it with {@link #encryptUpdate} and end it with
     * {@link #finishEncryption}.
     */
    void startEncryption() {
        aead.startSeal(nextIv(), null);
    }

    /** Encrypts {@code len} bytes; {@code out} may be {@code in} at the same offset (in place). */
    void encryptUpdate(byte[] in, int inOff, int len, byte[] out, int outOff) {
        aead.sealUpdate(in, inOff, len, out, outOff);
    }

    /** Encrypts the remaining bytes of {@code in}, heap or direct, into {@code out}; leaves its position. */
    void encryptUpdate(ByteBuffer in, byte[] out, int outOff) {
        aead.sealUpdate(in, out, outOff);
    }

    /** Whether the cipher writes into direct memory as cheaply as into an array; see {@link NoiseAead#directOutput}. */
    boolean directOutput() {
        return aead != null && aead.directOutput();
    }

    /** Encrypts the remaining bytes of {@code in} into {@code out} at its position; moves neither position. */
    void encryptUpdate(ByteBuffer in, ByteBuffer out) {
        aead.sealUpdate(in, out);
    }

    /** Writes the 16-byte tag of the message at {@code out}'s position. */
    void finishEncryption(ByteBuffer out) {
        aead.finishSeal(out);
    }

    /** Writes the 16-byte tag of the message at {@code out[outOff]}. */
    void finishEncryption(byte[] out, int outOff) {
        aead.finishSeal(out, outOff);
    }

    /**
     * Decrypts {@code len} bytes of ciphertext and tag into {@code out} (which may be {@code in} at the
     * same offset); returns the plaintext length. No plaintext is left in {@code out} unless the tag
     * verifies.
     */
    int decrypt(byte[] in, int inOff, int len, byte[] out, int outOff) {
        return aead.open(nextIv(), null, in, inOff, len, out, outOff);
    }

    /** Frees the cipher (native memory with libcrypto); later use fails with a {@link NoiseException}. */
    @Override
    public void close() {
        if (aead != null) {
            aead.close();
        }
    }

    private byte[] nextIv() {
        // Spec §5.1: the nonce 2^64-1 is reserved; refuse before reaching it.
        if (nonce == -1L) {
            throw new NoiseException("nonce exhausted; the connection must be closed");
        }
        long n = nonce++;
        for (int i = 0; i < 8; i++) {
            iv[4 + i] = (byte) (n >>> (8 * i));
        }
        return iv;
    }
}
