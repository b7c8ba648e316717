package dev.chorus.gossip.noise;

import dev.chorus.gossip.libcrypto.CryptoMode;
import dev.chorus.gossip.libcrypto.LibCryptoProbe;
import dev.chorus.gossip.libcrypto.LibCryptoUnavailableException;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Chooses the ChaCha20-Poly1305 implementation of the Noise transport: OpenSSL's libcrypto (through the
 * foreign function API) when it loads and passes a known-answer test, else the JDK's. Both produce the
 * same bytes, so the choice is local: peers need not agree on it.
 */
public final class NoiseCiphers {
    private static final System.Logger LOG = System.getLogger(NoiseCiphers.class.getName());

    /**
     * The outcome of a selection.
     *
     * @param provider the implementation to use
     * @param reason one line saying why it was chosen (and, when libcrypto was not, what was wrong with it)
     */
    public record Selection(AeadProvider provider, String reason) {
        public Selection {
            Objects.requireNonNull(provider, "provider");
            Objects.requireNonNull(reason, "reason");
        }

        /** {@code jdk} or {@code openssl}. */
        public String name() {
            return provider.name();
        }

        @Override
        public String toString() {
            return provider.name() + " (" + reason + ")";
        }
    }

    private static final Map<CryptoMode, Selection> SELECTED = new ConcurrentHashMap<>();

    private NoiseCiphers() {}

    /** The JDK's implementation, always present. */
    public static AeadProvider jdk() {
        return JdkAead.PROVIDER;
    }

    /**
     * The selection for {@code mode} with the system's libcrypto ({@code libcrypto.so.3}, or the library named by
     * the system property {@value LibCryptoProbe#LIBRARY_PROPERTY}); made once per mode in this JVM and logged once
     * (one INFO line naming the provider and why).
     *
     * @throws LibCryptoUnavailableException for {@link CryptoMode#OPENSSL} when libcrypto is unusable, naming the
     *     reason
     */
    public static Selection select(CryptoMode mode) {
        Selection s = SELECTED.get(mode);
        if (s == null) {
            s = select(mode, systemProbe());
            if (SELECTED.putIfAbsent(mode, s) == null) {
                LOG.log(System.Logger.Level.INFO, "Noise transport cipher: {0}", s);
            }
        }
        return s;
    }

    /** Selects with the libcrypto found under {@code library} (tests name a missing one); neither cached nor logged. */
    public static Selection select(CryptoMode mode, String library) {
        return select(mode, probe(library));
    }

    private static Selection select(CryptoMode mode, LibCryptoProbe<AeadProvider> probe) {
        return probe.choose(mode, "ChaCha20-Poly1305", jdk(), Selection::new);
    }

    private static LibCryptoProbe<AeadProvider> probe(String library) {
        return LibCryptoProbe.of(
                library,
                "RFC 8439",
                name -> new OpenSslProvider(new LibCrypto(name)),
                p -> ((OpenSslProvider) p).lib.library + " (" + ((OpenSslProvider) p).lib.version + ")",
                NoiseCiphers::knownAnswerFailure);
    }

    /** The system's libcrypto, probed once, when first asked for. */
    private static final class SystemProbe {
        static final LibCryptoProbe<AeadProvider> PROBE = probe(LibCryptoProbe.systemLibrary());
    }

    private static LibCryptoProbe<AeadProvider> systemProbe() {
        return SystemProbe.PROBE;
    }

    private record OpenSslProvider(LibCrypto lib) implements AeadProvider {
        @Override
        public String name() {
            return "openssl";
        }

        @Override
        public NoiseAead create(byte[] key) {
            return new OpenSslAead(lib, key);
        }

        @Override
        public String toString() {
            return "openssl";
        }
    }

    // RFC 8439 §2.8.2: the AEAD_CHACHA20_POLY1305 example.
    static final byte[] KAT_KEY =
            HexFormat.of().parseHex("808182838485868788898a8b8c8d8e8f909192939495969798999a9b9c9d9e9f");
    static final byte[] KAT_NONCE = HexFormat.of().parseHex("070000004041424344454647");
    static final byte[] KAT_AD = HexFormat.of().parseHex("50515253c0c1c2c3c4c5c6c7");
    static final byte[] KAT_PLAINTEXT = ("Ladies and Gentlemen of the class of '99: If I could offer you only one tip"
                    + " for the future, sunscreen would be it.")
            .getBytes(java.nio.charset.StandardCharsets.US_ASCII);
    static final byte[] KAT_SEALED = HexFormat.of()
            .parseHex("d31a8d34648e60db7b86afbc53ef7ec2a4aded51296e08fea9e2b5a736ee62d6"
                    + "3dbea45e8ca9671282fafb69da92728b1a71de0a9e060b2905d6a5b67ecd3b36"
                    + "92ddbd7f2d778b8c9803aee328091b58fab324e4fad675945585808b4831d7bc"
                    + "3ff4def08e4b7a9de576d26586cec64b6116"
                    + "1ae10b594f09e26a7e902ecbd0600691");

    /**
     * Runs the RFC 8439 example through {@code provider}: it must seal to the published bytes, open them,
     * and refuse them with one bit of the tag flipped. Returns what went wrong, or null.
     */
    static String knownAnswerFailure(AeadProvider provider) {
        try (NoiseAead aead = provider.create(KAT_KEY)) {
            if (!Arrays.equals(aead.seal(KAT_NONCE, KAT_AD, KAT_PLAINTEXT), KAT_SEALED)) {
                return "sealing gave other bytes than the published ones";
            }
            if (!Arrays.equals(aead.open(KAT_NONCE, KAT_AD, KAT_SEALED), KAT_PLAINTEXT)) {
                return "opening gave other bytes than the published plaintext";
            }
            byte[] forged = KAT_SEALED.clone();
            forged[forged.length - 1] ^= 1;
            try {
                aead.open(KAT_NONCE, KAT_AD, forged);
                return "a forged tag was accepted";
            } catch (NoiseException expected) {
                // refused, as it must be
            }
            return null;
        } catch (RuntimeException | LinkageError e) {
            return LibCryptoProbe.oneLine(e);
        }
    }
}
