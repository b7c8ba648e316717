package dev.chorus.aggregation.weighting;

/**
 * A staleness function {@code s(lag)}: how much an update that lags {@code lag} versions behind counts, in
 * {@code (0, 1]}, with {@code s(0) = 1} and {@code s} non-increasing.
 *
 * <p>From C. Xie, S. Koyejo, I. Gupta, "Asynchronous Federated Optimization", arXiv:1903.03934 (2019)
 * (FedAsync): the mixing weight of an update is {@code alpha * s(t - tau)}.
 */
public sealed interface StalenessWeighting permits ConstantStaleness, PolynomialStaleness, HingeStaleness {

    /**
     * The weight of an update {@code lag} versions behind.
     *
     * @throws IllegalArgumentException if {@code lag} is negative
     */
    double weight(long lag);

    /** Every update counts fully. */
    static StalenessWeighting constant() {
        return new ConstantStaleness();
    }

    /** {@code (1 + lag)^-exponent}. */
    static StalenessWeighting polynomial(double exponent) {
        return new PolynomialStaleness(exponent);
    }

    /** 1 up to {@code threshold}, then {@code 1 / (slope * (lag - threshold) + 1)}. */
    static StalenessWeighting hinge(double slope, long threshold) {
        return new HingeStaleness(slope, threshold);
    }

    /** Throws unless {@code lag} is a valid version lag. */
    static void requireLag(long lag) {
        if (lag < 0) {
            throw new IllegalArgumentException("negative staleness " + lag);
        }
    }
}
