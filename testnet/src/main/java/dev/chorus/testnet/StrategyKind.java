package dev.chorus.testnet;

import dev.chorus.node.averaging.AveragingKind;
import java.util.Arrays;
import java.util.Locale;
import java.util.stream.Collectors;

/**
 * What a testnet run does with the nodes' models: one of the node's averaging strategies ({@link AveragingKind},
 * which names and builds them), or one of two references that exchange nothing. The references keep names of their
 * own in reports and on the command line: {@code alone} is the node's {@code none}, and {@code central} is no node
 * strategy at all.
 */
public enum StrategyKind {
    /** {@code GossipAveraging}, push-pull with one random peer per round. */
    ASYNC(AveragingKind.ASYNC),
    /** {@code FragmentedGossip}: fragments to a few random peers per round. */
    FRAGMENTED(AveragingKind.FRAGMENTED),
    /** {@code BufferedAsynchronousAggregation}: node 0 is the aggregator (and trains on its shard too). */
    FEDBUFF(AveragingKind.FEDBUFF),
    /** {@code SynchronousAveraging}: all-to-all with a barrier every round. */
    SYNC(AveragingKind.SYNC),
    /** {@code SecureGroupAveraging}: SecAgg+ rounds in groups, no model in the clear. */
    SECURE(AveragingKind.SECURE),
    /** Every node trains on its own shard and exchanges nothing. */
    ALONE(AveragingKind.NONE, "alone"),
    /** One model trained on the pooled training data of all nodes: the reference. */
    CENTRAL(AveragingKind.NONE, "central");

    private final AveragingKind averaging;
    private final String id;

    StrategyKind(AveragingKind averaging) {
        this(averaging, averaging.configName());
    }

    StrategyKind(AveragingKind averaging, String id) {
        this.averaging = averaging;
        this.id = id;
    }

    public String id() {
        return id;
    }

    /** The node strategy each node runs ({@link AveragingKind#NONE} for the references). */
    public AveragingKind averaging() {
        return averaging;
    }

    public boolean exchanges() {
        return averaging.exchanges();
    }

    public static StrategyKind parse(String text) {
        String s = text == null ? "" : text.strip().toLowerCase(Locale.ROOT);
        for (StrategyKind k : values()) {
            if (k.id.equals(s)) {
                return k;
            }
        }
        throw new IllegalArgumentException("unknown strategy \"" + text + "\"; expected one of "
                + Arrays.stream(values()).map(StrategyKind::id).collect(Collectors.joining(", ")));
    }
}
