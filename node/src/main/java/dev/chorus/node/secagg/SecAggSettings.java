package dev.chorus.node.secagg;

import java.time.Duration;
import java.util.Objects;

/**
 * The parameters of the secure strategy's group rounds ({@code averaging.secure.*}); every member of a consortium
 * must use the same ones, since each derives the round's configuration from them and a member that derives another
 * refuses the round.
 *
 * @param groupSize the largest group; the consortium is split into groups of at most this many members each round
 * @param offerWindow how long the relay of a round collects offers; a round that ends within its window is followed
 *     at once by the window's next round
 * @param phaseTimeout how long each of a round's five phases may last; a member silent past it is a dropout
 * @param range the largest clipping bound R: a round clips every parameter to [-R, R], or to the least power of two
 *     that holds every member's parameters when that is smaller ({@link Terms}), before it is quantized
 * @param thresholdFraction t as a fraction of the degree k (t is at least k/2 + 1 whatever this says)
 * @param degree the communication graph's degree k; 0 for the default, about 3 log2 n
 * @param planSeed the seed every member draws the groups from (the consortium's training seed)
 * @param bySampleCount whether a member's input counts in the group's mean in proportion to its sample count
 *     ({@code averaging.weighting: samples}), or every member's the same ({@code uniform})
 */
public record SecAggSettings(
        int groupSize,
        Duration offerWindow,
        Duration phaseTimeout,
        double range,
        double thresholdFraction,
        int degree,
        long planSeed,
        boolean bySampleCount) {

    /** The smallest group a round can run with: with two, the sum would give each member the other's input. */
    public static final int MIN_GROUP = 3;

    public SecAggSettings {
        Objects.requireNonNull(offerWindow, "offerWindow");
        Objects.requireNonNull(phaseTimeout, "phaseTimeout");
        if (groupSize < MIN_GROUP) {
            throw new IllegalArgumentException("group size " + groupSize + " is below " + MIN_GROUP);
        }
        if (offerWindow.toMillis() < 10 || phaseTimeout.toMillis() < 10) {
            throw new IllegalArgumentException("the offer window and the phase timeout must be at least 10 ms");
        }
        if (!(range > 0) || Double.isInfinite(range)) {
            throw new IllegalArgumentException("range " + range + " must be a positive finite number");
        }
        if (!(thresholdFraction > 0.5 && thresholdFraction <= 1)) {
            throw new IllegalArgumentException("threshold fraction " + thresholdFraction + " must be in (0.5, 1]");
        }
        if (degree < 0) {
            throw new IllegalArgumentException("degree " + degree + " must be 0 (automatic) or positive");
        }
    }

    /** The defaults of {@code node.yaml}. */
    public static SecAggSettings defaults(long planSeed) {
        return new SecAggSettings(8, Duration.ofMillis(500), Duration.ofSeconds(5), 64, 0.6, 0, planSeed, true);
    }

    public SecAggSettings withGroupSize(int size) {
        return new SecAggSettings(
                size, offerWindow, phaseTimeout, range, thresholdFraction, degree, planSeed, bySampleCount);
    }

    public SecAggSettings withOfferWindow(Duration window) {
        return new SecAggSettings(
                groupSize, window, phaseTimeout, range, thresholdFraction, degree, planSeed, bySampleCount);
    }

    public SecAggSettings withPhaseTimeout(Duration timeout) {
        return new SecAggSettings(
                groupSize, offerWindow, timeout, range, thresholdFraction, degree, planSeed, bySampleCount);
    }

    public SecAggSettings withSampleWeighting(boolean weighted) {
        return new SecAggSettings(
                groupSize, offerWindow, phaseTimeout, range, thresholdFraction, degree, planSeed, weighted);
    }
}
