package dev.chorus.gossip.identity;

import java.util.Arrays;
import java.util.HexFormat;
import java.util.Locale;
import java.util.Objects;
import java.util.SplittableRandom;

/**
 * Chooses the Ed25519 implementation every {@link PrivateKey#sign} and {@link PublicKey#verify} of this process uses:
 * OpenSSL's libcrypto (through the foreign function API) when it loads, passes the RFC 8032 test vectors and agrees
 * with Bouncy Castle on a long random message, else Bouncy Castle. Both give the same signatures, so the choice is
 * local.
 *
 * <p>The choice is made once, at the first signature, by {@link Mode#AUTO} unless {@link #use} chose first (the
 * daemon does, from {@code network.crypto}); it is logged once.
 */
public final class Ed25519Engines {
    private static final System.Logger LOG = System.getLogger(Ed25519Engines.class.getName());

    /** How to choose: the values of {@code network.crypto}. */
    public enum Mode {
        /** libcrypto when it passes the self-test, else Bouncy Castle. */
        AUTO,
        /** Always Bouncy Castle (with the JDK's cipher for the transport). */
        JDK,
        /** libcrypto or nothing: selection fails when it is unusable. */
        OPENSSL;

        /** The mode named {@code auto}, {@code jdk} or {@code openssl}. */
        public static Mode parse(String name) {
            for (Mode m : values()) {
                if (m.name().toLowerCase(Locale.ROOT).equals(name)) {
                    return m;
                }
            }
            throw new IllegalArgumentException("unknown crypto mode '" + name + "'; expected auto, jdk or openssl");
        }
    }

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

    /** Thrown when {@link Mode#OPENSSL} is asked for and libcrypto is unusable. */
    public static final class UnavailableException extends IllegalStateException {
        UnavailableException(String message) {
            super(message);
        }
    }

    /** The system property naming the libcrypto to load, as for the Noise cipher. */
    static final String LIBRARY_PROPERTY = "chorus.libcrypto";

    static final String DEFAULT_LIBRARY = "libcrypto.so.3";

    private static volatile Selection current;
    private static volatile Probe systemProbe;

    private Ed25519Engines() {}

    /** Bouncy Castle's implementation, always present. */
    public static Ed25519Engine bouncyCastle() {
        return BcEd25519.INSTANCE;
    }

    /** The implementation in use, chosen by {@link Mode#AUTO} if nothing chose before. */
    public static Selection current() {
        Selection s = current;
        if (s == null) {
            synchronized (Ed25519Engines.class) {
                s = current;
                if (s == null) {
                    s = select(Mode.AUTO, systemProbe());
                    current = s;
                    LOG.log(System.Logger.Level.INFO, "Ed25519: {0}", s);
                }
            }
        }
        return s;
    }

    /**
     * Makes {@code mode}'s choice the one every signature of this process uses from now on, with the system's
     * libcrypto ({@code libcrypto.so.3}, or the library named by the system property {@value #LIBRARY_PROPERTY}).
     *
     * @throws UnavailableException for {@link Mode#OPENSSL} when libcrypto is unusable, naming the reason
     */
    public static synchronized Selection use(Mode mode) {
        Selection s = select(mode, systemProbe());
        Selection before = current;
        current = s;
        if (before == null || before.engine() != s.engine()) {
            LOG.log(System.Logger.Level.INFO, "Ed25519: {0}", s);
        }
        return s;
    }

    /** Selects with the libcrypto found under {@code library} (tests name a missing one); neither kept nor logged. */
    public static Selection select(Mode mode, String library) {
        return select(mode, Probe.of(library));
    }

    private static Selection select(Mode mode, Probe probe) {
        return switch (mode) {
            case JDK -> new Selection(bouncyCastle(), "network.crypto is jdk");
            case OPENSSL -> {
                if (probe.engine == null) {
                    throw new UnavailableException("OpenSSL's Ed25519 was required but is unusable: " + probe.detail);
                }
                yield new Selection(probe.engine, "required; " + probe.detail);
            }
            case AUTO ->
                probe.engine != null
                        ? new Selection(probe.engine, probe.detail)
                        : new Selection(bouncyCastle(), "libcrypto unusable: " + probe.detail);
        };
    }

    private static Probe systemProbe() {
        Probe p = systemProbe;
        if (p == null) {
            synchronized (Ed25519Engines.class) {
                p = systemProbe;
                if (p == null) {
                    p = Probe.of(System.getProperty(LIBRARY_PROPERTY, DEFAULT_LIBRARY));
                    systemProbe = p;
                }
            }
        }
        return p;
    }

    /** libcrypto's engine and how it was found, or null and why it is unusable. */
    private record Probe(Ed25519Engine engine, String detail) {
        static Probe of(String library) {
            OpenSslEd25519 engine;
            try {
                engine = new OpenSslEd25519(library);
            } catch (IllegalCallerException e) {
                return new Probe(null, "native access is disabled; run java with --enable-native-access=ALL-UNNAMED");
            } catch (IllegalArgumentException e) {
                return new Probe(null, library + " did not load: " + oneLine(e));
            } catch (RuntimeException | LinkageError e) {
                return new Probe(null, library + " is not a usable OpenSSL 3: " + oneLine(e));
            }
            String failure = knownAnswerFailure(engine);
            if (failure != null) {
                return new Probe(null, engine.describe() + " failed the RFC 8032 self-test: " + failure);
            }
            return new Probe(engine, engine.describe() + " passed the RFC 8032 self-test");
        }
    }

    private static String oneLine(Throwable t) {
        String m = t.getMessage() == null ? t.toString() : t.getMessage();
        return m.replace('\n', ' ');
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
            return oneLine(e);
        }
    }
}
