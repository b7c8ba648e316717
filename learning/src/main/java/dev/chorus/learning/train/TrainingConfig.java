package dev.chorus.learning.train;

/**
 * How long and in what batches to train, validated once.
 *
 * @param epochs passes over the data, at least 1
 * @param batchSize rows per optimizer step, at least 1; the last batch of an epoch may be smaller
 * @param seed seeds the per-epoch shuffles, so that equal seeds give equal batch orders
 */
public record TrainingConfig(int epochs, int batchSize, long seed) {

    public TrainingConfig {
        if (epochs < 1) {
            throw new IllegalArgumentException("epochs must be at least 1, got " + epochs);
        }
        if (batchSize < 1) {
            throw new IllegalArgumentException("batch size must be at least 1, got " + batchSize);
        }
    }
}
