package dev.chorus.node.averaging;

import dev.chorus.aggregation.weighting.UpdateWeighting;
import java.time.Duration;
import java.util.Objects;
import java.util.Set;

/**
 * What {@link AveragingKind#create} reads besides the kind: the daemon fills it from the {@code averaging} section of
 * its configuration, the testnet from its own settings. Each kind reads only its own part.
 *
 * @param weighting how received models are weighted (staleness, sample count): {@code async}, {@code fragmented}
 * @param exchangeTimeout how long a gossip pull is awaited at most: {@code async}
 * @param fragmenting how the model is cut and spread: {@code fragmented}
 * @param buffering the aggregator and its buffer: {@code fedbuff}
 * @param participants every node of a round, this one included: {@code sync}
 * @param robustness the robust rule and the round deadline: {@code sync}, {@code fedbuff}
 */
public record StrategySettings(
        UpdateWeighting weighting,
        Duration exchangeTimeout,
        Fragmenting fragmenting,
        Buffering buffering,
        Set<String> participants,
        Robustness robustness) {

    public StrategySettings {
        Objects.requireNonNull(weighting, "weighting");
        Objects.requireNonNull(exchangeTimeout, "exchangeTimeout");
        Objects.requireNonNull(fragmenting, "fragmenting");
        Objects.requireNonNull(buffering, "buffering");
        participants = Set.copyOf(participants);
        Objects.requireNonNull(robustness, "robustness");
    }

    /**
     * @param fragments fragments per round; 0 for {@code FragmentedGossip.defaultFragments} of the model's size
     * @param fanout peers each fragment is sent to
     * @param seed the fragmentation's seed, the same on every node
     * @param balanced whether each node scales what it takes from received fragments by its ratio of coordinates
     *     delivered to received
     */
    public record Fragmenting(int fragments, int fanout, long seed, boolean balanced) {}

    /**
     * @param aggregator the aggregator's peer id (base58); null when no node aggregates
     * @param bufferSize deltas per applied buffer
     */
    public record Buffering(String aggregator, int bufferSize) {}

    /**
     * @param rule what replaces the weighted mean where several models are combined at once ({@code sync}'s round,
     *     {@code fedbuff}'s buffer); {@link RobustRule#NONE} keeps the mean
     * @param roundDeadline how long a {@code sync} round stays open before it closes with the models at hand
     *     ({@code DeadlineAveraging}); zero for a barrier that waits for every participant
     */
    public record Robustness(RobustRule rule, Duration roundDeadline) {

        /** The weighted mean and a barrier without deadline. */
        public static final Robustness NONE = new Robustness(RobustRule.NONE, Duration.ZERO);

        public Robustness {
            Objects.requireNonNull(rule, "rule");
            Objects.requireNonNull(roundDeadline, "roundDeadline");
            if (roundDeadline.isNegative()) {
                throw new IllegalArgumentException("round deadline must be >= 0, got " + roundDeadline);
            }
        }

        /** Whether {@code sync} closes rounds at a deadline instead of waiting for every participant. */
        public boolean hasDeadline() {
            return !roundDeadline.isZero();
        }
    }
}
