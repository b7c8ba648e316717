package dev.chorus.gossip.identity;

import dev.chorus.gossip.libcrypto.LibCryptoProbe;
import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SymbolLookup;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.lang.ref.Cleaner;
import java.lang.ref.Reference;

/**
 * Ed25519 from OpenSSL 3's libcrypto (the EVP one-shot {@code EVP_DigestSign} and {@code EVP_DigestVerify}), bound
 * with the foreign function API: no JNI library, nothing to build. libcrypto's SHA-512 is what makes the difference:
 * pure Ed25519 hashes the whole message twice to sign it and once to verify it, so for a gossipsub message of 100 KiB
 * the hash is nearly all of the work.
 *
 * <p>Each call makes its digest context, and its key unless a {@linkplain #signer signer} keeps one, and frees them
 * before it returns; a signer's key is freed by a cleaner. Instances are safe to share between threads. The calls that read the message are linked as
 * critical with heap access: they never call back into Java, and take the Java arrays directly, so the message is
 * not copied to native memory.
 */
final class OpenSslEd25519 implements Ed25519Engine {
    /** {@code EVP_PKEY_ED25519}, i.e. {@code NID_ED25519}. */
    private static final int EVP_PKEY_ED25519 = 1087;

    private final String library;
    private final String version;
    private final MethodHandle newPrivate;
    private final MethodHandle newPublic;
    private final MethodHandle freeKey;
    private final MethodHandle newContext;
    private final MethodHandle freeContext;
    private final MethodHandle signInit;
    private final MethodHandle sign;
    private final MethodHandle verifyInit;
    private final MethodHandle verify;
    private final MethodHandle clearErrors;

    /**
     * Loads {@code library} and binds every function.
     *
     * @throws IllegalArgumentException when the library cannot be loaded
     * @throws IllegalCallerException when native access is disabled for this code
     * @throws java.util.NoSuchElementException when a function is missing (not OpenSSL 3)
     */
    OpenSslEd25519(String library) {
        this.library = library;
        Linker linker = Linker.nativeLinker();
        SymbolLookup lookup = SymbolLookup.libraryLookup(library, Arena.global());
        var a = ValueLayout.ADDRESS;
        var i = ValueLayout.JAVA_INT;
        var size = ValueLayout.JAVA_LONG;
        Linker.Option critical = Linker.Option.critical(true);
        FunctionDescriptor newKey = FunctionDescriptor.of(a, i, a, a, size);
        newPrivate = linker.downcallHandle(lookup.findOrThrow("EVP_PKEY_new_raw_private_key"), newKey, critical);
        newPublic = linker.downcallHandle(lookup.findOrThrow("EVP_PKEY_new_raw_public_key"), newKey, critical);
        freeKey = linker.downcallHandle(lookup.findOrThrow("EVP_PKEY_free"), FunctionDescriptor.ofVoid(a));
        newContext = linker.downcallHandle(lookup.findOrThrow("EVP_MD_CTX_new"), FunctionDescriptor.of(a));
        freeContext = linker.downcallHandle(lookup.findOrThrow("EVP_MD_CTX_free"), FunctionDescriptor.ofVoid(a));
        FunctionDescriptor init = FunctionDescriptor.of(i, a, a, a, a, a);
        signInit = linker.downcallHandle(lookup.findOrThrow("EVP_DigestSignInit"), init);
        verifyInit = linker.downcallHandle(lookup.findOrThrow("EVP_DigestVerifyInit"), init);
        sign = linker.downcallHandle(
                lookup.findOrThrow("EVP_DigestSign"), FunctionDescriptor.of(i, a, a, a, a, size), critical);
        verify = linker.downcallHandle(
                lookup.findOrThrow("EVP_DigestVerify"), FunctionDescriptor.of(i, a, a, size, a, size), critical);
        clearErrors = linker.downcallHandle(lookup.findOrThrow("ERR_clear_error"), FunctionDescriptor.ofVoid());
        version = LibCryptoProbe.version(lookup, library);
    }

    /** The library and its version, e.g. {@code libcrypto.so.3 (OpenSSL 3.0.19 27 Jan 2026)}. */
    String describe() {
        return library + " (" + version + ")";
    }

    @Override
    public String name() {
        return "openssl";
    }

    /** One call's use of a key in a fresh digest context; returns the call's result. */
    @FunctionalInterface
    private interface Use<R> {
        R apply(MemorySegment ctx) throws Throwable;
    }

    /** A call into libcrypto, with its failures as unchecked exceptions. */
    @FunctionalInterface
    private interface Call<R> {
        R run() throws Throwable;
    }

