package dev.chorus.testnet.faults;

import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * What a scenario reads from a node's {@code /api/status} and {@code /api/peers}.
 *
 * @param modelVersion the model version
 * @param accuracy the latest validation accuracy; NaN before the first evaluation
 * @param peerCount connected peers
 * @param exchanges exchanges this node started (averaging.exchanges)
 * @param exchangeFailures exchanges that failed, timeouts included
 * @param abandoned exchanges given up (averaging.exchangesAbandoned)
 * @param mergedByPeer per connected peer ID, the updates merged from it
 * @param slowestExchangeSeconds the longest exchange time any connected peer shows (0 when none)
 */
public record NodeStatus(
        long modelVersion,
        double accuracy,
        int peerCount,
        long exchanges,
        long exchangeFailures,
        long abandoned,
        Map<String, Long> mergedByPeer,
        double slowestExchangeSeconds) {

    public NodeStatus {
        mergedByPeer = Map.copyOf(mergedByPeer);
    }

    /**
     * Parses the members named above out of the two documents; a member that is missing counts as 0 (accuracy: NaN).
     */
    static NodeStatus parse(Map<String, Object> status, Map<String, Object> peers) {
        Map<?, ?> averaging = status.get("averaging") instanceof Map<?, ?> m ? m : Map.of();
        Map<String, Long> merged = new HashMap<>();
        double slowest = 0;
        if (peers.get("peers") instanceof List<?> list) {
            for (Object o : list) {
                if (o instanceof Map<?, ?> p && p.get("peerId") instanceof String id) {
                    merged.put(id, number(p.get("merged")));
                    if (p.get("exchangeSeconds") instanceof Number n && Double.isFinite(n.doubleValue())) {
                        slowest = Math.max(slowest, n.doubleValue());
                    }
                }
            }
        }
        return new NodeStatus(
                number(status.get("modelVersion")),
                status.get("accuracy") instanceof Number a ? a.doubleValue() : Double.NaN,
                (int) number(status.get("peerCount")),
                number(averaging.get("exchanges")),
                number(averaging.get("exchangeFailures")),
                number(averaging.get("exchangesAbandoned")),
                merged,
                slowest);
    }

    private static long number(Object o) {
        return o instanceof Number n ? n.longValue() : 0;
    }
}
