package dev.chorus.aggregation.sync;

import dev.chorus.aggregation.SelfCenteredClipping;
import dev.chorus.aggregation.robust.RobustAggregator;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The contributions collected for one round, by sender, and their aggregate: a weighted mean, or a robust rule
 * (which ignores the weights). Holds references to the received arrays, no copies.
 */
final class RoundContributions {

    private record Contribution(float[] values, double weight) {}

    // Sorted by sender, so that every node sums in the same order and gets bit-identical averages.
    private final Map<String, Contribution> bySender = new TreeMap<>();

    boolean contains(String sender) {
        return bySender.containsKey(sender);
    }

    void add(String sender, float[] values, double weight) {
        bySender.put(sender, new Contribution(values, weight));
    }

    int size() {
        return bySender.size();
    }

    java.util.Set<String> senders() {
        return bySender.keySet();
    }

    void clear() {
        bySender.clear();
    }

    /** Moves every contribution of {@code other} into this one. */
    void takeAll(RoundContributions other) {
        bySender.putAll(other.bySender);
        other.bySender.clear();
    }

    /**
     * Replaces the model of every sender other than {@code self} by its self-centred clip around {@code reference},
     * {@code x_i + s (x_j - x_i)} with {@code s} from {@code screening} (0 for an excluded sender), in a new array
     * when {@code s < 1}; see {@link RoundAggregation}. Senders go in sorted order, so that the screening's history
     * does not depend on the order the models arrived in.
     */
    void screen(String self, float[] reference, SelfCenteredClipping screening, long nowMillis) {
        double referenceNorm = SelfCenteredClipping.norm(reference);
        for (Map.Entry<String, Contribution> e : bySender.entrySet()) {
            String sender = e.getKey();
            if (sender.equals(self)) {
                continue;
            }
            float[] x = e.getValue().values();
            double s;
            if (screening.excluded(sender, nowMillis)) {
                screening.refuse(sender, nowMillis);
                s = 0;
            } else {
                double distance = SelfCenteredClipping.distance(reference, x);
                s = screening.admit(sender, null, x, distance, referenceNorm, reference.length, nowMillis);
            }
            if (s < 1) {
                float[] clipped = new float[x.length];
                for (int k = 0; k < x.length; k++) {
                    clipped[k] = (float) (reference[k] + s * ((double) x[k] - reference[k]));
                }
                e.setValue(new Contribution(clipped, e.getValue().weight()));
            }
        }
    }

    /**
     * Writes the aggregate into {@code out}. With no robust rule, the weighted mean; if all weights are 0, the
     * plain mean.
     */
    void aggregateInto(float[] out, RobustAggregator robust) {
        if (bySender.isEmpty()) {
            throw new IllegalStateException("no contributions to aggregate");
        }
        if (robust != null) {
            List<float[]> inputs = new ArrayList<>(bySender.size());
            for (Contribution c : bySender.values()) {
                inputs.add(c.values());
            }
            robust.aggregate(inputs, out);
            return;
        }
        double total = 0;
        for (Contribution c : bySender.values()) {
            total += c.weight();
        }
        boolean uniform = !(total > 0);
        java.util.Arrays.fill(out, 0f);
        for (Contribution c : bySender.values()) {
            float share = (float) (uniform ? 1.0 / bySender.size() : c.weight() / total);
            float[] x = c.values();
            for (int i = 0; i < out.length; i++) {
                out[i] += share * x[i];
            }
        }
    }
}
