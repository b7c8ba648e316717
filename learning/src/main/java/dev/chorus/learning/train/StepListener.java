package dev.chorus.learning.train;

/**
 * Called on the training thread after every optimizer step. This is the one safe point to read or
 * replace the model's parameters while training runs (e.g. the averaging engine snapshots the flat
 * vector every few steps and merges what peers sent). A listener should return quickly: training
 * waits for it.
 */
@FunctionalInterface
public interface StepListener {

    void afterStep(TrainingStep step);

    /**
     * Called on the training thread when the model's parameters were replaced outside a step (a revert to a
     * checkpoint, the best parameters restored after early stopping): a listener that measures what training
     * changed since it last saw the parameters starts over from the new ones.
     */
    default void parametersReplaced() {}
}
