package dev.chorus.node.api;

/**
 * Where the validation loss stands against its best, as {@code /api/status} and {@code /metrics} show it.
 *
 * @param mode {@code warn}, {@code stop} or {@code off} ({@code training.early_stopping}, {@code auto} resolved)
 * @param triggered whether the loss has gone {@code training.early_stopping_patience} evaluations without a new best
 * @param bestLoss the best validation loss so far; NaN before the first evaluation
 * @param bestVersion the model version that had it; -1 before
 * @param evaluationsSinceBest evaluations since it
 * @param stopped whether local training ended for it ({@code stop})
 */
public record EarlyStoppingState(
        String mode, boolean triggered, double bestLoss, long bestVersion, int evaluationsSinceBest, boolean stopped) {

    /** Before the first evaluation. */
    public static EarlyStoppingState initial(String mode) {
        return new EarlyStoppingState(mode, false, Double.NaN, -1, 0, false);
    }
}
