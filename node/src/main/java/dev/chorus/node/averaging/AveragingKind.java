package dev.chorus.node.averaging;

import dev.chorus.aggregation.AveragingStrategy;
import dev.chorus.aggregation.async.BufferedAsynchronousAggregation;
import dev.chorus.aggregation.async.FragmentedGossip;
import dev.chorus.aggregation.async.GossipAveraging;
import dev.chorus.aggregation.robust.RobustAggregator;
import dev.chorus.aggregation.secure.SecureGroupAveraging;
import dev.chorus.aggregation.sync.DeadlineAveraging;
import dev.chorus.aggregation.sync.RoundAggregation;
import dev.chorus.aggregation.sync.SynchronousAveraging;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;

/**
 * The averaging strategies a node can run, by the names {@code averaging.strategy} gives them: the one place that
 * knows those names, parses them, and builds the {@link AveragingStrategy} each stands for, so that the daemon, the
 * testnet and the command line cannot disagree on either (docs/aggregation.md describes each algorithm and cites its
 * paper). Everything else asks the strategy built, not its kind, what it does.
 */
public enum AveragingKind {
    /** Push-pull gossip with one random connected peer per round ({@link GossipAveraging}, AD-PSGD). */
    ASYNC("async"),
    /** Model fragments to a few random peers per round ({@link FragmentedGossip}, DivShare). */
    FRAGMENTED("fragmented"),
    /** Buffered asynchronous aggregation at one aggregator ({@link BufferedAsynchronousAggregation}, FedBuff). */
    FEDBUFF("fedbuff"),
    /**
     * The FedAvg baseline: all-to-all with a barrier every round ({@link SynchronousAveraging}), or rounds that close
     * at a deadline ({@link DeadlineAveraging}) when the settings give one.
     */
    SYNC("sync"),
    /**
     * Secure aggregation in groups ({@link SecureGroupAveraging}, SecAgg+): no peer sees the model in the clear; the
     * node wires the strategy to its group rounds.
     */
    SECURE("secure"),
    /** No averaging: the node trains on its own data alone. */
    NONE("none");

    /** The strategy a node runs unless its configuration names another. */
    public static final AveragingKind DEFAULT = ASYNC;

    private final String configName;

    AveragingKind(String configName) {
        this.configName = configName;
    }

    /** The name in {@code node.yaml} and on the command line. */
    public String configName() {
        return configName;
    }

    /** Every name, in the order of the constants (the order help texts and errors list them in). */
    public static List<String> configNames() {
        return Arrays.stream(values()).map(AveragingKind::configName).toList();
    }

    /**
     * The kind named {@code text}, ignoring case and surrounding blanks.
     *
     * @throws IllegalArgumentException naming the valid names when none matches
     */
    public static AveragingKind parse(String text) {
        String s = text == null ? "" : text.strip().toLowerCase(Locale.ROOT);
        for (AveragingKind k : values()) {
            if (k.configName.equals(s)) {
                return k;
            }
        }
        throw new IllegalArgumentException(
                "unknown averaging strategy \"" + text + "\"; expected one of " + String.join(", ", configNames()));
    }

    /**
     * Whether this kind combines several models at once, where a {@link RobustRule} can replace the mean: {@code
     * sync}'s rounds and {@code fedbuff}'s buffer. {@code async} and {@code fragmented} merge one model at a time.
     */
    public boolean aggregatesSeveral() {
        return this == SYNC || this == FEDBUFF;
    }

    /**
     * Why a robust rule ({@code averaging.robust}) does not apply to this kind, and which defence applies instead; for
     * a kind that exchanges models but does not {@linkplain #aggregatesSeveral() aggregate several at once}.
     *
     * @throws IllegalStateException for a kind that takes a robust rule or does not exchange
     */
    public String robustRefusal() {
        return switch (this) {
            case ASYNC, FRAGMENTED ->
                "robust rules aggregate several models at once; " + this + " merges one at a time and screens each"
                        + " received model instead (averaging.screening, --screening: clip): choose sync"
                        + " or fedbuff for a robust rule";
            // A rule needs the models apart; masking hides them, and screening (async, fragmented) needs them too.
            case SECURE ->
                "robust rules need each model on its own, but secure aggregation shows no one a single model: the"
                        + " relay learns only the group's sum (averaging.screening does not apply to secure either);"
                        + " what bounds one member's effect there is averaging.secure_range, to which every parameter"
                        + " is clipped: choose sync or fedbuff for a robust rule";
            case SYNC, FEDBUFF, NONE -> throw new IllegalStateException(this + " refuses no robust rule");
        };
    }

