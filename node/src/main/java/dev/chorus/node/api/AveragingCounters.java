package dev.chorus.node.api;

/**
 * The averaging engine's counters, as {@code /api/status} and {@code /metrics} show them.
 *
 * @param rounds exchange rounds started (one per {@code averaging.every_steps} steps)
 * @param sent exchanges (pulls, pushes) that completed
 * @param sendFailures exchanges that failed (unreachable, refused, timed out)
 * @param abandoned exchanges this node gave up and cancelled (a pull past the strategy's patience)
 * @param received models, fragments or deltas received from peers
 * @param merged received ones the strategy merged or buffered
 * @param ignored received ones the strategy ignored (e.g. too stale, wrong round)
 * @param refused received ones refused as invalid
 * @param versionsClamped received ones that claimed a version further ahead than {@code averaging.max_version_lead}
 * @param driftWaitSeconds time training waited for this node's own exchanges ({@code averaging.max_drift_steps})
 * @param barrierWaitSeconds time training waited at the {@code sync} round barrier for the other participants
 * @param roundTimeouts {@code sync} rounds this node stopped waiting for after {@code averaging.round_timeout_seconds}
 */
public record AveragingCounters(
        long rounds,
        long sent,
        long sendFailures,
        long abandoned,
        long received,
        long merged,
        long ignored,
        long refused,
        long versionsClamped,
        double driftWaitSeconds,
        double barrierWaitSeconds,
        long roundTimeouts) {

    /** The counters of a node that does not average. */
    public static final AveragingCounters NONE = new AveragingCounters(0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0);
}
