package dev.chorus.testnet;

import dev.chorus.aggregation.ModelUpdate;
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
        STALE("stale");

        final String id;

        Kind(String id) {
            this.id = id;
        }

        boolean takesStrength() {
            return this == SIGNFLIP || this == SCALE || this == NOISE;
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
     * Parses {@code signflip:K}, {@code scale:K}, {@code noise:SIGMA}, {@code freeride} or {@code stale}; {@code
     * option} names the option in error messages.
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
                        + (k == Kind.NOISE ? "SIGMA" : "K") + " with a positive number, got \"" + text + "\"");
            }
            return new ByzantineAttack(k, v);
        }
        throw new IllegalArgumentException(
                option + ": unknown attack \"" + name + "\" (signflip:K, scale:K, noise:SIGMA, freeride, stale)");
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
        return switch (kind) {
            case NONE -> UnaryOperator.identity();
            case SIGNFLIP -> u -> scaled(u, (float) -strength);
            case SCALE -> u -> scaled(u, (float) strength);
            case NOISE -> new Noise(strength, seed);
            case FREERIDE -> new Freeride(initial.clone());
            case STALE -> new Stale(initial.length);
        };
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
