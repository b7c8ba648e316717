package dev.chorus.testnet.faults;

import java.time.Duration;

/**
 * How hard and how long a scenario hurts the nodes, and how its invariant is judged.
 *
 * @param kills {@code kill}: how many nodes are killed, one after the other
 * @param interval {@code kill}: time from one kill to the next (at least the restart itself)
 * @param duration {@code partition}: how long the split lasts; {@code loss}, {@code diskfull}: how long the fault
 *     lasts
 * @param lossPercent {@code loss}: the share of packets every node drops on receipt, in percent
 * @param accuracyDrop how far below its value before the faults the mean accuracy over the nodes may end up
 * @param seed picks the nodes to kill and the node with the full disk
 * @param cut {@code partition}: how the halves are cut apart
 * @param settle the longest wait for a state a scenario waits for: the nodes warmed up, a node ready after a
 *     restart, the halves reconnected, the accuracy back
 */
public record FaultSettings(
        int kills,
        Duration interval,
        Duration duration,
        double lossPercent,
        double accuracyDrop,
        long seed,
        Cut cut,
        Duration settle) {

    /**
     * How {@code partition} cuts: {@code DROP} every packet across (a silent cut, which the nodes notice when a
     * keep-alive goes unanswered), or {@code RESET}: answer every TCP segment across with a reset (a firewall that
     * refuses, which breaks the connections at once and refuses every redial until the heal).
     */
    public enum Cut {
        DROP,
        RESET
    }

    public FaultSettings {
        if (kills < 1 || kills > 10_000) {
            throw new IllegalArgumentException("--kills: expected 1 to 10000, got " + kills);
        }
        if (interval.isNegative() || duration.isNegative() || duration.isZero()) {
            throw new IllegalArgumentException("--interval and --duration must be positive");
        }
        if (!(lossPercent > 0 && lossPercent < 100)) {
            throw new IllegalArgumentException(
                    "--loss: expected a percentage above 0 and below 100, got " + lossPercent);
        }
        if (!(accuracyDrop >= 0 && accuracyDrop <= 1)) {
            throw new IllegalArgumentException("--accuracy-drop: expected 0 to 1, got " + accuracyDrop);
        }
        if (settle.toSeconds() < 1) {
            throw new IllegalArgumentException("--settle: expected at least 1 s");
        }
    }
}