    /** Whether a node of this kind exchanges models with peers at all. */
    public boolean exchanges() {
        return this != NONE;
    }

    /**
     * Builds this kind's strategy from the settings it reads (each kind reads only its own).
     *
     * @param self this node's peer id (base58)
     * @param dimension the model's parameter count
     * @throws IllegalArgumentException for {@link #NONE}, or when the settings do not fit (more fragments than
     *     parameters, a participant list without {@code self}, a robust rule for a kind that merges one model at a
     *     time or sees only sums, or with fewer models per aggregation than it needs)
     */
    public AveragingStrategy create(StrategySettings settings, String self, int dimension) {
        RobustRule rule = settings.robustness().rule();
        if (!rule.isNone() && exchanges()) {
            requireRobustFits(rule, settings);
        }
        RobustAggregator robust = rule.create().orElse(null);
        return switch (this) {
            // Push-pull: both sides end with the same average (AD-PSGD); weighted by sample counts it keeps
            // sum_i n_i x_i.
            case ASYNC ->
                new GossipAveraging(new GossipAveraging.Config(
                        GossipAveraging.Mode.PUSH_PULL,
                        settings.weighting(),
                        settings.exchangeTimeout(),
                        settings.screening().clippingConfig()));
            case FRAGMENTED -> {
                StrategySettings.Fragmenting f = settings.fragmenting();
                int fragments = f.fragments() > 0 ? f.fragments() : FragmentedGossip.defaultFragments(dimension);
                yield new FragmentedGossip(
                        new FragmentedGossip.Config(fragments, f.fanout(), f.seed(), settings.weighting())
                                .withBalanced(f.balanced())
                                .withScreening(settings.screening().clippingConfig()),
                        dimension);
            }
            case FEDBUFF -> {
                StrategySettings.Buffering b = settings.buffering();
                BufferedAsynchronousAggregation.Role role = self.equals(b.aggregator())
                        ? BufferedAsynchronousAggregation.Role.AGGREGATOR
                        : BufferedAsynchronousAggregation.Role.CONTRIBUTOR;
                yield new BufferedAsynchronousAggregation(
                        BufferedAsynchronousAggregation.Config.defaults()
                                .withBufferSize(b.bufferSize())
                                .withRobust(robust),
                        role,
                        b.aggregator(),
                        dimension);
            }
            case SYNC -> sync(settings, self, robust);
            case SECURE -> new SecureGroupAveraging();
            case NONE -> throw new IllegalArgumentException("averaging strategy " + this + " exchanges nothing");
        };
    }

    private static AveragingStrategy sync(StrategySettings settings, String self, RobustAggregator robust) {
        StrategySettings.Robustness r = settings.robustness();
        RoundAggregation aggregation = RoundAggregation.weightedMean()
                .withRobust(robust)
                .withScreening(settings.screening().clippingConfig());
        if (!r.hasDeadline()) {
            return new SynchronousAveraging(
                    new SynchronousAveraging.Config(settings.participants(), aggregation), self);
        }
        // Every participant in every round (C = 1), so the cohort seed plays no part; a round that closes with
        // fewer models than the rule needs keeps the local model instead of feeding the rule too few.
        return new DeadlineAveraging(
                DeadlineAveraging.Config.defaults(settings.participants(), 0)
                        .withRoundDeadline(r.roundDeadline())
                        .withMinContributions(r.rule().minInputs())
                        .withAggregation(aggregation),
                self);
    }

    private void requireRobustFits(RobustRule rule, StrategySettings settings) {
        if (!aggregatesSeveral()) {
            throw new IllegalArgumentException("robust rule " + rule.text() + " does not apply to averaging strategy "
                    + this + ": " + robustRefusal());
        }
        int inputs = this == SYNC
                ? settings.participants().size()
                : settings.buffering().bufferSize();
        String source =
                this == SYNC ? "there are " + inputs + " participants" : "the buffer holds " + inputs + " deltas";
        rule.problemWith(inputs, source).ifPresent(problem -> {
            throw new IllegalArgumentException(problem);
        });
    }

    /** The {@linkplain #configName() config name}, as logs and messages show it. */
    @Override
    public String toString() {
        return configName;
    }
}
