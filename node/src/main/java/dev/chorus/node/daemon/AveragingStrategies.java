package dev.chorus.node.daemon;

import dev.chorus.aggregation.AveragingStrategy;
import dev.chorus.aggregation.async.BufferedAsynchronousAggregation;
import dev.chorus.aggregation.async.FragmentedGossip;
import dev.chorus.aggregation.async.GossipAveraging;
import dev.chorus.aggregation.sync.SynchronousAveraging;
import dev.chorus.aggregation.weighting.StalenessWeighting;
import dev.chorus.aggregation.weighting.UpdateWeighting;
import dev.chorus.node.config.ConfigException;
import dev.chorus.node.config.ConfigSchema;
import dev.chorus.node.config.NodeConfig;
import java.util.LinkedHashSet;

/**
 * Builds the {@link AveragingStrategy} that {@code averaging.strategy} names, with the parameters of the {@code
 * averaging} section (docs/aggregation.md describes each algorithm and cites its paper).
 */
final class AveragingStrategies {

    private AveragingStrategies() {}

    /**
     * @param config the node's configuration ({@code averaging.strategy} is not {@code none})
     * @param self this node's peer id (base58)
     * @param dimension the model's parameter count
     * @throws ConfigException naming the key when the section does not fit this node or model
     */
    static AveragingStrategy create(NodeConfig config, String self, int dimension) {
        NodeConfig.Averaging a = config.averaging();
        UpdateWeighting weighting = new UpdateWeighting(StalenessWeighting.constant(), a.bySampleCount());
        return switch (a.strategy()) {
            // Push-pull: both sides end with the same average (AD-PSGD); weighted by sample counts it keeps
            // sum_i n_i x_i.
            case "async" ->
                new GossipAveraging(new GossipAveraging.Config(
                        GossipAveraging.Mode.PUSH_PULL,
                        weighting,
                        GossipAveraging.Config.defaults().exchangeTimeout()));
            case "fragmented" -> {
                if (a.fragments() > dimension) {
                    throw error(
                            config,
                            ConfigSchema.AVERAGING_FRAGMENTS,
                            "the model has " + dimension + " parameters, fewer than " + a.fragments() + " fragments");
                }
                int fragments = a.fragments() > 0 ? a.fragments() : FragmentedGossip.defaultFragments(dimension);
                // The seed of the fragmentation must be the same on every node: training.seed is shared.
                yield new FragmentedGossip(
                        new FragmentedGossip.Config(
                                        fragments, a.fanout(), config.training().seed(), weighting)
                                .withBalanced(a.fragmentBalance()),
                        dimension);
            }
            case "fedbuff" -> {
                BufferedAsynchronousAggregation.Role role = a.aggregator().equals(self)
                        ? BufferedAsynchronousAggregation.Role.AGGREGATOR
                        : BufferedAsynchronousAggregation.Role.CONTRIBUTOR;
                yield new BufferedAsynchronousAggregation(
                        BufferedAsynchronousAggregation.Config.defaults().withBufferSize(a.bufferSize()),
                        role,
                        a.aggregator(),
                        dimension);
            }
            case "sync" -> {
                if (!a.participants().contains(self)) {
                    throw error(
                            config,
                            ConfigSchema.AVERAGING_PARTICIPANTS,
                            "this node's peer id " + self + " is not listed; every participant lists all of them");
                }
                yield new SynchronousAveraging(
                        SynchronousAveraging.Config.of(new LinkedHashSet<>(a.participants())), self);
            }
            default -> throw new IllegalArgumentException("no averaging strategy " + a.strategy());
        };
    }

    private static ConfigException error(NodeConfig config, String key, String message) {
        return new ConfigException(config.configFile() + ": " + key + ": " + message);
    }
}
