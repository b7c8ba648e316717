package dev.chorus.privacy.secagg;

import static org.assertj.core.api.Assertions.assertThat;

import java.math.BigInteger;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/** Shamir sharing on seeded random secrets, thresholds and subsets of shares. */
class ShamirPropertyTest {

    @ParameterizedTest(name = "seed {0}")
    @MethodSource("dev.chorus.privacy.secagg.Seeds#seeds")
    void anyThresholdOfTheSharesReconstructsTheSecret(long seed) {
        Random random = new Random(seed);
        int n = 1 + random.nextInt(12);
        int t = 1 + random.nextInt(n);
        byte[] secret = new byte[32];
        random.nextBytes(secret);
        List<ShamirShare> shares = Shamir.split(secret, t, n, random);
        assertThat(shares)
                .extracting(ShamirShare::index)
                .doesNotHaveDuplicates()
                .allMatch(i -> i >= 1 && i <= n);
        for (int trial = 0; trial < 10; trial++) {
            List<ShamirShare> subset = new ArrayList<>(shares);
            Collections.shuffle(subset, random);
            int size = t + random.nextInt(n - t + 1);
            assertThat(Shamir.reconstruct(subset.subList(0, size), t)).isEqualTo(secret);
        }
    }

    @ParameterizedTest(name = "seed {0}")
    @MethodSource("dev.chorus.privacy.secagg.Seeds#seeds")
    void fewerSharesThanTheThresholdDoNotGiveTheSecretBack(long seed) {
        Random random = new Random(seed);
        int t = 2 + random.nextInt(5);
        int n = t + random.nextInt(5);
        byte[] secret = new byte[32];
        random.nextBytes(secret);
        List<ShamirShare> shares = new ArrayList<>(Shamir.split(secret, t, n, random));
        Collections.shuffle(shares, random);
        List<ShamirShare> tooFew = shares.subList(0, t - 1);
        // The polynomial through t-1 shares is of degree t-2, not the sharing one: at 0 it misses the secret
        // except with probability 1/p.
        assertThat(Shamir.interpolate(tooFew, BigInteger.ZERO)).isNotEqualTo(new BigInteger(1, secret));
    }

    /**
     * t - 1 shares are uniform whatever the secret: the joint distribution of the top two bits of shares 1 and 2 of
     * a 3-of-5 sharing passes a chi-square test against the uniform one, for the all-zero and the all-ones secret.
     */
    @Test
    void twoSharesOfAThreeOfFiveSharingAreUniformForAnySecret() {
        byte[] ones = new byte[32];
        java.util.Arrays.fill(ones, (byte) 0xff);
        Random random = new Random(7);
        for (byte[] secret : new byte[][] {new byte[32], ones}) {
            int samples = 4000;
            int[] bins = new int[16];
            for (int i = 0; i < samples; i++) {
                List<ShamirShare> shares = Shamir.split(secret, 3, 5, random);
                bins[
                        topTwoBits(shares.get(0).value()) * 4
                                + topTwoBits(shares.get(1).value())]++;
            }
            // 15 degrees of freedom: the statistic exceeds 37.7 with probability 0.001.
            assertThat(chiSquare(bins, samples)).isLessThan(37.7);
        }
    }

    private static int topTwoBits(BigInteger value) {
        return value.shiftLeft(2).divide(Shamir.PRIME).intValueExact();
    }

    static double chiSquare(int[] bins, int samples) {
        double expected = (double) samples / bins.length;
        double sum = 0;
        for (int count : bins) {
            sum += (count - expected) * (count - expected) / expected;
        }
        return sum;
    }
}
