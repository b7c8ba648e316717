package dev.chorus.aggregation.robust;

import java.util.List;

/**
 * A rule that combines {@code n} parameter (or update) vectors, of which up to {@code f} may be arbitrary, into
 * one whose distance from the honest vectors is bounded. A pure function: the inputs are only read.
 */
public interface RobustAggregator {

    /**
     * Writes the aggregate of {@code inputs} into {@code out}.
     *
     * @throws dev.chorus.aggregation.InvalidUpdateException if an input has the wrong length or a non-finite value
     * @throws IllegalArgumentException if there are too few inputs for this rule, or an input is {@code out}
     */
    void aggregate(List<float[]> inputs, float[] out);

    /** The aggregate of {@code inputs}, in a new array. */
    default float[] aggregate(List<float[]> inputs) {
        if (inputs.isEmpty()) {
            throw new IllegalArgumentException("no inputs to aggregate");
        }
        float[] out = new float[inputs.get(0).length];
        aggregate(inputs, out);
        return out;
    }
}
