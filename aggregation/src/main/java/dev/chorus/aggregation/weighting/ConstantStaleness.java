package dev.chorus.aggregation.weighting;

/**
 * {@code s(lag) = 1}: staleness is ignored. FedAsync's constant function (Xie et al. 2019).
 */
public record ConstantStaleness() implements StalenessWeighting {

    @Override
    public double weight(long lag) {
        StalenessWeighting.requireLag(lag);
        return 1.0;
    }
}
