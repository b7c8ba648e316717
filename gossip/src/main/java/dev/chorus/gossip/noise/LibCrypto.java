package dev.chorus.gossip.noise;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SymbolLookup;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;

/**
 * The few functions of OpenSSL 3's libcrypto that ChaCha20-Poly1305 needs (the EVP cipher interface),
 * bound with the foreign function API: no JNI library, nothing to build.
 *
 * <p>The calls made once per message are linked as critical ({@link Linker.Option#critical(boolean)}
 * with heap access): they run for microseconds, never call back into Java, and take the Java arrays of
 * the frame directly, so no bytes are copied to native memory and back. The library is loaded once per
 * name and never unloaded.
 */
final class LibCrypto {
    /** The name the loader finds OpenSSL 3's libcrypto under on Linux. */
    static final String DEFAULT_LIBRARY = dev.chorus.gossip.libcrypto.LibCryptoProbe.DEFAULT_LIBRARY;

    static final int EVP_CTRL_AEAD_SET_IVLEN = 0x9;
    static final int EVP_CTRL_AEAD_GET_TAG = 0x10;
    static final int EVP_CTRL_AEAD_SET_TAG = 0x11;

    final String library;
    final String version;
    final MemorySegment chacha20Poly1305;
    final MethodHandle ctxNew;
    final MethodHandle ctxFree;
    final MethodHandle encryptInit;
    final MethodHandle decryptInit;
    final MethodHandle ctrl;
    final MethodHandle encryptUpdate;
    final MethodHandle encryptFinal;
    final MethodHandle decryptUpdate;
    final MethodHandle decryptFinal;
    final MethodHandle clearErrors;

    /**
     * Loads {@code library} and binds every function.
     *
     * @throws IllegalArgumentException when the library cannot be loaded
     * @throws IllegalCallerException when native access is disabled for this code
     * @throws java.util.NoSuchElementException when a function is missing (not OpenSSL 3)
     */
    LibCrypto(String library) {
        this.library = library;
        Linker linker = Linker.nativeLinker();
        SymbolLookup lookup = SymbolLookup.libraryLookup(library, Arena.global());
        var a = ValueLayout.ADDRESS;
        var i = ValueLayout.JAVA_INT;
        Linker.Option critical = Linker.Option.critical(true);
        ctxNew = linker.downcallHandle(lookup.findOrThrow("EVP_CIPHER_CTX_new"), FunctionDescriptor.of(a));
        ctxFree = linker.downcallHandle(lookup.findOrThrow("EVP_CIPHER_CTX_free"), FunctionDescriptor.ofVoid(a));
        MethodHandle cipher =
                linker.downcallHandle(lookup.findOrThrow("EVP_chacha20_poly1305"), FunctionDescriptor.of(a));
        FunctionDescriptor init = FunctionDescriptor.of(i, a, a, a, a, a);
        encryptInit = linker.downcallHandle(lookup.findOrThrow("EVP_EncryptInit_ex"), init, critical);
        decryptInit = linker.downcallHandle(lookup.findOrThrow("EVP_DecryptInit_ex"), init, critical);
        ctrl = linker.downcallHandle(
                lookup.findOrThrow("EVP_CIPHER_CTX_ctrl"), FunctionDescriptor.of(i, a, i, i, a), critical);
        FunctionDescriptor update = FunctionDescriptor.of(i, a, a, a, a, i);
        FunctionDescriptor fin = FunctionDescriptor.of(i, a, a, a);
        encryptUpdate = linker.downcallHandle(lookup.findOrThrow("EVP_EncryptUpdate"), update, critical);
        encryptFinal = linker.downcallHandle(lookup.findOrThrow("EVP_EncryptFinal_ex"), fin, critical);
        decryptUpdate = linker.downcallHandle(lookup.findOrThrow("EVP_DecryptUpdate"), update, critical);
        decryptFinal = linker.downcallHandle(lookup.findOrThrow("EVP_DecryptFinal_ex"), fin, critical);
        clearErrors = linker.downcallHandle(lookup.findOrThrow("ERR_clear_error"), FunctionDescriptor.ofVoid());
        try {
            chacha20Poly1305 = (MemorySegment) cipher.invokeExact();
        } catch (Throwable t) {
            throw new IllegalStateException("calling " + library + " failed: " + t, t);
        }
        version = dev.chorus.gossip.libcrypto.LibCryptoProbe.version(lookup, library);
        if (chacha20Poly1305.equals(MemorySegment.NULL)) {
            throw new IllegalStateException(library + " has no ChaCha20-Poly1305 (EVP_chacha20_poly1305 is null)");
        }
    }
}
