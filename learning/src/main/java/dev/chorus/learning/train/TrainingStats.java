package dev.chorus.learning.train;

import java.util.List;

/**
 * The outcome of {@link Trainer#train}.
 *
 * @param epochs epochs completed
 * @param steps optimizer steps taken
 * @param samples rows processed, over all epochs
 * @param finalLoss the mean training loss of the last completed epoch (NaN if none completed)
 * @param seconds wall time of the whole run
 * @param epochLosses the mean training loss of every completed epoch, in order
 * @param stopped whether {@link Trainer#requestStop()} ended the run early
 */
public record TrainingStats(
        int epochs,
        long steps,
        long samples,
        double finalLoss,
        double seconds,
        List<Double> epochLosses,
        boolean stopped) {

    public TrainingStats {
        epochLosses = List.copyOf(epochLosses);
    }

    /** Rows per second of wall time (0 when no time elapsed on the clock). */
    public double samplesPerSecond() {
        return seconds > 0 ? samples / seconds : 0;
    }
}
