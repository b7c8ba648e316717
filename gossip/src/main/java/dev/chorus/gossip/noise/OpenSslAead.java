package dev.chorus.gossip.noise;

import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandle;
import java.lang.ref.Cleaner;
import java.nio.ByteBuffer;

/**
 * ChaCha20-Poly1305 from OpenSSL's libcrypto through one {@code EVP_CIPHER_CTX}, keyed once and then
 * given a new nonce per message, so the key schedule is set up once per connection direction. Input and
 * output go to libcrypto as they are, heap arrays and direct buffers alike, so a direct buffer needs no
 * copy at all.
 *
 * <p>The context is freed by {@link #close}, or by a cleaner once the instance is unreachable; a closed
 * instance refuses every call, so native memory is never used after it is freed.
 */
final class OpenSslAead implements NoiseAead {
    private static final Cleaner CLEANER = Cleaner.create();

    /** Owns the native context; the cleaner's action, so it must not refer to the {@link OpenSslAead}. */
    private static final class Context implements Runnable {
        private final MethodHandle free;
        private MemorySegment ctx;

        Context(MethodHandle free, MemorySegment ctx) {
            this.free = free;
            this.ctx = ctx;
        }

        @Override
        public void run() {
            MemorySegment c = ctx;
            ctx = null;
            if (c != null) {
                try {
                    free.invokeExact(c);
                } catch (Throwable t) {
                    throw new IllegalStateException("EVP_CIPHER_CTX_free failed", t);
                }
            }
        }
    }

    private final LibCrypto lib;
    private final Context context;
    private final Cleaner.Cleanable cleanable;
    private final int[] outLength = new int[1];
    private final MemorySegment outLengthSegment = MemorySegment.ofArray(outLength);

    OpenSslAead(LibCrypto lib, byte[] key) {
        if (key.length != KEY_LENGTH) {
            throw new IllegalArgumentException("a ChaCha20-Poly1305 key has 32 bytes, got " + key.length);
        }
        this.lib = lib;
        MemorySegment ctx;
        try {
            ctx = (MemorySegment) lib.ctxNew.invokeExact();
        } catch (Throwable t) {
            throw new IllegalStateException("EVP_CIPHER_CTX_new failed", t);
        }
        if (ctx.equals(MemorySegment.NULL)) {
            throw new IllegalStateException("EVP_CIPHER_CTX_new returned null (out of memory)");
        }
        context = new Context(lib.ctxFree, ctx);
        cleanable = CLEANER.register(this, context);
        try {
            MemorySegment none = MemorySegment.NULL;
            check((int) lib.encryptInit.invokeExact(ctx, lib.chacha20Poly1305, none, none, none), "EVP_EncryptInit_ex");
            check(
                    (int) lib.ctrl.invokeExact(ctx, LibCrypto.EVP_CTRL_AEAD_SET_IVLEN, NONCE_LENGTH, none),
                    "set IV length");
            check((int) lib.encryptInit.invokeExact(ctx, none, none, MemorySegment.ofArray(key), none), "set key");
        } catch (Throwable t) {
            cleanable.clean();
            throw t instanceof NoiseException n ? n : new NoiseException("keying ChaCha20-Poly1305 failed", t);
        }
    }

    private MemorySegment ctx() {
        MemorySegment c = context.ctx;
        if (c == null) {
            throw new NoiseException("the cipher is closed");
        }
        return c;
    }

    private void check(int result, String call) {
        if (result != 1) {
            clearErrors();
            throw new NoiseException(call + " failed in " + lib.library);
        }
    }

    private void clearErrors() {
        try {
            lib.clearErrors.invokeExact();
        } catch (Throwable t) {
            throw new IllegalStateException("ERR_clear_error failed", t);
        }
    }

    private static MemorySegment slice(byte[] a, int off, int len) {
        return MemorySegment.ofArray(a).asSlice(off, len);
    }

    @Override
    public void startSeal(byte[] nonce, byte[] ad) {
        MemorySegment c = ctx();
        MemorySegment none = MemorySegment.NULL;
        try {
            check((int) lib.encryptInit.invokeExact(c, none, none, none, slice(nonce, 0, NONCE_LENGTH)), "set nonce");
            if (ad != null && ad.length > 0) {
                check(
                        (int) lib.encryptUpdate.invokeExact(
                                c, none, outLengthSegment, MemorySegment.ofArray(ad), ad.length),
                        "EVP_EncryptUpdate (AD)");
            }
        } catch (NoiseException e) {
            throw e;
        } catch (Throwable t) {
            throw new NoiseException("encryption failed", t);
        }
    }

