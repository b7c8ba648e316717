package dev.chorus.gossip.libcrypto;

import java.util.Locale;

/** How to choose between libcrypto and the Java implementations: the values of {@code network.crypto}. */
public enum CryptoMode {
    /** libcrypto when it loads and passes the self-test, else the Java implementation. */
    AUTO,
    /** Always the Java implementations: the JDK's cipher, Bouncy Castle's Ed25519. */
    JDK,
    /** libcrypto or nothing: selection fails when it is unusable. */
    OPENSSL;

    /** The mode named {@code auto}, {@code jdk} or {@code openssl}. */
    public static CryptoMode parse(String name) {
        for (CryptoMode m : values()) {
            if (m.id().equals(name)) {
                return m;
            }
        }
        throw new IllegalArgumentException("unknown crypto mode '" + name + "'; expected auto, jdk or openssl");
    }

    /** The lower-case name used in configuration. */
    public String id() {
        return name().toLowerCase(Locale.ROOT);
    }
}
