package dev.chorus.gossip.identity;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SymbolLookup;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;

/**
 * Ed25519 from OpenSSL 3's libcrypto (the EVP one-shot {@code EVP_DigestSign} and {@code EVP_DigestVerify}), bound
 * with the foreign function API: no JNI library, nothing to build. libcrypto's SHA-512 is what makes the difference:
 * pure Ed25519 hashes the whole message twice to sign it and once to verify it, so for a gossipsub message of 100 KiB
 * the hash is nearly all of the work.
 *
 * <p>Each call makes its key object and digest context and frees them before it returns, so no native memory
 * outlives a call and instances are safe to share between threads. The calls that read the message are linked as
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
        MethodHandle versionText =
                linker.downcallHandle(lookup.findOrThrow("OpenSSL_version"), FunctionDescriptor.of(a, i));
        try {
            MemorySegment text = (MemorySegment) versionText.invokeExact(0); // OPENSSL_VERSION
            version = text.equals(MemorySegment.NULL)
                    ? "unknown version"
                    : text.reinterpret(256).getString(0);
        } catch (Throwable t) {
            throw new IllegalStateException("calling " + library + " failed: " + t, t);
        }
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

    /**
     * Makes the key {@code raw} with {@code newKey}, initialises a digest context with it by {@code init}, runs
     * {@code use}, and frees both; {@code noKey} is the result when the bytes are not a key (null: a failure).
     */
    private <R> R withKey(MethodHandle newKey, byte[] raw, MethodHandle init, R noKey, Use<R> use) {
        try {
            MemorySegment key = (MemorySegment)
                    newKey.invokeExact(EVP_PKEY_ED25519, MemorySegment.NULL, MemorySegment.ofArray(raw), 32L);
            if (key.equals(MemorySegment.NULL)) {
                clearErrors.invokeExact();
                if (noKey == null) {
                    throw new IllegalStateException("libcrypto refused an Ed25519 key in " + library);
                }
                return noKey;
            }
            try {
                MemorySegment ctx = (MemorySegment) newContext.invokeExact();
                if (ctx.equals(MemorySegment.NULL)) {
                    throw new OutOfMemoryError("EVP_MD_CTX_new failed");
                }
                try {
                    int ok = (int)
                            init.invokeExact(ctx, MemorySegment.NULL, MemorySegment.NULL, MemorySegment.NULL, key);
                    if (ok != 1) {
                        clearErrors.invokeExact();
                        throw new IllegalStateException(
                                "EVP_DigestSignInit or EVP_DigestVerifyInit failed in " + library);
                    }
                    return use.apply(ctx);
                } finally {
                    freeContext.invokeExact(ctx);
                }
            } finally {
                freeKey.invokeExact(key);
            }
        } catch (RuntimeException | Error e) {
            throw e;
        } catch (Throwable t) {
            throw new IllegalStateException("calling " + library + " failed: " + t, t);
        }
    }

    @Override
    public byte[] sign(byte[] seed, byte[] publicKey, byte[] message) {
        return withKey(newPrivate, seed, signInit, null, ctx -> {
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
        });
    }

    @Override
    public boolean verify(byte[] publicKey, byte[] message, byte[] signature) {
        if (publicKey.length != 32 || signature.length != 64) {
            return false;
        }
        // A public key that is not a point of the curve makes no key: it verifies nothing.
        return withKey(newPublic, publicKey, verifyInit, false, ctx -> {
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
    }

    @Override
    public String toString() {
        return name();
    }
}
