package dev.chorus.gossip.libcrypto;

import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SymbolLookup;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.util.function.BiFunction;
import java.util.function.Function;

/**
 * An implementation bound to libcrypto that loaded and passed its known-answer test, or null and one line saying what
 * was wrong: a library that is not there, native access disabled, a library without the functions, a wrong answer.
 * A failed probe never throws.
 *
 * @param found the implementation, or null
 * @param detail how it was found, or why it is unusable
 */
public record LibCryptoProbe<T>(T found, String detail) {
    /**
     * System property naming the library to load instead of {@code libcrypto.so.3}: a file name on the loader path or
     * an absolute path, e.g. an OpenSSL 3 installed outside the system's library directories.
     */
    public static final String LIBRARY_PROPERTY = "chorus.libcrypto";

    /** The name the loader finds OpenSSL 3's libcrypto under on Linux. */
    public static final String DEFAULT_LIBRARY = "libcrypto.so.3";

    /** The library to load: {@value #LIBRARY_PROPERTY}, else {@value #DEFAULT_LIBRARY}. */
    public static String systemLibrary() {
        return System.getProperty(LIBRARY_PROPERTY, DEFAULT_LIBRARY);
    }

    /**
     * Binds {@code library} with {@code load}, then runs {@code knownAnswerFailure} (null when the answers are right).
     *
     * @param test the known answers' source, for the detail line (e.g. {@code RFC 8439})
     * @param load binds the library; throws as the foreign function API does when it cannot
     * @param describe the library and its version, for the detail line
     */
    public static <T> LibCryptoProbe<T> of(
            String library,
            String test,
            Function<String, T> load,
            Function<T, String> describe,
            Function<T, String> knownAnswerFailure) {
        T bound;
        try {
            bound = load.apply(library);
        } catch (IllegalCallerException e) {
            return new LibCryptoProbe<>(
                    null, "native access is disabled; run java with --enable-native-access=ALL-UNNAMED");
        } catch (IllegalArgumentException e) {
            return new LibCryptoProbe<>(null, library + " did not load: " + oneLine(e));
        } catch (RuntimeException | LinkageError e) {
            return new LibCryptoProbe<>(null, library + " is not a usable OpenSSL 3: " + oneLine(e));
        }
        String failure;
        try {
            failure = knownAnswerFailure.apply(bound);
        } catch (RuntimeException | LinkageError e) {
            failure = oneLine(e);
        }
        if (failure != null) {
            return new LibCryptoProbe<>(null, describe.apply(bound) + " failed the " + test + " self-test: " + failure);
        }
        return new LibCryptoProbe<>(bound, describe.apply(bound) + " passed the " + test + " self-test");
    }

    /**
     * The choice for {@code mode}: libcrypto's implementation or {@code java}, made into a selection by {@code
     * selection} with the reason.
     *
     * @param what the primitive, for the exception's message (e.g. {@code ChaCha20-Poly1305})
     * @throws LibCryptoUnavailableException for {@link CryptoMode#OPENSSL} when the probe found nothing
     */
    public <R> R choose(CryptoMode mode, String what, T java, BiFunction<T, String, R> selection) {
        return switch (mode) {
            case JDK -> selection.apply(java, "network.crypto is jdk");
            case OPENSSL -> {
                if (found == null) {
                    throw new LibCryptoUnavailableException(
                            "OpenSSL's " + what + " was required but is unusable: " + detail);
                }
                yield selection.apply(found, "required; " + detail);
            }
            case AUTO ->
                found != null ? selection.apply(found, detail) : selection.apply(java, "libcrypto unusable: " + detail);
        };
    }

    /**
     * The version text of the libcrypto found by {@code lookup} ({@code OpenSSL_version(OPENSSL_VERSION)}), e.g.
     * {@code OpenSSL 3.0.19 27 Jan 2026}.
     *
     * @throws java.util.NoSuchElementException when the library has no {@code OpenSSL_version}
     */
    public static String version(SymbolLookup lookup, String library) {
        Linker linker = Linker.nativeLinker();
        MethodHandle versionText = linker.downcallHandle(
                lookup.findOrThrow("OpenSSL_version"),
                FunctionDescriptor.of(ValueLayout.ADDRESS, ValueLayout.JAVA_INT));
        try {
            MemorySegment text = (MemorySegment) versionText.invokeExact(0); // OPENSSL_VERSION
            return text.equals(MemorySegment.NULL)
                    ? "unknown version"
                    : text.reinterpret(256).getString(0);
        } catch (Throwable t) {
            throw new IllegalStateException("calling " + library + " failed: " + t, t);
        }
    }

    /** A throwable's message on one line. */
    public static String oneLine(Throwable t) {
        String m = t.getMessage() == null ? t.toString() : t.getMessage();
        return m.replace('\n', ' ');
    }
}
