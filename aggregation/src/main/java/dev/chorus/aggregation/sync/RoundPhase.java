package dev.chorus.aggregation.sync;

/** Where a node is in a synchronous round. */
public enum RoundPhase {
    /** Local training for the current round; the next {@code configure} sends the node's contribution. */
    TRAINING,
    /** At the barrier: the contribution is sent (or the node is not in the cohort), waiting for the others. */
    WAITING
}
