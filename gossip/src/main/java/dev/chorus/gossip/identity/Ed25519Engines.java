package dev.chorus.gossip.identity;

import dev.chorus.gossip.libcrypto.CryptoMode;
import dev.chorus.gossip.libcrypto.LibCryptoProbe;
import dev.chorus.gossip.libcrypto.LibCryptoUnavailableException;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.Objects;
import java.util.SplittableRandom;

/**
 * Chooses the Ed25519 implementation every {@link PrivateKey#sign} and {@link PublicKey#verify} of this process uses:
 * OpenSSL's libcrypto (through the foreign function API) when it loads, passes the RFC 8032 test vectors and agrees
 * with Bouncy Castle on a long random message, else Bouncy Castle. Both give the same signatures, so the choice is
 * local.
 *
 * <p>The choice is made once, at the first signature, by {@link CryptoMode#AUTO} unless {@link #use} chose first (the
 * daemon does, from {@code network.crypto}); it is logged once.
 */
public final class Ed25519Engines {
    private static final System.Logger LOG = System.getLogger(Ed25519Engines.class.getName());

    /**
     * The outcome of a selection.
     *
     * @param engine the implementation to use
     * @param reason one line saying why it was chosen (and, when libcrypto was not, what was wrong with it)
     */
    public record Selection(Ed25519Engine engine, String reason) {
        public Selection {
            Objects.requireNonNull(engine, "engine");
            Objects.requireNonNull(reason, "reason");
        }

        /** {@code bc} or {@code openssl}. */
        public String name() {
            return engine.name();
        }

        @Override
        public String toString() {
            return engine.name() + " (" + reason + ")";
        }
    }

    private static volatile Selection current;

    private Ed25519Engines() {}

    /** Bouncy Castle's implementation, always present. */
    public static Ed25519Engine bouncyCastle() {
        return BcEd25519.INSTANCE;
    }

    /** The implementation in use, chosen by {@link CryptoMode#AUTO} if nothing chose before. */
    public static Selection current() {
        Selection s = current;
        if (s == null) {
            synchronized (Ed25519Engines.class) {
                s = current;
                if (s == null) {
                    s = select(CryptoMode.AUTO, systemProbe());
                    current = s;
                    LOG.log(System.Logger.Level.INFO, "Ed25519: {0}", s);
                }
            }
        }
        return s;
    }

    /**
     * Makes {@code mode}'s choice the one every signature of this process uses from now on, with the system's
     * libcrypto ({@code libcrypto.so.3}, or the library named by the system property {@value
     * LibCryptoProbe#LIBRARY_PROPERTY}).
     *
     * @throws LibCryptoUnavailableException for {@link CryptoMode#OPENSSL} when libcrypto is unusable, naming the
     *     reason
     */
    public static synchronized Selection use(CryptoMode mode) {
        Selection s = select(mode, systemProbe());
        Selection before = current;
        current = s;
        if (before == null || before.engine() != s.engine()) {
            LOG.log(System.Logger.Level.INFO, "Ed25519: {0}", s);
        }
        return s;
    }

    /** Tests only: puts back a selection that {@link #current} returned before. */
    static synchronized void restore(Selection s) {
        current = s;
    }

    /** Selects with the libcrypto found under {@code library} (tests name a missing one); neither kept nor logged. */
    public static Selection select(CryptoMode mode, String library) {
        return select(mode, probe(library));
    }

    private static Selection select(CryptoMode mode, LibCryptoProbe<Ed25519Engine> probe) {
        return probe.choose(mode, "Ed25519", bouncyCastle(), Selection::new);
    }

    private static LibCryptoProbe<Ed25519Engine> probe(String library) {
        return LibCryptoProbe.of(
                library,
                "RFC 8032",
                OpenSslEd25519::new,
                e -> ((OpenSslEd25519) e).describe(),
                Ed25519Engines::knownAnswerFailure);
    }

    /** The system's libcrypto, probed once, when first asked for. */
    private static final class SystemProbe {
        static final LibCryptoProbe<Ed25519Engine> PROBE = probe(LibCryptoProbe.systemLibrary());
    }

    private static LibCryptoProbe<Ed25519Engine> systemProbe() {
        return SystemProbe.PROBE;
    }

    /**
     * RFC 8032 §7.1, TEST 1 to 3: the secret key, the public key, the message and the signature of each.
     */
    static final String[][] RFC_8032_VECTORS = {
        {
            "9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60",
            "d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a",
            "",
            "e5564300c360ac729086e2cc806e828a84877f1eb8e5d974d873e06522490155"
                    + "5fb8821590a33bacc61e39701cf9b46bd25bf5f0595bbe24655141438e7a100b"
        },
        {
            "4ccd089b28ff96da9db6c346ec114e0f5b8a319f35aba624da8cf6ed4fb8a6fb",
            "3d4017c3e843895a92b70aa74d1b7ebc9c982ccf2ec4968cc0cd55f12af4660c",
            "72",
            "92a009a9f0d4cab8720e820b5f642540a2b27b5416503f8fb3762223ebdb69da"
                    + "085ac1e43e15996e458f3613d0f11d8c387b2eaeb4302aeeb00d291612bb0c00"
        },
        {
            "c5aa8df43f9f837bedb7442f31dcb7b166d38535076f094b85ce3a2e0b4458f7",
            "fc51cd8e6218a1a38da47ed00230f0580816ed13ba3303ac5deb911548908025",
            "af82",
            "6291d657deec24024827e69c3abe01a30ce548a284743a445e3680d7db5ac3ac"
                    + "18ff9b538d16f290ae67f760984dc6594a7c15e9716ed28dc027beceea1ec40a"
        }
    };

    /**
     * Signs and verifies the RFC 8032 vectors with {@code engine}, then a random 4 KiB message, whose signature must
     * be Bouncy Castle's; a flipped bit of a signature must be refused. Returns what went wrong, or null.
     */
    static String knownAnswerFailure(Ed25519Engine engine) {
        HexFormat hex = HexFormat.of();
        try {
            for (String[] v : RFC_8032_VECTORS) {
                byte[] seed = hex.parseHex(v[0]);
                byte[] pub = hex.parseHex(v[1]);
                byte[] message = hex.parseHex(v[2]);
                byte[] signature = hex.parseHex(v[3]);
                if (!Arrays.equals(engine.sign(seed, pub, message), signature)) {
                    return "signing gave other bytes than the published ones";
                }
                if (!engine.verify(pub, message, signature)) {
                    return "a published signature was refused";
                }
                byte[] forged = signature.clone();
                forged[7] ^= 1;
                if (engine.verify(pub, message, forged)) {
                    return "a forged signature was accepted";
                }
            }
            byte[] message = new byte[4096];
            new SplittableRandom(8032).nextBytes(message);
            byte[] seed = hex.parseHex(RFC_8032_VECTORS[0][0]);
            byte[] pub = hex.parseHex(RFC_8032_VECTORS[0][1]);
            if (!Arrays.equals(engine.sign(seed, pub, message), bouncyCastle().sign(seed, pub, message))) {
                return "a 4 KiB message was signed otherwise than by Bouncy Castle";
            }
            return null;
        } catch (RuntimeException | LinkageError e) {
            return LibCryptoProbe.oneLine(e);
        }
    }
}
