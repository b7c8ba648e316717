package dev.chorus.learning.optim;

import java.util.Locale;

/**
 * A learning rate as a function of training progress {@code p} in {@code [0, 1]}, relative to the optimizer's
 * initial rate {@code lr0}:
 *
 * <ul>
 *   <li>{@code constant}: {@code lr0} throughout;
 *   <li>{@code cosine[:FLOOR]}: cosine annealing from {@code lr0} at {@code p = 0} down to {@code FLOOR * lr0} at
 *       {@code p = 1} and after, {@code lr(p) = lr0 * (FLOOR + (1 - FLOOR) * (1 + cos(pi * p)) / 2)} (Loshchilov
 *       and Hutter, "SGDR: Stochastic Gradient Descent with Warm Restarts", ICLR 2017, one cycle without
 *       restart). {@code FLOOR} lies in {@code [0, 1]}, default {@value #DEFAULT_FLOOR}.
 * </ul>
 *
 * <p>What progress means is the caller's: the share of a fixed training duration, or of a number of steps.
 * Decaying the rate matters more to decentralized averaging than to training alone: how far the nodes' models
 * spread apart between exchanges, on shards whose classes differ, grows with the step size (Lian et al., "Can
 * Decentralized Algorithms Outperform Centralized Algorithms?", NeurIPS 2017).
 *
 * @param cosine whether the rate anneals (else it stays constant)
 * @param floor the final rate as a share of the initial one (cosine only; 1 for constant)
 */
public record LearningRateSchedule(boolean cosine, double floor) {

    public static final double DEFAULT_FLOOR = 0.05;

    public static final LearningRateSchedule CONSTANT = new LearningRateSchedule(false, 1);

    public LearningRateSchedule {
        if (!(floor >= 0 && floor <= 1)) {
            throw new IllegalArgumentException("learning rate floor must lie in [0, 1], got " + floor);
        }
        if (!cosine && floor != 1) {
            throw new IllegalArgumentException("a constant learning rate has no floor");
        }
    }

    /** Cosine annealing down to {@code floor} times the initial rate. */
    public static LearningRateSchedule cosine(double floor) {
        return new LearningRateSchedule(true, floor);
    }

    /**
     * Parses {@code constant}, {@code cosine} or {@code cosine:FLOOR}.
     *
     * @throws IllegalArgumentException naming what is wrong
     */
    public static LearningRateSchedule parse(String text) {
        String t = text.strip().toLowerCase(Locale.ROOT);
        if (t.equals("constant")) {
            return CONSTANT;
        }
        if (t.equals("cosine")) {
            return cosine(DEFAULT_FLOOR);
        }
        if (t.startsWith("cosine:")) {
            String f = t.substring("cosine:".length());
            double floor;
            try {
                floor = Double.parseDouble(f);
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException(
                        "learning rate schedule '" + text + "': floor '" + f + "' is not a number");
            }
            if (!(floor >= 0 && floor <= 1)) {
                throw new IllegalArgumentException(
                        "learning rate schedule '" + text + "': floor must lie in [0, 1], got " + f);
            }
            return cosine(floor);
        }
        throw new IllegalArgumentException(
                "learning rate schedule '" + text + "' is not one of constant, cosine, cosine:FLOOR");
    }

    /** The rate at {@code progress} (clamped to [0, 1]) for an initial rate {@code initial}. */
    public float rate(float initial, double progress) {
        if (!cosine) {
            return initial;
        }
        double p = Double.isNaN(progress) ? 0 : Math.min(1, Math.max(0, progress));
        double f = floor + (1 - floor) * 0.5 * (1 + Math.cos(Math.PI * p));
        // An optimizer refuses a rate of 0; the floor 0 ends at the smallest positive rate instead.
        return (float) Math.max(initial * f, Float.MIN_NORMAL);
    }

    /** The form {@link #parse} accepts. */
    public String spec() {
        return cosine ? "cosine:" + floor : "constant";
    }

    @Override
    public String toString() {
        return spec();
    }
}
