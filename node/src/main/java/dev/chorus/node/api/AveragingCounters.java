package dev.chorus.node.api;

/**
 * The averaging engine's counters, as {@code /api/status} and {@code /metrics} show them: the rounds, then what
 * became of this node's outbound exchanges, of the updates it received, and of the time training waited.
 *
 * @param rounds exchange rounds started (one per {@code averaging.every_steps} steps)
 * @param exchanges this node's outbound exchanges
 * @param updates the models, fragments or deltas received from peers
 * @param waits the time training waited on averaging
 * @param stepScale the scale this node's steps take for its pace against the consortium's ({@code
 *     averaging.straggler_compensation}); 1 for a node as fast as any, or with compensation off
 */
public record AveragingCounters(long rounds, Exchanges exchanges, Updates updates, Waits waits, double stepScale) {

    /** The counters of a node that does not average. */
    public static final AveragingCounters NONE =
            new AveragingCounters(0, new Exchanges(0, 0, 0, 0), new Updates(0, 0, 0, 0, 0), new Waits(0, 0, 0), 1);

    /**
     * This node's outbound exchanges (pulls, pushes), by result.
     *
     * @param sent exchanges that completed
     * @param sendFailures exchanges that failed (unreachable, refused, timed out)
     * @param abandoned exchanges this node gave up and cancelled (a pull past the strategy's patience)
     * @param throttledRounds rounds skipped because every peer had had its exchanges for the second ({@code
     *     averaging.max_exchanges_per_second_per_peer})
     */
    public record Exchanges(long sent, long sendFailures, long abandoned, long throttledRounds) {}

    /**
     * The models, fragments or deltas received from peers, by what became of them.
     *
     * @param received every one received, whatever became of it
     * @param merged received ones the strategy merged or buffered
     * @param ignored received ones the strategy ignored (e.g. too stale, wrong round)
     * @param refused received ones refused as invalid
     * @param versionsClamped received ones that claimed a version further ahead than {@code
     *     averaging.max_version_lead}
     */
    public record Updates(long received, long merged, long ignored, long refused, long versionsClamped) {}

    /**
     * The time training waited on averaging, by reason.
     *
     * @param driftWaitSeconds time training waited for this node's own exchanges ({@code averaging.max_drift_steps})
     * @param barrierWaitSeconds time training waited at the {@code sync} round barrier for the other participants
     * @param roundTimeouts {@code sync} rounds this node stopped waiting for after {@code
     *     averaging.round_timeout_seconds}
     */
    public record Waits(double driftWaitSeconds, double barrierWaitSeconds, long roundTimeouts) {}
}
