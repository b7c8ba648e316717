package dev.chorus.gossip.encoding;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.util.Random;
import org.junit.jupiter.api.Test;

class MultibaseTest {
    /** multiformats/multibase tests/basic.csv and leading_zero.csv ("yes mani !"). */
    @Test
    void multibaseSpecExamples() {
        byte[] text = "yes mani !".getBytes(StandardCharsets.UTF_8);
        assertThat(Base58.encode(text)).isEqualTo("7paNL19xttacUY");
        assertThat(Base32.encode(text)).isEqualTo("pfsxgidnmfxgsibb");
        byte[] lead = "\0yes mani !".getBytes(StandardCharsets.UTF_8);
        assertThat(Base58.encode(lead)).isEqualTo("17paNL19xttacUY");
        assertThat(Base58.decode("17paNL19xttacUY")).isEqualTo(lead);
        assertThat(Base32.decode("PFSXGIDNMFXGSIBB")).isEqualTo(text);
    }

    @Test
    void roundTripsRandomBytes() {
        Random rnd = new Random(7);
        for (int i = 0; i < 300; i++) {
            byte[] b = new byte[rnd.nextInt(50)];
            rnd.nextBytes(b);
            if (b.length > 0 && rnd.nextBoolean()) {
                b[0] = 0;
            }
            assertThat(Base58.decode(Base58.encode(b))).isEqualTo(b);
            assertThat(Base32.decode(Base32.encode(b))).isEqualTo(b);
        }
    }

    /** Against the textbook definition (the bytes as one big-endian number in base 58, a '1' per leading zero). */
    @Test
    void base58MatchesBigIntegerDefinition() {
        Random rnd = new Random(11);
        for (int i = 0; i < 500; i++) {
            byte[] b = new byte[rnd.nextInt(70)];
            rnd.nextBytes(b);
            for (int z = rnd.nextInt(4); z > 0 && z <= b.length; z--) {
                b[z - 1] = 0;
            }
            String expected = bigIntegerBase58(b);
            assertThat(Base58.encode(b)).isEqualTo(expected);
            assertThat(Base58.decode(expected)).isEqualTo(b);
        }
    }

    private static String bigIntegerBase58(byte[] b) {
        String alphabet = "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz";
        StringBuilder sb = new StringBuilder();
        BigInteger n = new BigInteger(1, b);
        BigInteger base = BigInteger.valueOf(58);
        while (n.signum() > 0) {
            sb.append(alphabet.charAt(n.mod(base).intValue()));
            n = n.divide(base);
        }
        for (int i = 0; i < b.length && b[i] == 0; i++) {
            sb.append('1');
        }
        return sb.reverse().toString();
    }

    @Test
    void rejectsBadCharacters() {
        assertThatThrownBy(() -> Base58.decode("12D3Koo0"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("'0'");
        assertThatThrownBy(() -> Base32.decode("abc1")).hasMessageContaining("'1'");
    }
}
