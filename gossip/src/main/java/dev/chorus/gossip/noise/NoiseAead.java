package dev.chorus.gossip.noise;

import java.nio.ByteBuffer;

/**
 * ChaCha20-Poly1305 (RFC 8439) under one key, as one Noise CipherState uses it: keyed once, then one
 * message after another, each with its own 12-byte nonce. A message is sealed in pieces ({@link
 * #startSeal}, {@link #sealUpdate}, {@link #finishSeal}) so that a frame gathered from several buffers
 * needs no copy, and opened whole, since nothing may be released before its tag verifies.
 *
 * <p>Not thread-safe: each direction of a connection owns one and uses it on one thread. {@link #close}
 * frees what the implementation holds outside the heap; a closed instance refuses every call.
 */
public interface NoiseAead extends AutoCloseable {
    int KEY_LENGTH = 32;
    int NONCE_LENGTH = 12;
    int TAG_LENGTH = 16;

    /** Starts sealing one message under {@code nonce} (12 bytes), authenticating {@code ad} (null: none). */
    void startSeal(byte[] nonce, byte[] ad);

    /** Encrypts {@code len} bytes; {@code out} may be {@code in} at the same offset (in place). */
    void sealUpdate(byte[] in, int inOff, int len, byte[] out, int outOff);

    /** Encrypts the remaining bytes of {@code in} (heap or direct) into {@code out}; leaves its position. */
    void sealUpdate(ByteBuffer in, byte[] out, int outOff);

    /** Ends the message: writes its 16-byte tag at {@code out[outOff]}. */
    void finishSeal(byte[] out, int outOff);

    /**
     * Whether this implementation writes into direct memory as cheaply as into an array, so that a frame may be
     * sealed straight into the buffer the socket sends from.
     */
    boolean directOutput();

    /**
     * Encrypts the remaining bytes of {@code in} into {@code out} from its position on; moves neither position.
     * {@code out} needs room for them.
     */
    void sealUpdate(ByteBuffer in, ByteBuffer out);

    /** Ends the message: writes its 16-byte tag at {@code out}'s position, which does not move. */
    void finishSeal(ByteBuffer out);

    /**
     * Opens {@code len} bytes of ciphertext and tag into {@code out} (which may be {@code in} at the same
     * offset) and returns the plaintext length. When the tag does not verify it throws {@link
     * NoiseException} and leaves no plaintext behind: either nothing was written, or the bytes written are
     * zeroed again.
     */
    int open(byte[] nonce, byte[] ad, byte[] in, int inOff, int len, byte[] out, int outOff);

    /** Seals a whole message into a new array: ciphertext then tag. */
    default byte[] seal(byte[] nonce, byte[] ad, byte[] plaintext) {
        byte[] out = new byte[plaintext.length + TAG_LENGTH];
        startSeal(nonce, ad);
        sealUpdate(plaintext, 0, plaintext.length, out, 0);
        finishSeal(out, plaintext.length);
        return out;
    }

    /** Opens a whole message into a new array. */
    default byte[] open(byte[] nonce, byte[] ad, byte[] ciphertext) {
        if (ciphertext.length < TAG_LENGTH) {
            throw new NoiseException("ciphertext shorter than the authentication tag");
        }
        byte[] out = new byte[ciphertext.length - TAG_LENGTH];
        open(nonce, ad, ciphertext, 0, ciphertext.length, out, 0);
        return out;
    }

    @Override
    void close();
}