    private <R> R call(Call<R> c) {
        try {
            return c.run();
        } catch (RuntimeException | Error e) {
            throw e;
        } catch (Throwable t) {
            throw new IllegalStateException("calling " + library + " failed: " + t, t);
        }
    }

    /** The key {@code raw} made by {@code newKey}, or {@link MemorySegment#NULL} when the bytes are not a key. */
    private MemorySegment newKey(MethodHandle newKey, byte[] raw) {
        return call(() -> {
            MemorySegment key = (MemorySegment)
                    newKey.invokeExact(EVP_PKEY_ED25519, MemorySegment.NULL, MemorySegment.ofArray(raw), 32L);
            if (key.equals(MemorySegment.NULL)) {
                clearErrors.invokeExact();
            }
            return key;
        });
    }

    /** Initialises a fresh digest context with {@code key} by {@code init}, runs {@code use}, frees the context. */
    private <R> R inContext(MemorySegment key, MethodHandle init, Use<R> use) {
        return call(() -> {
            MemorySegment ctx = (MemorySegment) newContext.invokeExact();
            if (ctx.equals(MemorySegment.NULL)) {
                throw new OutOfMemoryError("EVP_MD_CTX_new failed");
            }
            try {
                int ok = (int) init.invokeExact(ctx, MemorySegment.NULL, MemorySegment.NULL, MemorySegment.NULL, key);
                if (ok != 1) {
                    clearErrors.invokeExact();
                    throw new IllegalStateException("EVP_DigestSignInit or EVP_DigestVerifyInit failed in " + library);
                }
                return use.apply(ctx);
            } finally {
                freeContext.invokeExact(ctx);
            }
        });
    }

    private void free(MemorySegment key) {
        call(() -> {
            freeKey.invokeExact(key);
            return null;
        });
    }

    private MemorySegment privateKey(byte[] seed) {
        MemorySegment key = newKey(newPrivate, seed);
        if (key.equals(MemorySegment.NULL)) {
            throw new IllegalStateException("libcrypto refused an Ed25519 seed in " + library);
        }
        return key;
    }

    @Override
    public byte[] sign(byte[] seed, byte[] publicKey, byte[] message) {
        MemorySegment key = privateKey(seed);
        try {
            return inContext(key, signInit, ctx -> signIn(ctx, message));
        } finally {
            free(key);
        }
    }

    private byte[] signIn(MemorySegment ctx, byte[] message) throws Throwable {
        byte[] signature = new byte[64];
        long[] length = {signature.length};
        int ok = (int) sign.invokeExact(
                ctx,
                MemorySegment.ofArray(signature),
                MemorySegment.ofArray(length),
                MemorySegment.ofArray(message),
                (long) message.length);
        if (ok != 1 || length[0] != signature.length) {
            clearErrors.invokeExact();
            throw new IllegalStateException("EVP_DigestSign failed in " + library);
        }
        return signature;
    }

    /**
     * The key made once, and freed by a cleaner when the signer is unreachable; each signature still has its own
     * digest context, so threads can share the signer (libcrypto's keys are safe to read from several threads).
     */
    @Override
    public Signer signer(byte[] seed, byte[] publicKey) {
        return new KeySigner(privateKey(seed));
    }

    private static final Cleaner CLEANER = Cleaner.create();

    /** A private key made once; see {@link #signer}. */
    private final class KeySigner implements Signer {
        private final MemorySegment key;

        KeySigner(MemorySegment key) {
            this.key = key;
            MethodHandle free = freeKey;
            CLEANER.register(this, () -> {
                try {
                    free.invokeExact(key);
                } catch (Throwable t) {
                    throw new IllegalStateException("EVP_PKEY_free failed", t);
                }
            });
        }

        @Override
        public byte[] sign(byte[] message) {
            try {
                return inContext(key, signInit, ctx -> signIn(ctx, message));
            } finally {
                Reference.reachabilityFence(this); // the key is freed once this is unreachable
            }
        }
    }

    @Override
    public boolean verify(byte[] publicKey, byte[] message, byte[] signature) {
        if (publicKey.length != 32 || signature.length != 64) {
            return false;
        }
        MemorySegment key = newKey(newPublic, publicKey);
        if (key.equals(MemorySegment.NULL)) {
            return false; // not a point of the curve: it verifies nothing
        }
        try {
            return inContext(key, verifyInit, ctx -> {
                int ok = (int) verify.invokeExact(
                        ctx,
                        MemorySegment.ofArray(signature),
                        (long) signature.length,
                        MemorySegment.ofArray(message),
                        (long) message.length);
                if (ok != 1) {
                    clearErrors.invokeExact(); // a bad signature leaves an error on the thread's queue
                }
                return ok == 1;
            });
        } finally {
            free(key);
        }
    }

    @Override
    public String toString() {
        return name();
    }
}
