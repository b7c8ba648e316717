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
 */
public record StrategySettings(
        UpdateWeighting weighting,
        Duration exchangeTimeout,
        Fragmenting fragmenting,
        Buffering buffering,
        Set<String> participants) {

    public StrategySettings {
        Objects.requireNonNull(weighting, "weighting");
        Objects.requireNonNull(exchangeTimeout, "exchangeTimeout");
        Objects.requireNonNull(fragmenting, "fragmenting");
        Objects.requireNonNull(buffering, "buffering");
        participants = Set.copyOf(participants);
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
}
