package dev.chorus.gossip.noise;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.chorus.gossip.libcrypto.CryptoMode;
import dev.chorus.gossip.libcrypto.LibCryptoUnavailableException;
import org.junit.jupiter.api.Test;

/** The choice between libcrypto and the JDK, including a libcrypto that is not there. */
class NoiseCiphersTest {
    private static final String MISSING = "libcrypto-missing-for-test.so.9";

    @Test
    void autoPrefersAUsableLibcrypto() {
        NoiseCiphers.Selection s = NoiseCiphers.select(CryptoMode.AUTO, LibCrypto.DEFAULT_LIBRARY);
        if (s.name().equals("openssl")) {
            assertThat(s.reason()).contains("libcrypto.so.3").contains("passed the RFC 8439 self-test");
        } else {
            assertThat(s.reason()).startsWith("libcrypto unusable: ");
        }
    }

    @Test
    void autoFallsBackToTheJdkWhenLibcryptoIsMissing() {
        NoiseCiphers.Selection s = NoiseCiphers.select(CryptoMode.AUTO, MISSING);
        assertThat(s.name()).isEqualTo("jdk");
        assertThat(s.provider()).isSameAs(NoiseCiphers.jdk());
        assertThat(s.reason()).contains(MISSING).contains("did not load");
        assertThat(s.toString()).doesNotContain("\n");
    }

    @Test
    void jdkModeNeverLoadsLibcrypto() {
        NoiseCiphers.Selection s = NoiseCiphers.select(CryptoMode.JDK, LibCrypto.DEFAULT_LIBRARY);
        assertThat(s.name()).isEqualTo("jdk");
        assertThat(s.reason()).isEqualTo("network.crypto is jdk");
    }

    @Test
    void opensslModeWithoutLibcryptoFailsNamingTheReason() {
        assertThatThrownBy(() -> NoiseCiphers.select(CryptoMode.OPENSSL, MISSING))
                .isInstanceOf(LibCryptoUnavailableException.class)
                .hasMessageContaining("OpenSSL's ChaCha20-Poly1305 was required but is unusable")
                .hasMessageContaining(MISSING);
    }

    @Test
    void aLibraryWithoutTheEvpFunctionsIsRefusedInOneLine() {
        // libc loads but has no EVP functions: the probe must say so, not crash.
        NoiseCiphers.Selection s = NoiseCiphers.select(CryptoMode.AUTO, "libc.so.6");
        assertThat(s.name()).isEqualTo("jdk");
        assertThat(s.reason()).contains("libc.so.6 is not a usable OpenSSL 3").doesNotContain("\n");
    }

    @Test
    void theSystemSelectionIsMadeOnce() {
        assertThat(NoiseCiphers.select(CryptoMode.AUTO)).isSameAs(NoiseCiphers.select(CryptoMode.AUTO));
    }

    @Test
    void modesParseFromTheirConfigNames() {
        assertThat(CryptoMode.parse("auto")).isEqualTo(CryptoMode.AUTO);
        assertThat(CryptoMode.parse("jdk")).isEqualTo(CryptoMode.JDK);
        assertThat(CryptoMode.parse("openssl")).isEqualTo(CryptoMode.OPENSSL);
        assertThatThrownBy(() -> CryptoMode.parse("OpenSSL"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("expected auto, jdk or openssl");
    }
}
