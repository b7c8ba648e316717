package dev.chorus.testnet;

import dev.chorus.aggregation.ModelUpdate;
import dev.chorus.learning.data.Dataset;
import java.util.Locale;
import java.util.Objects;
import java.util.SplittableRandom;
import java.util.function.UnaryOperator;

/**
 * What the testnet's Byzantine members send instead of their model, while they train as usual otherwise: {@code
 * --byzantine F:ATTACK} makes a share F of the nodes send it, so that the defences (screening, robust rules) are
 * measured rather than assumed.
 *
 * <p>Every attack here is elementwise, so a fragment is crafted from the values it holds. A crafted update never
 * shares arrays with the model it was made from: those are the node's published snapshot.
 *
 * @param kind the attack
 * @param strength K of {@code signflip:K} and {@code scale:K}, SIGMA of {@code noise:SIGMA}; 0 for the others
 */
public record ByzantineAttack(Kind kind, double strength) {

    /** No attack. */
    public static final ByzantineAttack NONE = new ByzantineAttack(Kind.NONE, 0);

    /** The attacks. */
    public enum Kind {
        /** Sends the model as it is. */
        NONE("none"),
        /** Sends -K times the model (a sign-flipping attack). */
        SIGNFLIP("signflip"),
        /** Sends K times the model (a scaling, or boosting, attack). */
        SCALE("scale"),
        /** Sends the model plus Gaussian noise of standard deviation SIGMA per coordinate, from a seeded stream. */
        NOISE("noise"),
        /** Sends the initial model throughout: a free-rider that takes the others' work and gives none. */
        FREERIDE("freeride"),
        /**
         * Replays what it sent first: each coordinate as the node first sent it, that is the model after its first
         * exchange round (an update whose values are a delta is sent as a zero delta once it was sent once).
         */
        STALE("stale"),
        /**
         * A Little Is Enough (Baruch, Baruch and Goldberg, NeurIPS 2019): the honest models' mean minus z times their
         * standard deviation per coordinate, with z the largest that the paper's majority of {@code n/2 + 1} nodes
         * still takes for a typical value: {@code s = floor(n/2 + 1) - f}, {@code z = Phi^-1((n - s) / n)}. Reads
         * the honest nodes' published models in-process (an omniscient attacker).
         */
        ALIE("alie"),
        /**
         * Inner-product manipulation (Xie, Koyejo and Gupta, UAI 2020): -EPS times the honest models' mean, so that
         * the mean of what is received points away from it. Reads the honest nodes' published models in-process.
         */
        IPM("ipm"),
        /**
         * Trains on its shard with every label {@code y} replaced by {@code classes - 1 - y} (a data-poisoning
         * attack, as in Tolpegin et al. 2020) and sends the model it gets as it is.
         */
        LABELFLIP("labelflip");

        final String id;

        Kind(String id) {
            this.id = id;
        }

        boolean takesStrength() {
            return this == SIGNFLIP || this == SCALE || this == NOISE || this == IPM;
        }
    }

    public ByzantineAttack {
        Objects.requireNonNull(kind, "kind");
        if (kind.takesStrength() ? !(strength > 0) || Double.isInfinite(strength) : strength != 0) {
            throw new IllegalArgumentException("attack " + kind.id + " strength must be "
                    + (kind.takesStrength() ? "a positive number" : "absent") + ", got " + strength);
        }
    }

    /**
     * Parses {@code signflip:K}, {@code scale:K}, {@code noise:SIGMA}, {@code freeride}, {@code stale}, {@code alie}
     * {@code ipm:EPS} or {@code labelflip}; {@code option} names the option in error messages.
     */
    public static ByzantineAttack parse(String option, String text) {
        String s = text == null ? "" : text.strip().toLowerCase(Locale.ROOT);
        int colon = s.indexOf(':');
        String name = colon < 0 ? s : s.substring(0, colon);
        for (Kind k : Kind.values()) {
            if (k == Kind.NONE || !k.id.equals(name)) {
                continue;
            }
            if (!k.takesStrength()) {
                if (colon >= 0) {
                    throw new IllegalArgumentException(
                            option + " attack " + k.id + " takes no value, got \"" + text + "\"");
                }
                return new ByzantineAttack(k, 0);
            }
            double v;
            try {
                v = colon < 0
                        ? Double.NaN
                        : Double.parseDouble(s.substring(colon + 1).strip());
            } catch (NumberFormatException e) {
                v = Double.NaN;
            }
            if (!(v > 0) || Double.isInfinite(v)) {
                throw new IllegalArgumentException(option + " attack " + k.id + " expects " + k.id + ":"
                        + (k == Kind.NOISE ? "SIGMA" : k == Kind.IPM ? "EPS" : "K") + " with a positive number, got \""
                        + text + "\"");
            }
            return new ByzantineAttack(k, v);
        }
        throw new IllegalArgumentException(option + ": unknown attack \"" + name
                + "\" (signflip:K, scale:K, noise:SIGMA, freeride, stale, alie, ipm:EPS,"
                + " labelflip)");
    }

