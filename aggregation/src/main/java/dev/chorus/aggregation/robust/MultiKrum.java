package dev.chorus.aggregation.robust;

import dev.chorus.aggregation.ParameterVectors;
import java.util.List;

/**
 * Multi-Krum: the mean of the {@code m} inputs with the lowest Krum scores (see {@link Krum}).
 *
 * <p>Reference: P. Blanchard, E. M. El Mhamdi, R. Guerraoui, J. Stainer, "Machine Learning with Adversaries:
 * Byzantine Tolerant Gradient Descent", NeurIPS 2017 (multi-Krum).
 *
 * <p>Bound: with {@code m <= n - f}, every selected input scores no more than some honest one, so each lies within
 * {@link Krum}'s radius {@code D (1 + sqrt((n - f - 2) / (n - 2f - 1)))} of the honest mean, and so does their
 * mean. {@code m = 1} is Krum.
 */
public final class MultiKrum implements RobustAggregator {

    private final int faulty;
    private final int selected;

    /**
     * @param faulty {@code f >= 0}: the number of arbitrary inputs tolerated
     * @param selected {@code m >= 1}: how many inputs to average; at most {@code n - f} at aggregation time
     */
    public MultiKrum(int faulty, int selected) {
        if (faulty < 0) {
            throw new IllegalArgumentException("faulty count must be >= 0, got " + faulty);
        }
        if (selected < 1) {
            throw new IllegalArgumentException("selected count must be >= 1, got " + selected);
        }
        this.faulty = faulty;
        this.selected = selected;
    }

    public int faulty() {
        return faulty;
    }

    public int selected() {
        return selected;
    }

    @Override
    public void aggregate(List<float[]> inputs, float[] out) {
        ParameterVectors.requireInputs(inputs, out);
        int n = inputs.size();
        KrumScores.requireEnoughInputs(n, faulty, "multi-Krum");
        if (selected > n - faulty) {
            throw new IllegalArgumentException("multi-Krum averaging " + selected + " of " + n + " inputs with "
                    + faulty + " faulty could pick a faulty one over every honest one; use at most " + (n - faulty));
        }
        int[] chosen = KrumScores.lowest(KrumScores.scores(inputs, faulty), selected);
        java.util.Arrays.fill(out, 0f);
        float share = 1f / selected;
        for (int k : chosen) {
            float[] x = inputs.get(k);
            for (int i = 0; i < out.length; i++) {
                out[i] += share * x[i];
            }
        }
    }
}
