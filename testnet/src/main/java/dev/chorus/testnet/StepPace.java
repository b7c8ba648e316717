package dev.chorus.testnet;

import java.util.concurrent.atomic.LongAdder;

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
    private final LongAdder unimpairedSteps = new LongAdder();
    private final int unimpairedNodes;

    /** @param minStepNanos the shortest time per step of an unimpaired node ({@code --max-steps-per-second}); 0: none */
    StepPace(long minStepNanos) {
        this(minStepNanos, 0);
    }

    /**
     * @param minStepNanos the shortest time per step of an unimpaired node ({@code --max-steps-per-second}); 0: none
     * @param unimpairedNodes the run's nodes that are not stragglers; with none, stragglers go by time per step
     */
    StepPace(long minStepNanos, int unimpairedNodes) {
        this.minStepNanos = minStepNanos;
        this.unimpairedNodes = unimpairedNodes;
    }

    /** An unimpaired node took a step. */
    void countStep() {
        unimpairedSteps.increment();
    }

    /**
     * Whether stragglers are paced by the unimpaired nodes' count of steps rather than their time per step: a count
     * holds a straggler to its factor however short a step is, since the work around a step (listeners, wake-ups)
     * that a time per step leaves out is in the unimpaired nodes' count as in the straggler's.
     */
    boolean pacesByCount() {
        return unimpairedNodes > 0;
    }

    /** How many steps a node slowed by {@code slowdown} may have taken by now: the unimpaired nodes' mean over it. */
    double allowedSteps(double slowdown) {
        return unimpairedSteps.sum() / (double) unimpairedNodes / slowdown;
    }

    /**
     * The offset to take off {@link #allowedSteps} for a straggler that has taken {@code taken} steps, so that it is
     * never more than {@code maxBehind} steps behind: a straggler held up (by the JIT, a busy core) makes up at most
     * that much by not pausing, as {@link #owed} bounds an unimpaired node's credit.
     */
    static double creditOffset(double offset, double allowed, long taken, double maxBehind) {
        double behind = allowed - offset - taken;
        return behind > maxBehind ? allowed - taken - maxBehind : offset;
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
