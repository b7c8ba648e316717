package dev.chorus.learning.model;

import java.util.SplittableRandom;

/**
 * Initial weight distributions. Biases always start at zero. Draws use {@link StrictMath} so the
 * same seed gives bit-identical parameters on every JVM and CPU, which lets the nodes of a
 * consortium start from one shared model by agreeing on a seed.
 */
public enum WeightInit {
    /**
     * Zero-mean normal with variance {@code 2 / fanIn}, for weights followed by a ReLU: keeps the
     * variance of activations constant through rectified layers. He, Zhang, Ren and Sun, "Delving
     * Deep into Rectifiers: Surpassing Human-Level Performance on ImageNet Classification", ICCV
     * 2015.
     */
    HE_NORMAL,

    /**
     * Uniform on {@code [-a, a]} with {@code a = sqrt(6 / (fanIn + fanOut))}, for weights followed
     * by a saturating activation or the loss: balances forward and backward variance. Glorot and
     * Bengio, "Understanding the difficulty of training deep feedforward neural networks", AISTATS
     * 2010.
     */
    GLOROT_UNIFORM;

    /** Fills {@code dst[offset .. offset + count)} with draws for a weight of the given fans. */
    public void fill(SplittableRandom random, float[] dst, int offset, int count, int fanIn, int fanOut) {
        if (fanIn <= 0 || fanOut <= 0) {
            throw new IllegalArgumentException("fans must be positive: in " + fanIn + ", out " + fanOut);
        }
        switch (this) {
            case HE_NORMAL -> {
                double std = StrictMath.sqrt(2.0 / fanIn);
                for (int i = 0; i < count; i++) {
                    dst[offset + i] = (float) (std * standardNormal(random));
                }
            }
            case GLOROT_UNIFORM -> {
                double limit = StrictMath.sqrt(6.0 / ((double) fanIn + fanOut));
                for (int i = 0; i < count; i++) {
                    dst[offset + i] = (float) ((2 * random.nextDouble() - 1) * limit);
                }
            }
        }
    }

    /** Box-Muller transform (one of the pair), in strict arithmetic for reproducibility. */
    private static double standardNormal(SplittableRandom random) {
        double u1 = 1.0 - random.nextDouble(); // in (0, 1], so the log is finite
        double u2 = random.nextDouble();
        return StrictMath.sqrt(-2.0 * StrictMath.log(u1)) * StrictMath.cos(2.0 * StrictMath.PI * u2);
    }
}
