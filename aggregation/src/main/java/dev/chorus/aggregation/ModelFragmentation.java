package dev.chorus.aggregation;

/**
 * A cut of the coordinates {@code [0, dimension)} into {@code fragments} disjoint fragments of near-equal size
 * (sizes differ by at most one), by a pseudo-random permutation derived from a seed shared by the consortium. Every
 * node derives the same fragments, so a fragment can be named by its number on the wire.
 *
 * <p>Fragment {@code f} holds the coordinates at positions {@code [f * d / F, (f + 1) * d / F)} of the
 * {@link SeededPermutation} of {@code [0, d)} for the seed.
 */
public final class ModelFragmentation {

    private final int dimension;
    private final long seed;
    private final int[][] fragments;

    /**
     * @param dimension the model's parameter count, at least 1
     * @param fragments how many fragments, in {@code [1, dimension]}
     * @param seed the consortium's shared seed
     */
    public ModelFragmentation(int dimension, int fragments, long seed) {
        if (dimension <= 0) {
            throw new IllegalArgumentException("dimension must be positive, got " + dimension);
        }
        if (fragments <= 0 || fragments > dimension) {
            throw new IllegalArgumentException("fragment count must be in [1, " + dimension
                    + "] (one coordinate at least each), got " + fragments);
        }
        this.dimension = dimension;
        this.seed = seed;
        int[] permutation = SeededPermutation.of(dimension, seed);
        this.fragments = new int[fragments][];
        for (int f = 0; f < fragments; f++) {
            int from = (int) ((long) f * dimension / fragments);
            int to = (int) ((long) (f + 1) * dimension / fragments);
            int[] slice = new int[to - from];
            System.arraycopy(permutation, from, slice, 0, slice.length);
            this.fragments[f] = slice;
        }
    }

    public int dimension() {
        return dimension;
    }

    /** The seed the permutation was derived from: with the fragment count, it names this fragmentation on the wire. */
    public long seed() {
        return seed;
    }

    public int fragmentCount() {
        return fragments.length;
    }

    /** The coordinates of fragment {@code f}. Shared: callers must not change the array. */
    public int[] indices(int f) {
        return fragments[f];
    }

    /** Whether {@code indices} is the very array of one of this cut's fragments (not merely equal to one). */
    public boolean isFragment(int[] indices) {
        for (int[] f : fragments) {
            if (f == indices) {
                return true;
            }
        }
        return false;
    }

    /** Gathers the values of fragment {@code f} from {@code params} into a new array. */
    public float[] gather(int f, float[] params) {
        int[] idx = fragments[f];
        float[] values = new float[idx.length];
        for (int k = 0; k < idx.length; k++) {
            values[k] = params[idx[k]];
        }
        return values;
    }
}
