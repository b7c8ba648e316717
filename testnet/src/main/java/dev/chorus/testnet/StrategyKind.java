package dev.chorus.testnet;

import java.util.Arrays;
import java.util.Locale;
import java.util.stream.Collectors;

/** What a testnet run does with the nodes' models. */
public enum StrategyKind {
    /** {@code GossipAveraging}, push-pull with one random peer per round. */
    ASYNC("async"),
    /** {@code FragmentedGossip}: fragments to a few random peers per round. */
    FRAGMENTED("fragmented"),
    /** {@code BufferedAsynchronousAggregation}: node 0 is the aggregator (and trains on its shard too). */
    FEDBUFF("fedbuff"),
    /** {@code SynchronousAveraging}: all-to-all with a barrier every round. */
    SYNC("sync"),
    /** Every node trains on its own shard and exchanges nothing. */
    ALONE("alone"),
    /** One model trained on the pooled training data of all nodes: the reference. */
    CENTRAL("central");

    private final String id;

    StrategyKind(String id) {
        this.id = id;
    }

    public String id() {
        return id;
    }

    public boolean exchanges() {
        return this != ALONE && this != CENTRAL;
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
