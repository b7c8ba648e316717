package dev.chorus.aggregation;

/**
 * A pseudo-random permutation of {@code [0, n)} that depends only on {@code n} and a seed, so that every node of
 * a consortium derives the same one from a shared seed without talking (model fragments, round cohorts).
 *
 * <p>A Fisher-Yates shuffle driven by SplitMix64 (G. Steele, D. Lea, C. Flood, "Fast Splittable Pseudorandom
 * Number Generators", OOPSLA 2014), written out here rather than taken from the JDK so that it cannot change
 * between JDK versions.
 */
public final class SeededPermutation {

    /** SplitMix64's increment, the odd integer closest to 2^64 / phi. */
    static final long GOLDEN_GAMMA = 0x9E3779B97F4A7C15L;

    private SeededPermutation() {}

    /** The permutation of {@code [0, n)} for {@code seed}. */
    public static int[] of(int n, long seed) {
        if (n < 0) {
            throw new IllegalArgumentException("negative size " + n);
        }
        int[] p = new int[n];
        for (int i = 0; i < n; i++) {
            p[i] = i;
        }
        long state = seed;
        for (int i = n - 1; i > 0; i--) {
            state += GOLDEN_GAMMA;
            long z = mix(state);
            // Multiply-shift maps 32 random bits onto [0, i]. Its slight bias does not matter here: what matters
            // is that every node computes the same permutation.
            int j = (int) (((z >>> 32) * (i + 1L)) >>> 32);
            int t = p[i];
            p[i] = p[j];
            p[j] = t;
        }
        return p;
    }

    /** A seed for one use of a shared seed (a round number, say), so that different uses get unrelated draws. */
    public static long derive(long seed, long use) {
        return mix(seed + GOLDEN_GAMMA * (use + 1));
    }

    /** SplitMix64's output function: the {@code k}-th output for seed {@code s} is {@code mix(s + k * gamma)}. */
    static long mix(long z) {
        z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
        z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
        return z ^ (z >>> 31);
    }
}
