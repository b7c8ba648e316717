package dev.chorus.privacy.secagg;

/**
 * Fixed-point encoding of float vectors in Z_2^b, b = 32 or 16 bits a word, such that the masked sum of up to
 * {@code maxContributors} vectors decodes to their float sum. Masks are added modulo 2^32 whatever b is; since 2^b
 * divides 2^32, the sum taken modulo 2^32 and then reduced modulo 2^b is the sum modulo 2^b, so 16-bit words need
 * no other arithmetic than 32-bit ones, only half the bytes.
 *
 * <p>Clipping is per coordinate, to [-R, R]: only a per-coordinate bound guarantees that no coordinate of the sum
 * overflows, which the modular sum would turn into a silent wrap-around. (A vector clipped to L2 norm C, as
 * differential privacy clips it, already has every coordinate in [-C, C], so R = C is always safe; a smaller R buys
 * resolution at the cost of clipping large coordinates.) A coordinate x becomes q = round((clip(x) + R) * scale) in
 * 0..qmax, with qmax = floor((2^b - 1) / n) and scale = qmax / (2R): the sum of n such values is at most n * qmax <=
 * 2^b - 1, so the sum modulo 2^b is the exact integer sum. The step is 1 / scale = 2R / qmax.
 *
 * <p>Rounding is deterministic, to the nearest step: each coordinate is off by at most step / 2, so the decoded sum
 * of m contributions is within m * step / 2 of the sum of the clipped inputs, and a round can be replayed exactly. The
 * bias that stochastic rounding would remove is below step / 2 = R / qmax, about R * n * 2^-b, which for 32-bit words,
 * R = 1 and n = 1000 is 2.3e-7 (near float32's own resolution at 1), and for 16-bit words, R = 4 and n = 8 is 4.9e-4
 * (a quarter of the step of the int8 encoding of the model exchange for values up to 4).
 */
public final class Quantizer {

    private final double range;
    private final int maxContributors;
    private final int wordBits;
    private final long wordMask;
    private final long maxLevel;
    private final double scale;

    /** A 32-bit quantizer that clips to [-{@code range}, {@code range}] and lets {@code maxContributors} values add up. */
    public Quantizer(double range, int maxContributors) {
        this(range, maxContributors, 32);
    }

    /**
     * A quantizer to words of {@code wordBits} bits (16 or 32) that clips to [-{@code range}, {@code range}] and lets
     * {@code maxContributors} values add up.
     */
    public Quantizer(double range, int maxContributors, int wordBits) {
        if (wordBits != 16 && wordBits != 32) {
            throw new SecAggException("a word is 16 or 32 bits, not " + wordBits);
        }
        if (!(range > 0) || Double.isInfinite(range)) {
            throw new SecAggException("clipping range " + range + " must be a positive finite number");
        }
        if (maxContributors < 1) {
            throw new SecAggException("a sum needs at least one contributor, not " + maxContributors);
        }
        if (maxContributors > (1L << (wordBits - 1))) {
            throw new SecAggException(
                    maxContributors + " contributors leave no resolution in a " + wordBits + "-bit word");
        }
        this.range = range;
        this.maxContributors = maxContributors;
        this.wordBits = wordBits;
        this.wordMask = wordBits == 32 ? 0xFFFF_FFFFL : (1L << wordBits) - 1;
        this.maxLevel = wordMask / maxContributors;
        this.scale = maxLevel / (2 * range);
    }

    public double range() {
        return range;
    }

    public int maxContributors() {
        return maxContributors;
    }

    /** Bits in a word: 16 or 32. */
    public int wordBits() {
        return wordBits;
    }

    /** {@code word} reduced to this quantizer's word: its low {@link #wordBits()} bits, unsigned. */
    public long reduce(int word) {
        return Integer.toUnsignedLong(word) & wordMask;
    }

    /** The size of one quantization step, 2R / qmax: the largest per-coordinate error is half of it. */
    public double step() {
        return 1 / scale;
    }

    /** {@code values} clipped to [-R, R] and encoded as unsigned words; NaN and infinities are refused. */
    public int[] quantize(float[] values) {
        int[] out = new int[values.length];
        for (int i = 0; i < values.length; i++) {
            float v = values[i];
            if (!Float.isFinite(v)) {
                throw new SecAggException("coordinate " + i + " is " + v + "; only finite values can be aggregated");
            }
            double clipped = Math.max(-range, Math.min(range, v));
            long level = Math.round((clipped + range) * scale);
            out[i] = (int) Math.max(0, Math.min(maxLevel, level));
        }
        return out;
    }

    /**
     * The float sum that the modular sum {@code sum} of {@code contributors} quantized vectors encodes (each word taken
     * modulo 2^b, so a sum computed modulo 2^32 decodes as it is).
     */
    public float[] dequantizeSum(int[] sum, int contributors) {
        if (contributors < 1 || contributors > maxContributors) {
            throw new SecAggException("a sum of " + contributors + " contributions is outside 1.." + maxContributors);
        }
        float[] out = new float[sum.length];
        double offset = contributors * range;
        long largest = contributors * maxLevel;
        for (int i = 0; i < sum.length; i++) {
            long word = reduce(sum[i]);
            // No honest sum exceeds m * qmax; a larger word means that a mask was left in or an input was not
            // quantized by this quantizer, and decoding it would return noise as if it were a model.
            if (word > largest) {
                throw new SecAggException("coordinate " + i + " of the sum is above " + contributors
                        + " times the largest level: the sum is still masked or was quantized differently");
            }
            out[i] = (float) (word / scale - offset);
        }
        return out;
    }
}
