package dev.chorus.gossip.noise;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

/** The choice between libcrypto and the JDK, including a libcrypto that is not there. */
class NoiseCiphersTest {
    private static final String MISSING = "libcrypto-missing-for-test.so.9";

    @Test
    void autoPrefersAUsableLibcrypto() {
        NoiseCiphers.Selection s = NoiseCiphers.select(NoiseCiphers.Mode.AUTO, LibCrypto.DEFAULT_LIBRARY);
        if (s.name().equals("openssl")) {
            assertThat(s.reason()).contains("libcrypto.so.3").contains("passed the RFC 8439 self-test");
        } else {
            assertThat(s.reason()).startsWith("libcrypto unusable: ");
        }
    }

    @Test
    void autoFallsBackToTheJdkWhenLibcryptoIsMissing() {
        NoiseCiphers.Selection s = NoiseCiphers.select(NoiseCiphers.Mode.AUTO, MISSING);
        assertThat(s.name()).isEqualTo("jdk");
        assertThat(s.provider()).isSameAs(NoiseCiphers.jdk());
        assertThat(s.reason()).contains(MISSING).contains("did not load");
        assertThat(s.toString()).doesNotContain("\n");
    }

    @Test
    void jdkModeNeverLoadsLibcrypto() {
        NoiseCiphers.Selection s = NoiseCiphers.select(NoiseCiphers.Mode.JDK, LibCrypto.DEFAULT_LIBRARY);
        assertThat(s.name()).isEqualTo("jdk");
        assertThat(s.reason()).isEqualTo("network.crypto is jdk");
    }

    @Test
    void opensslModeWithoutLibcryptoFailsNamingTheReason() {
        assertThatThrownBy(() -> NoiseCiphers.select(NoiseCiphers.Mode.OPENSSL, MISSING))
                .isInstanceOf(NoiseCiphers.UnavailableException.class)
                .hasMessageContaining("OpenSSL's ChaCha20-Poly1305 was required but is unusable")
                .hasMessageContaining(MISSING);
    }

    @Test
    void aLibraryWithoutTheEvpFunctionsIsRefusedInOneLine() {
        // libc loads but has no EVP functions: the probe must say so, not crash.
        NoiseCiphers.Selection s = NoiseCiphers.select(NoiseCiphers.Mode.AUTO, "libc.so.6");
        assertThat(s.name()).isEqualTo("jdk");
        assertThat(s.reason()).contains("libc.so.6 is not a usable OpenSSL 3").doesNotContain("\n");
    }

    @Test
    void theSystemSelectionIsMadeOnce() {
        assertThat(NoiseCiphers.select(NoiseCiphers.Mode.AUTO)).isSameAs(NoiseCiphers.select(NoiseCiphers.Mode.AUTO));
    }

    @Test
    void modesParseFromTheirConfigNames() {
        assertThat(NoiseCiphers.Mode.parse("auto")).isEqualTo(NoiseCiphers.Mode.AUTO);
        assertThat(NoiseCiphers.Mode.parse("jdk")).isEqualTo(NoiseCiphers.Mode.JDK);
        assertThat(NoiseCiphers.Mode.parse("openssl")).isEqualTo(NoiseCiphers.Mode.OPENSSL);
        assertThatThrownBy(() -> NoiseCiphers.Mode.parse("OpenSSL"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("expected auto, jdk or openssl");
    }
}