    /** The attack as {@link #parse} reads it. */
    public String text() {
        return kind.takesStrength() ? kind.id + ":" + Impairment.plain(strength) : kind.id;
    }

    @Override
    public String toString() {
        return text();
    }

    /**
     * What one attacker sends instead of each update: a fresh transform per attacker, as {@code stale} and {@code
     * noise} keep state.
     *
     * @param initial the model every node starts from (read now; {@code freeride} sends it)
     * @param seed the seed of {@code noise}'s stream
     */
    public UnaryOperator<ModelUpdate> transform(float[] initial, long seed) {
        return transform(initial, seed, HonestModels.NONE);
    }

    /**
     * As {@link #transform(float[], long)}, for the attacks that read the honest nodes' models ({@code alie},
     * {@code ipm}) from {@code honest}.
     */
    public UnaryOperator<ModelUpdate> transform(float[] initial, long seed, HonestModels honest) {
        return switch (kind) {
            case ALIE -> u -> fromHonest(u, honest, alieZ(honest.nodes(), honest.attackers()), 1);
            case IPM -> u -> fromHonest(u, honest, 0, -strength);
            case NONE, LABELFLIP -> UnaryOperator.identity();
            case SIGNFLIP -> u -> scaled(u, (float) -strength);
            case SCALE -> u -> scaled(u, (float) strength);
            case NOISE -> new Noise(strength, seed);
            case FREERIDE -> new Freeride(initial.clone());
            case STALE -> new Stale(initial.length);
        };
    }

    /** What an attacker trains on: {@code shard} with its labels flipped for {@code labelflip}, else as it is. */
    public Dataset trainingShard(Dataset shard) {
        if (kind != Kind.LABELFLIP) {
            return shard;
        }
        int[] flipped = new int[shard.rows()];
        for (int i = 0; i < flipped.length; i++) {
            flipped[i] = shard.classes() - 1 - shard.labels()[i];
        }
        return new Dataset(
                shard.features(),
                shard.rows(),
                shard.cols(),
                flipped,
                shard.classes(),
                shard.featureNames(),
                shard.classNames());
    }

    /**
     * The honest nodes' models, as an omniscient attacker in the testnet reads them.
     */
    public interface HonestModels {
        /** None: the attacks that read them send the model as it is. */
        HonestModels NONE = new HonestModels() {
            @Override
            public int forEach(java.util.function.Consumer<float[]> visit) {
                return 0;
            }

            @Override
            public int nodes() {
                return 1;
            }

            @Override
            public int attackers() {
                return 0;
            }
        };

        /**
         * Calls {@code visit} with each honest node's latest published model, which it may read during the call
         * only and never modify; returns how many it visited.
         */
        int forEach(java.util.function.Consumer<float[]> visit);

        /** All the nodes, n. */
        int nodes();

        /** The attackers, f. */
        int attackers();
    }

    /**
     * ALIE's z for {@code n} nodes of which {@code f} attack: {@code Phi^-1((n - s) / n)} with {@code s = floor(n/2
     * + 1) - f}, the supporters the attackers need among the honest nodes (Baruch et al. 2019, section 3).
     */
    static double alieZ(int n, int f) {
        int s = n / 2 + 1 - f;
        return inverseNormal((double) (n - s) / n);
    }

    /**
     * {@code factor} times (the honest mean minus {@code z} times the honest standard deviation) at the update's
     * coordinates; the update as it is while no honest model is published.
     */
    private static ModelUpdate fromHonest(ModelUpdate u, HonestModels honest, double z, double factor) {
        int[] idx = u.indices();
        int m = u.values().length;
        double[] sum = new double[m];
        double[] sumSq = new double[m];
        int count = honest.forEach(model -> {
            for (int i = 0; i < m; i++) {
                double v = model[idx == null ? i : idx[i]];
                sum[i] += v;
                sumSq[i] += v * v;
            }
        });
        if (count == 0) {
            return u;
        }
        float[] out = new float[m];
        for (int i = 0; i < m; i++) {
            double mean = sum[i] / count;
            double std = Math.sqrt(Math.max(0, sumSq[i] / count - mean * mean));
            out[i] = (float) (factor * (mean - z * std));
        }
        return with(u, out);
    }

