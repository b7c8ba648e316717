package dev.chorus.node.secagg;

/**
 * What a member asks of a round's encoding in its OFFER, and what the relay's START settles for the whole group: the
 * largest of every ask ({@link #max}), so that no member's input is clipped or wrapped by terms narrower than its own.
 * Each member derives the round's {@code RoundConfig} from the settled terms, and they are part of the round's ID, so
 * members told different terms refuse each other's messages.
 *
 * @param scale the weight scale e: the member's weight is at most 2^e (0 with uniform weights)
 * @param rangeExponent ρ: every parameter of the member's input is at most 2^ρ in magnitude; the round clips to
 *     min(R, 2^ρ) of the largest ρ asked, R being {@code averaging.secure_range}, so that a model whose parameters are
 *     small gets a fine quantization step without a range tuned to it
 * @param wordBits the masked word, 16 or 32 bits: a member whose model exchange rounds to fewer than 32 bits
 *     ({@code averaging.dtype} int8, fp16 or bf16) asks for 16, half the bytes of a masked model; one asking 32 makes
 *     the round 32
 */
public record Terms(int scale, int rangeExponent, int wordBits) {

    /** The largest weight scale: a weight rides in one 32-bit word of the sum. */
    public static final int MAX_SCALE = 32;
    /** The range exponents a member may ask, 2^-32 to 2^32. */
    public static final int MIN_RANGE_EXPONENT = -32;

    public static final int MAX_RANGE_EXPONENT = 32;

    public Terms {
        if (scale < 0 || scale > MAX_SCALE) {
            throw new IllegalArgumentException("weight scale " + scale + " is outside 0.." + MAX_SCALE);
        }
        if (rangeExponent < MIN_RANGE_EXPONENT || rangeExponent > MAX_RANGE_EXPONENT) {
            throw new IllegalArgumentException("range exponent " + rangeExponent + " is outside " + MIN_RANGE_EXPONENT
                    + ".." + MAX_RANGE_EXPONENT);
        }
        if (wordBits != 16 && wordBits != 32) {
            throw new IllegalArgumentException("a masked word is 16 or 32 bits, not " + wordBits);
        }
    }

    /** The terms that cover both: the larger of each. */
    public Terms max(Terms other) {
        return new Terms(
                Math.max(scale, other.scale),
                Math.max(rangeExponent, other.rangeExponent),
                Math.max(wordBits, other.wordBits));
    }

    /** Whether a round on these terms takes {@code ask}'s input whole: each term at least {@code ask}'s. */
    public boolean covers(Terms ask) {
        return scale >= ask.scale && rangeExponent >= ask.rangeExponent && wordBits >= ask.wordBits;
    }

    /** The round's clipping range: {@code configured} (R), or 2^ρ when that is smaller. */
    public double range(double configured) {
        return Math.min(configured, Math.scalb(1.0, rangeExponent));
    }

    /**
     * ρ for {@code input} clipped to [-{@code configured}, {@code configured}]: the least exponent with every
     * magnitude at most 2^ρ, within {@link #MIN_RANGE_EXPONENT}..{@link #MAX_RANGE_EXPONENT}. It tells the relay the
     * member's largest parameter to within a factor of two.
     */
    public static int rangeExponentOf(float[] input, double configured) {
        double largest = 0;
        for (float v : input) {
            largest = Math.max(largest, Math.abs(v));
        }
        largest = Math.min(largest, configured);
        if (!(largest > 0)) {
            return MIN_RANGE_EXPONENT;
        }
        int e = Math.getExponent(largest);
        if (largest > Math.scalb(1.0, e)) {
            e++;
        }
        return Math.clamp(e, MIN_RANGE_EXPONENT, MAX_RANGE_EXPONENT);
    }
}
