package dev.chorus.aggregation.weighting;

/**
 * {@code s(lag) = (1 + lag)^-a}. FedAsync's polynomial function (Xie et al. 2019, "Asynchronous Federated
 * Optimization"); FedBuff (Nguyen et al. 2022) uses {@code a = 0.5}, i.e. {@code 1 / sqrt(1 + lag)}.
 *
 * @param exponent {@code a >= 0}: how fast the weight falls with the lag; 0 ignores staleness
 */
public record PolynomialStaleness(double exponent) implements StalenessWeighting {

    public PolynomialStaleness {
        if (!(exponent >= 0) || Double.isInfinite(exponent)) {
            throw new IllegalArgumentException(
                    "polynomial staleness exponent must be finite and >= 0, got " + exponent);
        }
    }

    @Override
    public double weight(long lag) {
        StalenessWeighting.requireLag(lag);
        return Math.pow(1.0 + lag, -exponent);
    }
}
