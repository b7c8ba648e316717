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
            state += 0x9E3779B97F4A7C15L;
            long z = state;
            z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
            z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
            z ^= z >>> 31;
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
        long z = seed + 0x9E3779B97F4A7C15L * (use + 1);
        z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
        z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
        return z ^ (z >>> 31);
    }
}
