package dev.chorus.node.averaging;

import dev.chorus.aggregation.SelfCenteredClipping;
import dev.chorus.aggregation.weighting.UpdateWeighting;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
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
 * @param screening how received models are screened before they are merged: {@code async}, {@code fragmented},
 *     {@code sync}
 */
public record StrategySettings(
        UpdateWeighting weighting,
        Duration exchangeTimeout,
        Fragmenting fragmenting,
        Buffering buffering,
        Set<String> participants,
        Robustness robustness,
        Screening screening) {

    public StrategySettings {
        Objects.requireNonNull(screening, "screening");
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

    /**
     * The screening of received models ({@code averaging.screening}).
     *
     * @param mode whether each received model is clipped around the local one, a far one dropped, and a peer whose
     *     models keep being far out is down-weighted, then excluded for a while ({@link SelfCenteredClipping})
     * @param multiplier the clipping radius as a multiple of the median distance of recently merged models
     */
    public record Screening(Mode mode, double multiplier) {

        /** The forms of {@code averaging.screening}. */
        public enum Mode {
            /** Clip within the hard ratio of the radius, drop beyond it. */
            CLIP("clip"),
            /** Clip every model, however far, and merge it. */
            CLIP_ALL("clip-all"),
            /** Merge every finite model as it is. */
            OFF("off");

            private final String configName;

            Mode(String configName) {
                this.configName = configName;
            }

            /** The names, as {@code averaging.screening} and {@code --screening} take them. */
            public static List<String> configNames() {
                return Arrays.stream(values()).map(m -> m.configName).toList();
            }

            /** The mode named {@code name}, or an error that lists the names. */
            public static Mode parse(String name) {
                for (Mode m : values()) {
                    if (m.configName.equals(name.trim())) {
                        return m;
                    }
                }
                throw new IllegalArgumentException(
                        "expected one of " + String.join(", ", configNames()) + ", got \"" + name + "\"");
            }
        }

        /** The multiplier unless configured otherwise. */
        public static final double DEFAULT_MULTIPLIER =
                SelfCenteredClipping.Config.defaults().multiplier();

        public Screening {
            Objects.requireNonNull(mode, "mode");
            if (!(multiplier >= 1) || Double.isInfinite(multiplier)) {
                throw new IllegalArgumentException("clipping multiplier must be finite and >= 1, got " + multiplier);
            }
        }

        /** Clipping with the default multiplier. */
        public static Screening clipDefault() {
            return new Screening(Mode.CLIP, DEFAULT_MULTIPLIER);
        }

        /** No screening: every finite model is merged as it is. */
        public static Screening off() {
            return new Screening(Mode.OFF, DEFAULT_MULTIPLIER);
        }

        /** Whether received models are screened at all. */
        public boolean clip() {
            return mode != Mode.OFF;
        }

        /** The clipping's parameters, or null when off (what the strategies' configurations take for none). */
        public SelfCenteredClipping.Config clippingConfig() {
            return clip()
                    ? SelfCenteredClipping.Config.defaults()
                            .withMultiplier(multiplier)
                            .withDropHard(mode == Mode.CLIP)
                    : null;
        }

        /** The mode's name, as {@code averaging.screening} and {@code --screening} name it. */
        public String configName() {
            return mode.configName;
        }
    }
}
