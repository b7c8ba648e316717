package dev.chorus.learning.train;

import dev.chorus.learning.model.Sequential;

/**
 * What a {@link StepListener} learns after an optimizer step.
 *
 * @param step steps taken by this trainer so far, counting this one (from 1)
 * @param epoch the epoch this step belongs to (from 1, counted over the trainer's life)
 * @param batchSize rows in this step's batch
 * @param loss the mean loss of the batch, before the update
 * @param model the model, already updated; usable on the calling thread only
 */
public record TrainingStep(long step, int epoch, int batchSize, float loss, Sequential model) {}
