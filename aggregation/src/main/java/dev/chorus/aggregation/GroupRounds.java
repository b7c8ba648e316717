package dev.chorus.aggregation;

/**
 * The port through which {@link dev.chorus.aggregation.secure.SecureGroupAveraging} takes part in secure group rounds: the node's side of the
 * protocol implements it, a test may fake it. Thread-safe: the strategy calls it from the training thread while the
 * rounds run on the network's.
 */
public interface GroupRounds {

    /**
     * Offers {@code input} (the caller's copy, not changed afterwards) for this node's next group round.
     *
     * @return false when it cannot be taken now: a round of this node is still running or awaits its start, or the
     *     node has too few peers for a group
     */
    boolean offer(float[] input, long sampleCount);

    /** How the round of the latest accepted offer ended, once; {@code null} while it runs or when none was offered. */
    GroupOutcome poll();

    /** How one offer ended. */
    sealed interface GroupOutcome {}

    /**
     * The group's sum is known: {@code mean} is the mean of the {@code contributors} survivors' inputs (this node's
     * among them), weighted by their sample counts or not as the node's weighting says; {@code sampleCount} their
     * total.
     */
    record Completed(float[] mean, int contributors, long sampleCount) implements GroupOutcome {}

    /** The offer led to no sum (no group formed, fewer than t survivors, a failed check); the model stays as it is. */
    record Abandoned(String reason) implements GroupOutcome {}
}
