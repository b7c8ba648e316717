package dev.chorus.aggregation;

import java.util.Set;

/**
 * The barrier of a strategy whose participants end each round together (FedAvg's synchronous rounds): the trainer
 * holds at it while this node's contribution is sent and the round is incomplete, so that every participant starts
 * the next round from the same average. A strategy that has one returns it from {@link AveragingStrategy#barrier()};
 * like the strategy, it is used on the training thread only.
 */
public interface Barrier {

    /** The current round, from 0. */
    long round();

    /** Whether the trainer must wait: this node's contribution is sent and the round is not complete. */
    boolean atBarrier();

    /** Participants whose contribution to the current round is not here yet (this node included until sent). */
    Set<String> missing();

    /**
     * Marks this node as done training: its later contributions carry a sample count of 0, so that they complete the
     * rounds the nodes still training begin without weighing in their average.
     */
    void retire();

    /**
     * For a retired node: whether another participant has begun the current round and this node has not contributed
     * yet, so it should contribute now.
     */
    boolean peerBeganRound();
}
