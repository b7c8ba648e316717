package dev.chorus.gossip.noise;

import java.nio.ByteBuffer;
import java.security.GeneralSecurityException;
import javax.crypto.AEADBadTagException;
import javax.crypto.Cipher;
import javax.crypto.spec.IvParameterSpec;
import javax.crypto.spec.SecretKeySpec;

/**
 * ChaCha20-Poly1305 from {@code javax.crypto}, present in every JDK. The JDK's cipher works on arrays
 * and copies direct buffers through temporary arrays, so a direct input is first copied into the output
 * and then encrypted in place there: one copy either way.
 */
final class JdkAead implements NoiseAead {
    /** The provider; every instance has its own {@link Cipher}. */
    static final AeadProvider PROVIDER = new AeadProvider() {
        @Override
        public String name() {
            return "jdk";
        }

        @Override
        public NoiseAead create(byte[] key) {
            return new JdkAead(key);
        }

        @Override
        public String toString() {
            return "jdk";
        }
    };

    private final Cipher cipher;
    private final SecretKeySpec key;
    private boolean closed;

    JdkAead(byte[] key) {
        if (key.length != KEY_LENGTH) {
            throw new IllegalArgumentException("a ChaCha20-Poly1305 key has 32 bytes, got " + key.length);
        }
        try {
            cipher = Cipher.getInstance("ChaCha20-Poly1305");
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("the JDK lacks ChaCha20-Poly1305", e);
        }
        this.key = new SecretKeySpec(key, "ChaCha20");
    }

    private void init(int mode, byte[] nonce, byte[] ad) throws GeneralSecurityException {
        if (closed) {
            throw new NoiseException("the cipher is closed");
        }
        cipher.init(mode, key, new IvParameterSpec(nonce));
        if (ad != null && ad.length > 0) {
            cipher.updateAAD(ad);
        }
    }

    @Override
    public void startSeal(byte[] nonce, byte[] ad) {
        try {
            init(Cipher.ENCRYPT_MODE, nonce, ad);
        } catch (GeneralSecurityException e) {
            throw new NoiseException("encryption failed", e);
        }
    }

    @Override
    public void sealUpdate(byte[] in, int inOff, int len, byte[] out, int outOff) {
        try {
            cipher.update(in, inOff, len, out, outOff);
        } catch (GeneralSecurityException e) {
            throw new NoiseException("encryption failed", e);
        }
    }

    @Override
    public void sealUpdate(ByteBuffer in, byte[] out, int outOff) {
        int len = in.remaining();
        if (in.hasArray()) {
            sealUpdate(in.array(), in.arrayOffset() + in.position(), len, out, outOff);
        } else {
            in.get(in.position(), out, outOff, len);
            sealUpdate(out, outOff, len, out, outOff);
        }
    }

    @Override
    public boolean directOutput() {
        return false;
    }

    @Override
    public void sealUpdate(ByteBuffer in, ByteBuffer out) {
        if (in.remaining() > out.remaining()) {
            throw new IllegalArgumentException("no room for " + in.remaining() + " bytes");
        }
        try {
            cipher.update(in.duplicate(), out.duplicate());
        } catch (GeneralSecurityException e) {
            throw new NoiseException("encryption failed", e);
        }
    }

    @Override
    public void finishSeal(ByteBuffer out) {
        try {
            cipher.doFinal(ByteBuffer.allocate(0), out.duplicate());
        } catch (GeneralSecurityException e) {
            throw new NoiseException("encryption failed", e);
        }
    }

    @Override
    public void finishSeal(byte[] out, int outOff) {
        try {
            cipher.doFinal(out, outOff);
        } catch (GeneralSecurityException e) {
            throw new NoiseException("encryption failed", e);
        }
    }

    @Override
    public int open(byte[] nonce, byte[] ad, byte[] in, int inOff, int len, byte[] out, int outOff) {
        if (len < TAG_LENGTH) {
            throw new NoiseException("ciphertext shorter than the authentication tag");
        }
        try {
            init(Cipher.DECRYPT_MODE, nonce, ad);
            // The JDK buffers the whole ciphertext and writes the plaintext only once the tag verifies.
            return cipher.doFinal(in, inOff, len, out, outOff);
        } catch (AEADBadTagException e) {
            throw new NoiseException("message authentication failed");
        } catch (GeneralSecurityException e) {
            throw new NoiseException("decryption failed", e);
        }
    }

    @Override
    public void close() {
        closed = true;
    }
}
