package dev.chorus.node.api;

/**
 * What this node exchanged with one peer, as {@code /api/peers} shows it.
 *
 * @param queued messages the strategy addressed to the peer (pulls, pushes, fragments)
 * @param merged models, fragments or deltas from the peer merged into the local model
 * @param failures exchanges with the peer that failed
 * @param lastVersion the model version of the peer's last merged update, -1 before the first
 * @param lastMergeMillis when it was merged (epoch milliseconds), -1 before the first
 */
public record PeerExchangeCounts(long queued, long merged, long failures, long lastVersion, long lastMergeMillis) {}
