package dev.chorus.node.averaging;

/**
 * The averaging settings that a daemon's {@code node.yaml}, the testnet and the demo take when not told otherwise:
 * one place, so that what a new user runs and what the benchmarks measure are the same thing.
 *
 * <p>Why these values: on label-skewed shards a node's steps pull its model towards its own classes, and what
 * brings it back is the next merge. Steps are cheap next to exchanges for small models (tens of thousands of steps
 * a second against a few hundred exchanges), so without a bound a node takes hundreds of steps on its shard between
 * two merges and the consortium's models spread far apart; the drift bound keeps that to a few exchange intervals
 * whatever the ratio of step to link speed. Weighting merges by sample count makes the consensus the model of the
 * pooled data (FedAvg's {@code n_k / n}) rather than the mean of the shards' models, which differ when shard sizes
 * do. docs/aggregation.md gives the measurements behind them.
 */
public final class AveragingDefaults {

    /** Local steps between two exchange rounds ({@code averaging.every_steps}, {@code --exchange-every}). */
    public static final int EXCHANGE_EVERY_STEPS = 10;

    /**
     * The most local steps past the last completed exchange while one of the node's own is in flight ({@code
     * averaging.max_drift_steps}, {@code --max-drift}): one exchange interval, so that a node trains at most about
     * two intervals on its own shard between merges.
     */
    public static final int MAX_DRIFT_STEPS = EXCHANGE_EVERY_STEPS;

    /**
     * The largest factor by which a slow node scales its own steps ({@code averaging.straggler_compensation}, {@code
     * --straggler-compensation}; {@link StepScale}): full compensation for a node at an eighth of the consortium's
     * pace or faster, in part for a slower one. The bound also caps what a node whose version races ahead for another
     * reason (it joined late, a peer claims versions far ahead) does to its own steps.
     */
    public static final double STRAGGLER_COMPENSATION = 8;

    /** Whether asynchronous merges weight each model by its node's sample count ({@code averaging.weighting}). */
    public static final boolean WEIGHT_BY_SAMPLES = true;

    /**
     * How {@code async}, {@code fragmented} and {@code sync} screen received models ({@code averaging.screening}, {@code
     * --screening}): {@code off}. Self-centred clipping judges each model by its distance from the local one, and
     * honest models from stragglers and slow links are stale, so they look far: clipping and dropping them breaks
     * the symmetry of push-pull averaging, and the consensus drifts from the pooled data's model or splits. A
     * consortium that fears a Byzantine member turns {@code clip} on and pays that cost (docs/aggregation.md,
     * "Screening received models"; figures in docs/benchmarks.md).
     */
    public static final StrategySettings.Screening SCREENING = StrategySettings.Screening.off();

    private AveragingDefaults() {}
}
