package dev.chorus.node.daemon;

/**
 * Watches the validation loss for overfitting: once it has not improved on its best for {@code patience}
 * evaluations in a row, the patience has run out (said once; a new best starts the count again and re-arms it).
 * What the node then does is its mode's: {@code warn} logs it and shows it in {@code /api/status}, {@code stop} also
 * ends local training with the best model restored. Used on the training thread.
 */
final class EarlyStopping {

    /** What an evaluation meant. */
    enum Outcome {
        /** A new best loss. */
        IMPROVED,
        /** No new best, patience left (or already run out and said). */
        WAITING,
        /** No new best for {@code patience} evaluations: said once. */
        EXHAUSTED
    }

    private final int patience;
    private double best = Double.POSITIVE_INFINITY;
    private long bestVersion = -1;
    private int sinceBest;
    private boolean exhausted;

    /** @param patience evaluations without a new best before the patience runs out, at least 1 */
    EarlyStopping(int patience) {
        if (patience < 1) {
            throw new IllegalArgumentException("patience must be at least 1, got " + patience);
        }
        this.patience = patience;
    }

    /** Judges the evaluation of {@code version} with validation loss {@code loss} (a non-finite one never improves). */
    Outcome observe(double loss, long version) {
        if (Double.isFinite(loss) && loss < best) {
            best = loss;
            bestVersion = version;
            sinceBest = 0;
            exhausted = false;
            return Outcome.IMPROVED;
        }
        sinceBest++;
        if (!exhausted && sinceBest >= patience) {
            exhausted = true;
            return Outcome.EXHAUSTED;
        }
        return Outcome.WAITING;
    }

    double bestLoss() {
        return best;
    }

    long bestVersion() {
        return bestVersion;
    }

    int evaluationsSinceBest() {
        return sinceBest;
    }

    /** Whether the patience has run out since the last new best. */
    boolean exhausted() {
        return exhausted;
    }
}
