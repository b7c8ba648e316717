package dev.chorus.privacy.secagg;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.math.BigInteger;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** Shamir sharing: the field, the encoding of shares and the refusal of bad shares. */
class ShamirTest {

    private static byte[] secret(long seed) {
        byte[] secret = new byte[32];
        new Random(seed).nextBytes(secret);
        return secret;
    }

    @Test
    void theFieldIsTheSmallestPrimeAbove2To256() {
        BigInteger two256 = BigInteger.ONE.shiftLeft(256);
        assertThat(Shamir.PRIME.isProbablePrime(128)).isTrue();
        for (int offset = 1; offset < 297; offset++) {
            assertThat(two256.add(BigInteger.valueOf(offset)).isProbablePrime(40))
                    .as("2^256 + %d", offset)
                    .isFalse();
        }
    }

    @Test
    void theAllOnesAndAllZeroSecretsRoundTrip() {
        byte[] ones = new byte[32];
        java.util.Arrays.fill(ones, (byte) 0xff);
        for (byte[] secret : new byte[][] {ones, new byte[32]}) {
            List<ShamirShare> shares = Shamir.split(secret, 3, 5, new Random(1));
            assertThat(Shamir.reconstruct(shares.subList(2, 5), 3)).isEqualTo(secret);
        }
    }

    @Test
    void aShareRoundTripsThroughItsBytesAndHidesItsValueFromToString() {
        for (ShamirShare share : Shamir.split(secret(5), 2, 4, new Random(2))) {
            assertThat(share.valueBytes()).hasSize(33);
            assertThat(ShamirShare.of(share.index(), share.valueBytes())).isEqualTo(share);
            assertThat(share.toString()).doesNotContain(share.value().toString());
        }
    }

    @Test
    void duplicateOrInvalidIndicesAreRefused() {
        List<ShamirShare> shares = Shamir.split(secret(1), 2, 3, new Random(3));
        List<ShamirShare> duplicated = List.of(shares.get(0), shares.get(0));
        assertThatThrownBy(() -> Shamir.reconstruct(duplicated, 2))
                .isInstanceOf(SecAggException.class)
                .hasMessage("share index 1 appears twice");
        assertThatThrownBy(() -> new ShamirShare(0, BigInteger.ONE))
                .isInstanceOf(SecAggException.class)
                .hasMessageContaining("share index 0 is outside");
        assertThatThrownBy(() -> new ShamirShare(1, Shamir.PRIME))
                .isInstanceOf(SecAggException.class)
                .hasMessageContaining("outside the field");
        assertThatThrownBy(() -> Shamir.split(secret(1), 2, new int[] {1, 2, 2}, new Random(1)))
                .isInstanceOf(SecAggException.class)
                .hasMessage("share index 2 appears twice");
        assertThatThrownBy(() -> Shamir.split(secret(1), 2, new int[] {0, 1}, new Random(1)))
                .isInstanceOf(SecAggException.class)
                .hasMessageContaining("share index 0 is outside");
    }

    @Test
    void tooFewSharesOrABadThresholdAreRefused() {
        List<ShamirShare> shares = Shamir.split(secret(1), 3, 5, new Random(4));
        assertThatThrownBy(() -> Shamir.reconstruct(shares.subList(0, 2), 3))
                .isInstanceOf(SecAggException.class)
                .hasMessage("reconstruction needs 3 shares; only 2 were given");
        assertThatThrownBy(() -> Shamir.split(secret(1), 6, 5, new Random(1)))
                .isInstanceOf(SecAggException.class)
                .hasMessageContaining("threshold 6");
        assertThatThrownBy(() -> Shamir.split(new byte[31], 2, 5, new Random(1)))
                .isInstanceOf(SecAggException.class)
                .hasMessageContaining("not 31");
    }

    @Test
    void aCorruptedExtraShareIsDetected() {
        List<ShamirShare> shares = new ArrayList<>(Shamir.split(secret(1), 3, 5, new Random(5)));
        ShamirShare last = shares.get(4);
        shares.set(
                4,
                new ShamirShare(last.index(), last.value().add(BigInteger.ONE).mod(Shamir.PRIME)));
        assertThat(Shamir.reconstruct(shares.subList(0, 3), 3)).isEqualTo(secret(1));
        assertThatThrownBy(() -> Shamir.reconstruct(shares, 3))
                .isInstanceOf(SecAggException.class)
                .hasMessage("share 5 does not lie on the polynomial of the others");
    }
}
