package dev.chorus.privacy.secagg;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.HexFormat;
import org.junit.jupiter.api.Test;

/** HKDF-SHA256 against the test vectors of RFC 5869 appendix A (cases 1 to 3, the SHA-256 ones). */
class HkdfTest {

    private static final HexFormat HEX = HexFormat.of();

    private static byte[] range(int from, int toExclusive) {
        byte[] out = new byte[toExclusive - from];
        for (int i = 0; i < out.length; i++) {
            out[i] = (byte) (from + i);
        }
        return out;
    }

    private static byte[] elevens() {
        byte[] ikm = new byte[22];
        java.util.Arrays.fill(ikm, (byte) 0x0b);
        return ikm;
    }

    private static void check(byte[] ikm, byte[] salt, byte[] info, int length, String prk, String okm) {
        assertThat(HEX.formatHex(Hkdf.extract(salt, ikm))).isEqualTo(prk);
        assertThat(HEX.formatHex(Hkdf.expand(HEX.parseHex(prk), info, length))).isEqualTo(okm);
        assertThat(HEX.formatHex(Hkdf.derive(salt, ikm, info, length))).isEqualTo(okm);
    }

    @Test
    void rfc5869CaseOneBasic() {
        check(
                elevens(),
                HEX.parseHex("000102030405060708090a0b0c"),
                HEX.parseHex("f0f1f2f3f4f5f6f7f8f9"),
                42,
                "077709362c2e32df0ddc3f0dc47bba6390b6c73bb50f9c3122ec844ad7c2b3e5",
                "3cb25f25faacd57a90434f64d0362f2a2d2d0a90cf1a5a4c5db02d56ecc4c5bf34007208d5b887185865");
    }

    @Test
    void rfc5869CaseTwoLongInputs() {
        check(
                range(0x00, 0x50),
                range(0x60, 0xb0),
                range(0xb0, 0x100),
                82,
                "06a6b88c5853361a06104c9ceb35b45cef760014904671014a193f40c15fc244",
                "b11e398dc80327a1c8e7f78c596a49344f012eda2d4efad8a050cc4c19afa97c"
                        + "59045a99cac7827271cb41c65e590e09da3275600c2f09b8367793a9aca3db71"
                        + "cc30c58179ec3e87c14c01d5c1f3434f1d87");
    }

    @Test
    void rfc5869CaseThreeEmptySaltAndInfo() {
        check(
                elevens(),
                new byte[0],
                new byte[0],
                42,
                "19ef24a32c717b167f33a91d6f648bdf96596776afdb6377ac434c1c293ccb04",
                "8da4e775a563c18f715f802a063c5a31b8a11f5c5ee1879ec3454e5f3c738d2d9d201395faa4b61a96c8");
    }

    @Test
    void anOutputBeyond255BlocksOrAShortKeyIsRefused() {
        byte[] prk = new byte[32];
        assertThat(Hkdf.expand(prk, new byte[0], Hkdf.MAX_OUTPUT_LENGTH)).hasSize(8160);
        assertThatThrownBy(() -> Hkdf.expand(prk, new byte[0], Hkdf.MAX_OUTPUT_LENGTH + 1))
                .isInstanceOf(SecAggException.class)
                .hasMessageContaining("RFC 5869");
        assertThatThrownBy(() -> Hkdf.expand(new byte[16], new byte[0], 32))
                .isInstanceOf(SecAggException.class)
                .hasMessageContaining("16 bytes");
    }
}
