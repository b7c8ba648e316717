package dev.chorus.aggregation.robust;

import dev.chorus.aggregation.ParameterVectors;
import java.util.List;

/**
 * Krum: the input whose {@code n - f - 2} nearest neighbours are closest (smallest sum of squared distances).
 *
 * <p>Reference: P. Blanchard, E. M. El Mhamdi, R. Guerraoui, J. Stainer, "Machine Learning with Adversaries:
 * Byzantine Tolerant Gradient Descent", NeurIPS 2017.
 *
 * <p>Bound (deterministic, from the selection rule): let {@code D} be the largest distance between two honest
 * inputs and {@code m} the honest mean. Every honest score is at most {@code (n - f - 2) D^2}; a faulty input
 * with no larger score has at least {@code n - 2f - 1} honest inputs among its neighbours, so the chosen input is
 * within {@code D (1 + sqrt((n - f - 2) / (n - 2f - 1)))} of {@code m}. Needs {@code n >= 2f + 3}.
 */
public final class Krum implements RobustAggregator {

    private final int faulty;

    /** @param faulty {@code f >= 0}: the number of arbitrary inputs tolerated */
    public Krum(int faulty) {
        if (faulty < 0) {
            throw new IllegalArgumentException("faulty count must be >= 0, got " + faulty);
        }
        this.faulty = faulty;
    }

    public int faulty() {
        return faulty;
    }

    @Override
    public void aggregate(List<float[]> inputs, float[] out) {
        ParameterVectors.requireInputs(inputs, out);
        KrumScores.requireEnoughInputs(inputs.size(), faulty, "Krum");
        int chosen = KrumScores.lowest(KrumScores.scores(inputs, faulty), 1)[0];
        System.arraycopy(inputs.get(chosen), 0, out, 0, out.length);
    }

    /** The index of the input Krum selects. */
    public int select(List<float[]> inputs) {
        if (inputs.isEmpty()) {
            throw new IllegalArgumentException("no inputs to aggregate");
        }
        ParameterVectors.requireInputs(inputs, new float[inputs.get(0).length]);
        KrumScores.requireEnoughInputs(inputs.size(), faulty, "Krum");
        return KrumScores.lowest(KrumScores.scores(inputs, faulty), 1)[0];
    }
}
