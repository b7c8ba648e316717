package dev.chorus.node.secagg;

/**
 * Experiments only: which of the rounds a member joins it drops out of, and after how many of its messages. A
 * fraction f of its rounds, evenly spaced rather than drawn at random: the k-th round it joins is a dropout when {@code
 * phase + k * f} passes a whole number. A short run then sees the dropouts it asked for, whatever the luck of a draw,
 * and nodes given different phases drop out in different rounds rather than all in the same one. The point at which a
 * dropout goes silent cycles through a member's five messages, so that dropouts before the masked input (which the
 * relay recovers) and after it (which it does not need to) both occur.
 */
final class DropoutSchedule {

    /** The messages a member sends in a round: its keys, its shares, its masked input, its signature, its reveals. */
    static final int MESSAGES = 5;

    /** No dropouts. */
    static final DropoutSchedule NONE = new DropoutSchedule(0, 0);

    private final double fraction;
    private double credit;
    private int dropped;

    /**
     * @param fraction the fraction of rounds joined to drop out of, in [0, 1)
     * @param phase where in its cycle this member starts, in [0, 1): with phase p the first dropout comes in round
     *     ceil((1 - p) / f)
     */
    DropoutSchedule(double fraction, double phase) {
        if (!(fraction >= 0 && fraction < 1)) {
            throw new IllegalArgumentException("the dropout fraction must be in [0, 1), got " + fraction);
        }
        if (!(phase >= 0 && phase < 1)) {
            throw new IllegalArgumentException("the dropout phase must be in [0, 1), got " + phase);
        }
        this.fraction = fraction;
        this.credit = phase;
    }

    /**
     * For the next round this member joins: how many of its messages it sends before it goes silent, or {@link
     * Integer#MAX_VALUE} when it stays.
     */
    int nextRound() {
        credit += fraction;
        if (credit < 1) {
            return Integer.MAX_VALUE;
        }
        credit -= 1;
        return dropped++ % MESSAGES;
    }
}
