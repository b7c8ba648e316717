package dev.chorus.learning.train;

/**
 * The outcome of one epoch.
 *
 * @param epoch this epoch's number, from 1
 * @param epochs epochs in this training run
 * @param steps steps taken by the trainer so far
 * @param samples rows seen in this epoch
 * @param meanLoss the sample-weighted mean of the batch losses of this epoch
 * @param seconds wall time of this epoch
 */
public record EpochSummary(int epoch, int epochs, long steps, int samples, double meanLoss, double seconds) {

    /** Rows per second of wall time (0 when no time elapsed on the clock). */
    public double samplesPerSecond() {
        return seconds > 0 ? samples / seconds : 0;
    }
}
