package dev.chorus.aggregation.weighting;

import java.util.Objects;

/**
 * The weight of a model in an average: its staleness factor {@code s(lag)} (FedAsync, Xie et al. 2019), times
 * its sample count when {@code bySampleCount} is set (FedAvg's {@code n_k / n} weighting, McMahan et al. 2017,
 * "Communication-Efficient Learning of Deep Networks from Decentralized Data").
 *
 * @param staleness the staleness function; {@link StalenessWeighting#constant()} ignores lag
 * @param bySampleCount whether a model counts in proportion to the examples its node holds
 */
public record UpdateWeighting(StalenessWeighting staleness, boolean bySampleCount) {

    public UpdateWeighting {
        Objects.requireNonNull(staleness, "staleness");
    }

    /** Every model counts the same. */
    public static UpdateWeighting uniform() {
        return new UpdateWeighting(StalenessWeighting.constant(), false);
    }

    /**
     * The weight of a model from a node holding {@code sampleCount} examples that lags {@code lag} versions.
     *
     * @throws IllegalArgumentException if either argument is negative
     */
    public double weight(long sampleCount, long lag) {
        if (sampleCount < 0) {
            throw new IllegalArgumentException("negative sample count " + sampleCount);
        }
        double s = staleness.weight(lag);
        return bySampleCount ? s * sampleCount : s;
    }

    /**
     * The fraction of the way a local model moves towards a remote one when the two are averaged pairwise:
     * {@code b / (a + b)}, with {@code a} and {@code b} the weights of the two models and each lag measured from
     * the newer of the two versions. The rule is symmetric, so when both sides of an exchange apply it they end
     * with the same model. If both weights are 0 (two nodes without data) the rate is one half.
     */
    public double pairwiseRate(long localSamples, long localVersion, long remoteSamples, long remoteVersion) {
        if (localVersion < 0 || remoteVersion < 0) {
            throw new IllegalArgumentException("negative version");
        }
        long newest = Math.max(localVersion, remoteVersion);
        double a = weight(localSamples, newest - localVersion);
        double b = weight(remoteSamples, newest - remoteVersion);
        double sum = a + b;
        return sum > 0 ? b / sum : 0.5;
    }
}
