/**
 * Asynchronous strategies, which have no round barrier: no node waits for the others to finish a round. Gossip
 * averaging with one random peer at a time ({@link dev.chorus.aggregation.async.GossipAveraging}), fragmented
 * gossip that sends model fragments to several random peers ({@link dev.chorus.aggregation.async.FragmentedGossip}),
 * and buffered aggregation of K deltas ({@link dev.chorus.aggregation.async.BufferedAsynchronousAggregation}).
 * The two gossip strategies can screen each received model with self-centred clipping
 * ({@link dev.chorus.aggregation.SelfCenteredClipping}), which keeps a per-peer record of hard clips. Merging an
 * update is a loop over the parameter vector and allocates nothing; only snapshots to send are copies.
 */
package dev.chorus.aggregation.async;
