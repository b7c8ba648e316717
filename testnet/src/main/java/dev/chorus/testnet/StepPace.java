package dev.chorus.testnet;

/**
 * How long the unimpaired nodes of a run take per step, so that a straggler can take a set multiple of it.
 *
 * <p>A time per step is the wall-clock time a node was busy between two steps (training and merging, and any wait
 * for a core the other nodes held; not its waits for the network). On a machine with fewer cores than nodes that is
 * several times a step's CPU time, and a thread that wakes from a pause gets a core at once while the others queue
 * for one, so a straggler that paused by its own CPU time, or its own busy time, would fall short of its factor. It
 * pauses by this shared figure instead.
 *
 * <p>An exponentially weighted mean over the reports of every unimpaired node (weight 1/64 each). Reports race
 * without locks; a lost update only delays the mean a little.
 */
public final class StepPace {
    /**
     * How far behind its pace a node may fall and still make it up by not pausing: on a machine with fewer cores
     * than nodes a thread that wakes from a pause often waits a time slice or more for a core, which a credit of one
     * pause cannot make up. Bounded, so that a long slow stretch (the JIT at work) is not followed by as long a run at
     * full speed.
     */
    static final long CREDIT_NANOS = 100_000_000;

    private volatile double meanNanos = Double.NaN;
    private final long minStepNanos;

    /** @param minStepNanos the shortest time per step of an unimpaired node ({@code --max-steps-per-second}); 0: none */
    StepPace(long minStepNanos) {
        this.minStepNanos = minStepNanos;
    }

    /** An unimpaired node was busy {@code nanos} for one step. */
    void record(long nanos) {
        double m = meanNanos;
        meanNanos = Double.isNaN(m) ? nanos : m + (nanos - m) / 64;
    }

    /** The mean time per step of the unimpaired nodes, or NaN before any report. */
    double meanNanos() {
        return meanNanos;
    }

    /**
     * How long a step of a node slowed by {@code slowdown} (1 for an unimpaired node) should take, when its own was
     * busy for {@code busyNanos}: an unimpaired node's at least the bound's time per step, a straggler's {@code
     * slowdown} times what an unimpaired node's takes (its busy time, or the bound's time where that is longer; its
     * own busy time before any report). 0 where nothing bounds the step.
     */
    long targetNanos(double slowdown, long busyNanos) {
        if (slowdown <= 1) {
            return minStepNanos;
        }
        double mean = meanNanos;
        return (long) (slowdown * Math.max(Double.isNaN(mean) ? busyNanos : mean, minStepNanos));
    }

    /**
     * What a node owes in pauses after a step that was busy {@code busyNanos} against a target of {@code
     * targetNanos}, when it owed {@code owedNanos} before: negative where it is behind its pace, never below {@code
     * -CREDIT_NANOS}.
     */
    static long owed(long owedNanos, long targetNanos, long busyNanos) {
        return Math.max(-CREDIT_NANOS, owedNanos + targetNanos - busyNanos);
    }
}
