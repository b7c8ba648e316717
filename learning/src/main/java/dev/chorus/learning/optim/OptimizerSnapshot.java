package dev.chorus.learning.optim;

/**
 * An optimizer's state copied to the host, for checkpoints: its step count (Adam's bias correction
 * depends on it) and its per-parameter state vectors (SGD's velocity, Adam's two moments), each as
 * long as the parameter vector. {@code slots} is empty when the optimizer keeps no state (plain
 * SGD) or has not stepped yet.
 */
public record OptimizerSnapshot(long steps, float[][] slots) {

    public OptimizerSnapshot {
        if (steps < 0) {
            throw new IllegalArgumentException("optimizer steps must be >= 0, got " + steps);
        }
        slots = slots.clone();
    }

    @Override
    public float[][] slots() {
        return slots.clone();
    }
}
