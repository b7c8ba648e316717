package dev.chorus.node.daemon;

import dev.chorus.aggregation.AveragingStrategy;
import dev.chorus.aggregation.async.GossipAveraging;
import dev.chorus.aggregation.weighting.StalenessWeighting;
import dev.chorus.aggregation.weighting.UpdateWeighting;
import dev.chorus.node.averaging.AveragingKind;
import dev.chorus.node.averaging.StrategySettings;
import dev.chorus.node.config.ConfigException;
import dev.chorus.node.config.ConfigSchema;
import dev.chorus.node.config.NodeConfig;
import java.util.Set;

/**
 * Builds the {@link AveragingStrategy} that {@code averaging.strategy} names, with the parameters of the {@code
 * averaging} section: {@link AveragingKind} builds it; this class checks first what only a running node knows (its
 * peer id, its model's size), so that a mismatch names the config key to change.
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
        if (a.strategy() == AveragingKind.FRAGMENTED && a.fragmented().fragments() > dimension) {
            throw error(
                    config,
                    ConfigSchema.AVERAGING_FRAGMENTS,
                    "the model has " + dimension + " parameters, fewer than "
                            + a.fragmented().fragments() + " fragments");
        }
        if (a.strategy() == AveragingKind.SYNC && !a.sync().participants().contains(self)) {
            throw error(
                    config,
                    ConfigSchema.AVERAGING_PARTICIPANTS,
                    "this node's peer id " + self + " is not listed; every participant lists all of them");
        }
        return a.strategy().create(settings(config), self, dimension);
    }

    /** The section's parameters; the seed of the fragmentation must be the same on every node: training.seed is. */
    static StrategySettings settings(NodeConfig config) {
        NodeConfig.Averaging a = config.averaging();
        return new StrategySettings(
                new UpdateWeighting(StalenessWeighting.constant(), a.bySampleCount()),
                GossipAveraging.Config.defaults().exchangeTimeout(),
                new StrategySettings.Fragmenting(
                        a.fragmented().fragments(),
                        a.fragmented().fanout(),
                        config.training().seed(),
                        a.fragmented().fragmentBalance()),
                new StrategySettings.Buffering(
                        a.fedBuff().aggregator(), a.fedBuff().bufferSize()),
                Set.copyOf(a.sync().participants()),
                a.robustness(),
                a.screening());
    }

    private static ConfigException error(NodeConfig config, String key, String message) {
        return new ConfigException(config.configFile() + ": " + key + ": " + message);
    }
}
