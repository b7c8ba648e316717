package dev.chorus.aggregation.sync;

import dev.chorus.aggregation.SelfCenteredClipping;
import dev.chorus.aggregation.robust.RobustAggregator;

/**
 * How a synchronous round combines the models it collected: each other participant's model is first screened
 * around this node's own ({@code screening}, when set), then the models are averaged, weighted by sample count or
 * uniformly, or combined by a robust rule (which ignores the weights).
 *
 * <p>Screening replaces each received model {@code x_j} by {@code x_i + s_j (x_j - x_i)}, where {@code x_i} is this
 * node's model and {@code s_j} the factor {@link SelfCenteredClipping#admit} gives: 1 for a model inside the radius,
 * less for one beyond it (its difference clipped to the radius), 0 for one it drops (far beyond the radius, pointing
 * away from {@code x_i}, a repeat of one its sender sent before, or from an excluded sender). A dropped model thus
 * counts as this node's own rather than vanishing: the weighted mean becomes ClippedGossip's update {@code x_i +
 * sum_j w_j clip(x_j - x_i)} over a complete graph, and a robust rule still gets one input per participant, so the
 * number of inputs it was validated for holds. With screening on, participants no longer compute bit-identical
 * averages: each screens around its own model.
 *
 * @param bySampleCount weight each model by its node's sample count (FedAvg); default true
 * @param robust a robust rule to use instead of the weighted mean, or {@code null} (default)
 * @param screening the self-centred clipping of received models, or {@code null} (default: models are taken as
 *     they are)
 */
public record RoundAggregation(boolean bySampleCount, RobustAggregator robust, SelfCenteredClipping.Config screening) {

    /** The sample-weighted mean of the models as they arrive (FedAvg). */
    public static RoundAggregation weightedMean() {
        return new RoundAggregation(true, null, null);
    }

    /** A new screening state for one strategy, or null when models are taken as they are. */
    SelfCenteredClipping newScreening() {
        return screening == null ? null : new SelfCenteredClipping(screening);
    }

    public RoundAggregation withBySampleCount(boolean bySampleCount) {
        return new RoundAggregation(bySampleCount, robust, screening);
    }

    public RoundAggregation withRobust(RobustAggregator robust) {
        return new RoundAggregation(bySampleCount, robust, screening);
    }

    public RoundAggregation withScreening(SelfCenteredClipping.Config screening) {
        return new RoundAggregation(bySampleCount, robust, screening);
    }
}