    @Override
    public void sealUpdate(byte[] in, int inOff, int len, byte[] out, int outOff) {
        if (len > 0) {
            update(slice(in, inOff, len), slice(out, outOff, len), len);
        }
    }

    @Override
    public void sealUpdate(ByteBuffer in, byte[] out, int outOff) {
        int len = in.remaining();
        if (len > 0) {
            update(MemorySegment.ofBuffer(in), slice(out, outOff, len), len);
        }
    }

    @Override
    public boolean directOutput() {
        return true;
    }

    @Override
    public void sealUpdate(ByteBuffer in, ByteBuffer out) {
        int len = in.remaining();
        if (len > 0) {
            update(MemorySegment.ofBuffer(in), MemorySegment.ofBuffer(out).asSlice(0, len), len);
        }
    }

    @Override
    public void finishSeal(ByteBuffer out) {
        finish(MemorySegment.ofBuffer(out).asSlice(0, TAG_LENGTH));
    }

    private void update(MemorySegment in, MemorySegment out, int len) {
        MemorySegment c = ctx();
        try {
            check((int) lib.encryptUpdate.invokeExact(c, out, outLengthSegment, in, len), "EVP_EncryptUpdate");
        } catch (NoiseException e) {
            throw e;
        } catch (Throwable t) {
            throw new NoiseException("encryption failed", t);
        }
        if (outLength[0] != len) {
            throw new NoiseException("EVP_EncryptUpdate wrote " + outLength[0] + " of " + len + " bytes");
        }
    }

    @Override
    public void finishSeal(byte[] out, int outOff) {
        finish(slice(out, outOff, TAG_LENGTH));
    }

    private void finish(MemorySegment tag) {
        MemorySegment c = ctx();
        try {
            // ChaCha20-Poly1305 is a stream cipher: the final call writes nothing, the tag is read after it.
            check((int) lib.encryptFinal.invokeExact(c, tag, outLengthSegment), "EVP_EncryptFinal_ex");
            check((int) lib.ctrl.invokeExact(c, LibCrypto.EVP_CTRL_AEAD_GET_TAG, TAG_LENGTH, tag), "get tag");
        } catch (NoiseException e) {
            throw e;
        } catch (Throwable t) {
            throw new NoiseException("encryption failed", t);
        }
    }

    @Override
    public int open(byte[] nonce, byte[] ad, byte[] in, int inOff, int len, byte[] out, int outOff) {
        if (len < TAG_LENGTH) {
            throw new NoiseException("ciphertext shorter than the authentication tag");
        }
        int plain = len - TAG_LENGTH;
        MemorySegment c = ctx();
        MemorySegment none = MemorySegment.NULL;
        int verified;
        try {
            check((int) lib.decryptInit.invokeExact(c, none, none, none, slice(nonce, 0, NONCE_LENGTH)), "set nonce");
            check(
                    (int) lib.ctrl.invokeExact(
                            c, LibCrypto.EVP_CTRL_AEAD_SET_TAG, TAG_LENGTH, slice(in, inOff + plain, TAG_LENGTH)),
                    "set tag");
            if (ad != null && ad.length > 0) {
                check(
                        (int) lib.decryptUpdate.invokeExact(
                                c, none, outLengthSegment, MemorySegment.ofArray(ad), ad.length),
                        "EVP_DecryptUpdate (AD)");
            }
            MemorySegment dst = slice(out, outOff, plain);
            if (plain > 0) {
                check(
                        (int) lib.decryptUpdate.invokeExact(c, dst, outLengthSegment, slice(in, inOff, plain), plain),
                        "EVP_DecryptUpdate");
            }
            verified = (int) lib.decryptFinal.invokeExact(c, dst, outLengthSegment);
        } catch (NoiseException e) {
            throw e;
        } catch (Throwable t) {
            throw new NoiseException("decryption failed", t);
        }
        if (verified != 1) {
            clearErrors();
            // libcrypto decrypts before it checks the tag: take back what it wrote.
            java.util.Arrays.fill(out, outOff, outOff + plain, (byte) 0);
            throw new NoiseException("message authentication failed");
        }
        return plain;
    }

    @Override
    public void close() {
        cleanable.clean();
    }
}