    /**
     * The standard normal quantile of {@code p} in (0, 1) (Acklam's rational approximation, relative error below
     * 1.2e-9).
     */
    static double inverseNormal(double p) {
        if (!(p > 0 && p < 1)) {
            throw new IllegalArgumentException("p must lie in (0, 1), got " + p);
        }
        double[] a = {
            -39.69683028665376,
            220.9460984245205,
            -275.9285104469687,
            138.3577518672690,
            -30.66479806614716,
            2.506628277459239
        };
        double[] b = {-54.47609879822406, 161.5858368580409, -155.6989798598866, 66.80131188771972, -13.28068155288572};
        double[] c = {
            -0.007784894002430293,
            -0.3223964580411365,
            -2.400758277161838,
            -2.549732539343734,
            4.374664141464968,
            2.938163982698783
        };
        double[] d = {0.007784695709041462, 0.3224671290700398, 2.445134137142996, 3.754408661907416};
        double low = 0.02425;
        if (p < low || p > 1 - low) {
            double q = Math.sqrt(-2 * Math.log(p < low ? p : 1 - p));
            double x = (((((c[0] * q + c[1]) * q + c[2]) * q + c[3]) * q + c[4]) * q + c[5])
                    / ((((d[0] * q + d[1]) * q + d[2]) * q + d[3]) * q + 1);
            return p < low ? x : -x;
        }
        double q = p - 0.5;
        double r = q * q;
        return (((((a[0] * r + a[1]) * r + a[2]) * r + a[3]) * r + a[4]) * r + a[5])
                * q
                / (((((b[0] * r + b[1]) * r + b[2]) * r + b[3]) * r + b[4]) * r + 1);
    }

    private static ModelUpdate scaled(ModelUpdate u, float factor) {
        float[] v = u.values();
        float[] out = new float[v.length];
        for (int i = 0; i < v.length; i++) {
            out[i] = v[i] * factor;
        }
        return with(u, out);
    }

    private static ModelUpdate with(ModelUpdate u, float[] values) {
        return new ModelUpdate(
                u.sender(), u.version(), u.sampleCount(), u.content(), u.dimension(), u.indices(), values);
    }

    /** The model plus Gaussian noise, from one seeded stream per attacker. */
    private static final class Noise implements UnaryOperator<ModelUpdate> {
        private final double sigma;
        private final SplittableRandom random;

        Noise(double sigma, long seed) {
            this.sigma = sigma;
            this.random = new SplittableRandom(seed);
        }

        @Override
        public synchronized ModelUpdate apply(ModelUpdate u) {
            float[] v = u.values();
            float[] out = new float[v.length];
            for (int i = 0; i < v.length; i++) {
                out[i] = (float) (v[i] + sigma * gaussian());
            }
            return with(u, out);
        }

        /** A standard normal draw (Box-Muller; the second draw is dropped to keep the stream simple). */
        private double gaussian() {
            double u1 = 1 - random.nextDouble(); // in (0, 1]
            double u2 = random.nextDouble();
            return Math.sqrt(-2 * Math.log(u1)) * Math.cos(2 * Math.PI * u2);
        }
    }

    /** The initial model's values at the update's coordinates; a zero delta for a delta. */
    private record Freeride(float[] initial) implements UnaryOperator<ModelUpdate> {
        @Override
        public ModelUpdate apply(ModelUpdate u) {
            float[] out = new float[u.values().length];
            if (u.content() == ModelUpdate.Content.PARAMETERS) {
                int[] idx = u.indices();
                for (int i = 0; i < out.length; i++) {
                    out[i] = initial[idx == null ? i : idx[i]];
                }
            }
            return with(u, out);
        }
    }

    /** Each coordinate as first sent; a zero delta once a delta was sent. */
    private static final class Stale implements UnaryOperator<ModelUpdate> {
        private final float[] first;
        private final boolean[] sent;
        private boolean deltaSent;

        Stale(int dimension) {
            first = new float[dimension];
            sent = new boolean[dimension];
        }

        @Override
        public synchronized ModelUpdate apply(ModelUpdate u) {
            float[] v = u.values();
            float[] out = new float[v.length];
            if (u.content() == ModelUpdate.Content.DELTA) {
                if (!deltaSent) {
                    deltaSent = true;
                    System.arraycopy(v, 0, out, 0, v.length);
                }
                return with(u, out);
            }
            int[] idx = u.indices();
            for (int i = 0; i < v.length; i++) {
                int c = idx == null ? i : idx[i];
                if (!sent[c]) {
                    sent[c] = true;
                    first[c] = v[i];
                }
                out[i] = first[c];
            }
            return with(u, out);
        }
    }
}
