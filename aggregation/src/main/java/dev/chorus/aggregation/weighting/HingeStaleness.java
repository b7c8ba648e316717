package dev.chorus.aggregation.weighting;

/**
 * {@code s(lag) = 1} if {@code lag <= b}, else {@code 1 / (a (lag - b) + 1)}. FedAsync's hinge function (Xie et
 * al. 2019, "Asynchronous Federated Optimization"): updates a little late count fully, later ones
 * fall off hyperbolically.
 *
 * @param slope {@code a > 0}: how fast the weight falls past the threshold
 * @param threshold {@code b >= 0}: the largest lag that still counts fully
 */
public record HingeStaleness(double slope, long threshold) implements StalenessWeighting {

    public HingeStaleness {
        if (!(slope > 0) || Double.isInfinite(slope)) {
            throw new IllegalArgumentException("hinge staleness slope must be finite and > 0, got " + slope);
        }
        if (threshold < 0) {
            throw new IllegalArgumentException("hinge staleness threshold must be >= 0, got " + threshold);
        }
    }

    @Override
    public double weight(long lag) {
        StalenessWeighting.requireLag(lag);
        return lag <= threshold ? 1.0 : 1.0 / (slope * (lag - threshold) + 1.0);
    }
}
