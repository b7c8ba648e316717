package dev.chorus.learning.train;

/**
 * Follows a training run for a human or a machine. Every method is called on the training thread;
 * all have empty defaults. Implementations: {@link ProgressBar} (terminal), {@link
 * JsonLinesProgress} (one JSON object per epoch) and {@link #quiet()}.
 */
public interface ProgressReporter {

    /** Before the first step. */
    default void trainingStarted(int epochs, int rowsPerEpoch, int batchSize) {}

    /**
     * After every step.
     *
     * @param epoch the current epoch, from 1
     * @param samplesDone rows done in this epoch
     * @param rowsPerEpoch rows per epoch
     * @param meanLoss the mean batch loss of this epoch so far
     * @param epochNanos clock time since the epoch started
     * @param nowNanos the trainer's clock now
     */
    default void stepCompleted(
            int epoch, int samplesDone, int rowsPerEpoch, double meanLoss, long epochNanos, long nowNanos) {}

    /** After the last step of each epoch. */
    default void epochCompleted(EpochSummary summary) {}

    /** When the run ends, normally or on a stop request. */
    default void trainingFinished(TrainingStats stats) {}

    /** A reporter that reports nothing. */
    static ProgressReporter quiet() {
        return QuietProgress.INSTANCE;
    }
}
