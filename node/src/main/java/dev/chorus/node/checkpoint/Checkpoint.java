package dev.chorus.node.checkpoint;

import dev.chorus.learning.optim.OptimizerSnapshot;
import java.util.Map;

/**
 * One saved state of a node's model.
 *
 * @param version the model version: it only grows, across restarts too
 * @param steps local optimizer steps taken over the node's life
 * @param createdMillis when it was written (ms since the epoch)
 * @param model the model spec it was trained with ({@code mlp:64}), checked on restore
 * @param optimizer the optimizer spec
 * @param parameters the flat parameter vector
 * @param optimizerState the optimizer's state and step count
 * @param metrics the latest metrics (e.g. {@code trainLoss}, {@code accuracy}); NaN when not known
 */
public record Checkpoint(
        long version,
        long steps,
        long createdMillis,
        String model,
        String optimizer,
        float[] parameters,
        OptimizerSnapshot optimizerState,
        Map<String, Double> metrics) {

    public Checkpoint {
        if (version < 0 || steps < 0) {
            throw new IllegalArgumentException("version and steps must be >= 0");
        }
        metrics = Map.copyOf(metrics);
    }
}
