package dev.chorus.privacy.secagg;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** Masking and unmasking: cancellation, aborts, and what a masked vector shows of its input. */
class MaskingTest {

    @Test
    void pairwiseMasksCancelInTheSumOfAllMembers() {
        GroupSimulation group = new GroupSimulation(6, 5, 3, 100, new Random(1));
        int[] sum = new int[100];
        for (int u = 0; u < 6; u++) {
            int[] y = group.maskedInput(u);
            for (int i = 0; i < sum.length; i++) {
                sum[i] += y[i];
            }
            MaskPrg.subtract(sum, group.selfSeed(u), Masking.selfLabel(group.roundId));
        }
        assertThat(sum).isEqualTo(group.plainSum(group.survivors(Set.of())));
        assertThat(group.run(Set.of(), Set.of())).isEqualTo(sum);
    }

    @Test
    void bothMembersOfAPairDeriveTheSameSeedAndItDependsOnTheRound() {
        X25519.KeyPair a = X25519.fromPrivateKey(GroupSimulation.bytes(new Random(1)));
        X25519.KeyPair b = X25519.fromPrivateKey(GroupSimulation.bytes(new Random(2)));
        byte[] ab = Masking.pairwiseSeed(a.privateKey(), b.publicKey(), "r1", 3, 8);
        assertThat(Masking.pairwiseSeed(b.privateKey(), a.publicKey(), "r1", 8, 3))
                .isEqualTo(ab);
        assertThat(Masking.pairwiseSeed(a.privateKey(), b.publicKey(), "r2", 3, 8))
                .isNotEqualTo(ab);
        assertThat(Masking.pairwiseSeed(a.privateKey(), b.publicKey(), "r1", 3, 9))
                .isNotEqualTo(ab);
    }

    @Test
    void aRoundAbortsWhenASecretHasFewerSharesThanTheThreshold() {
        // Degree 4, threshold 4: every holder is needed, so one member that sends its masked input and then
        // vanishes leaves each of its neighbours' self-mask seeds one share short.
        GroupSimulation group = new GroupSimulation(8, 4, 4, 10, new Random(2));
        assertThat(group.recoverable(Set.of(), Set.of(0))).isFalse();
        assertThatThrownBy(() -> group.run(Set.of(), Set.of(0)))
                .isInstanceOf(SecAggAbortedException.class)
                .hasMessageStartingWith("fewer than 4 shares of the self-mask seed of members [")
                .hasMessageEndingWith("arrived; the round cannot be unmasked and is abandoned");
    }

    @Test
    void sharesOfBothSecretsOfOneMemberAbortTheRound() {
        CommunicationGraph graph = CommunicationGraph.of(4, new byte[32], 0);
        List<ShamirShare> shares = Shamir.split(new byte[32], 1, 3, new Random(1));
        assertThatThrownBy(() -> Recovery.recover(graph, Set.of(0, 1, 2, 3), Map.of(), Map.of(0, shares), 1))
                .isInstanceOf(SecAggAbortedException.class)
                .hasMessageContaining("revealing both of its secrets would unmask its input");
    }

    @Test
    void theShortageIsFoundBeforeAnySecretIsReconstructed() {
        // Member 0's shares are enough but one is corrupt, which reconstruction would report; member 1's are too
        // few. The abort for member 1 comes first: nothing is reconstructed in a round that cannot finish.
        CommunicationGraph graph = CommunicationGraph.of(4, new byte[32], 0);
        List<ShamirShare> shares = new java.util.ArrayList<>(Shamir.split(new byte[32], 2, 3, new Random(1)));
        ShamirShare last = shares.get(2);
        shares.set(2, new ShamirShare(last.index(), last.value().add(java.math.BigInteger.ONE)));
        Map<Integer, List<ShamirShare>> selfSeeds = Map.of(0, shares, 1, shares.subList(0, 1));
        assertThatThrownBy(() -> Recovery.recover(graph, Set.of(0, 1), selfSeeds, Map.of(), 2))
                .isInstanceOf(SecAggAbortedException.class)
                .hasMessageContaining("members [1]");
        assertThatThrownBy(() -> Shamir.reconstruct(shares, 2))
                .isInstanceOf(SecAggException.class)
                .hasMessageContaining("does not lie on the polynomial");
    }

    @Test
    void aMaskedVectorIsUniformWhateverTheInput() {
        int d = 32_000;
        GroupSimulation group = new GroupSimulation(5, 4, 3, d, new Random(3));
        for (int fill : new int[] {0, -1}) {
            java.util.Arrays.fill(group.inputs[0], fill);
            int[] y = group.maskedInput(0);
            int[] bins = new int[16];
            for (int word : y) {
                bins[word >>> 28]++;
            }
            // 15 degrees of freedom: the statistic exceeds 37.7 with probability 0.001.
            assertThat(ShamirPropertyTest.chiSquare(bins, d))
                    .as("input filled with %d", fill)
                    .isLessThan(37.7);
        }
    }

    @Test
    void aMaskedVectorIsUncorrelatedWithTheInput() {
        int d = 32_000;
        GroupSimulation group = new GroupSimulation(5, 4, 3, d, new Random(4));
        int[] x = group.inputs[1];
        int[] y = group.maskedInput(1);
        double[] xs = new double[d];
        double[] ys = new double[d];
        for (int i = 0; i < d; i++) {
            xs[i] = Integer.toUnsignedLong(x[i]);
            ys[i] = Integer.toUnsignedLong(y[i]);
        }
        // Under independence the sample correlation has standard deviation 1 / sqrt(d), about 0.0056.
        assertThat(Math.abs(correlation(xs, ys))).isLessThan(4 / Math.sqrt(d));
    }

    private static double correlation(double[] a, double[] b) {
        double meanA = java.util.Arrays.stream(a).average().orElseThrow();
        double meanB = java.util.Arrays.stream(b).average().orElseThrow();
        double cov = 0;
        double varA = 0;
        double varB = 0;
        for (int i = 0; i < a.length; i++) {
            cov += (a[i] - meanA) * (b[i] - meanB);
            varA += (a[i] - meanA) * (a[i] - meanA);
            varB += (b[i] - meanB) * (b[i] - meanB);
        }
        return cov / Math.sqrt(varA * varB);
    }
}
