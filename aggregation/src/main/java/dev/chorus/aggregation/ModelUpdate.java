package dev.chorus.aggregation;

import java.util.Arrays;
import java.util.Objects;

/**
 * Parameters sent by one node: its whole model, a fragment of it, or a delta against a model it started from.
 *
 * <p>Every instance is valid: the constructor rejects, with an {@link InvalidUpdateException} naming the sender
 * and the problem, a blank sender, a negative version or sample count, a non-positive dimension, indices out of
 * range or not matching the values, and any NaN or infinite value. Whether the dimension matches the local model
 * is checked by the strategy that receives the update.
 *
 * <p>The arrays are taken over, not copied (a 1M-parameter update is 4 MB): whoever builds an update must not
 * change them afterwards, and receivers only read them.
 *
 * @param sender the id of the sending node
 * @param version the sender's model version: its logical age for asynchronous strategies, the version of the
 *     model a delta was computed against, or the round number for synchronous ones
 * @param sampleCount how many training examples the sender holds, for sample-count weighting
 * @param content whether {@code values} are parameters or a delta
 * @param dimension the length of the full parameter vector
 * @param indices the coordinates that {@code values} hold, in order, or {@code null} when {@code values} is the
 *     whole vector
 * @param values the parameter (or delta) values
 * @param rounding how far each value may lie from the sender's own, when it travelled rounded to a coarse grid
 *     (int8), or {@code null} when no interval comes with the values (float32, and f16 and bf16, whose relative
 *     rounding the strategies take as it is)
 */
public record ModelUpdate(
        String sender,
        long version,
        long sampleCount,
        Content content,
        int dimension,
        int[] indices,
        float[] values,
        Rounding rounding)
        implements AveragingMessage {

    /**
     * The rounding a value went through on the wire: the value at position {@code p} of {@link #values()} lies
     * within {@code halfSteps[p / chunk]} of the sender's own. A receiver that holds a model near the sender's
     * (every averaging strategy's does, once they have mixed) knows more than the rounded value alone says: of the
     * values that round to it, the nearest to its own parameter is the one that moves it least, and taking it
     * mixes in none of the rounding's error where the two models already agree to within a step. Mixing the
     * rounded value instead adds up to half a step of noise to the receiver's parameter at every merge, noise that
     * does not shrink as training converges and the learning rate anneals, so it sets a floor under how close the
     * nodes' models come to the consensus.
     *
     * @param chunk values per rounding step
     * @param halfSteps half of each chunk's step, finite and at least 0
     */
    public record Rounding(int chunk, float[] halfSteps) {
        public Rounding {
            if (chunk < 1) {
                throw new IllegalArgumentException("a rounding chunk of " + chunk + " values");
            }
            Objects.requireNonNull(halfSteps, "halfSteps");
            for (float h : halfSteps) {
                if (!(h >= 0) || !Float.isFinite(h)) {
                    throw new IllegalArgumentException("a rounding half-step of " + h);
                }
            }
        }

        /** Of the values within the half-step of {@code rounded}, at position {@code p}, the nearest to {@code own}. */
        public float nearest(int p, float rounded, float own) {
            float h = halfSteps[p / chunk];
            return Math.max(rounded - h, Math.min(rounded + h, own));
        }
    }

    /** What the values are. */
    public enum Content {
        /** Model parameters. */
        PARAMETERS,
        /** The difference between the sender's model and the model of {@link #version()} it started from. */
        DELTA
    }

    public ModelUpdate {
        if (sender == null || sender.isBlank()) {
            throw new InvalidUpdateException("update has no sender");
        }
        String from = "update from " + sender;
        if (version < 0) {
            throw new InvalidUpdateException(from + ": negative version " + version);
        }
        if (sampleCount < 0) {
            throw new InvalidUpdateException(from + ": negative sample count " + sampleCount);
        }
        Objects.requireNonNull(content, "content");
        if (values == null) {
            throw new InvalidUpdateException(from + ": no values");
        }
        if (dimension <= 0) {
            throw new InvalidUpdateException(from + ": dimension " + dimension + " is not positive");
        }
        if (indices == null) {
            if (values.length != dimension) {
                throw new InvalidUpdateException(
                        from + " has " + values.length + " parameters but declares dimension " + dimension);
            }
        } else {
            if (indices.length != values.length) {
                throw new InvalidUpdateException(
                        from + ": " + indices.length + " indices for " + values.length + " values");
            }
            for (int k = 0; k < indices.length; k++) {
                if (indices[k] < 0 || indices[k] >= dimension) {
                    throw new InvalidUpdateException(
                            from + ": index " + indices[k] + " at position " + k + " outside [0, " + dimension + ")");
                }
            }
        }
        ParameterVectors.requireFinite(values, from);
        if (rounding != null && (long) rounding.halfSteps().length * rounding.chunk() < values.length) {
            throw new InvalidUpdateException(from + ": " + rounding.halfSteps().length + " rounding steps of "
                    + rounding.chunk() + " values for " + values.length + " values");
        }
    }

    /** An update whose values come without a rounding interval (float32, f16, bf16, or built in memory). */
    public ModelUpdate(
            String sender,
            long version,
            long sampleCount,
            Content content,
            int dimension,
            int[] indices,
            float[] values) {
        this(sender, version, sampleCount, content, dimension, indices, values, null);
    }

    /** A whole model. */
    public static ModelUpdate full(String sender, long version, long sampleCount, float[] params) {
        return new ModelUpdate(
                sender, version, sampleCount, Content.PARAMETERS, params == null ? 0 : params.length, null, params);
    }

    /** A delta over the whole model, computed against the model of {@code baseVersion}. */
    public static ModelUpdate delta(String sender, long baseVersion, long sampleCount, float[] delta) {
        return new ModelUpdate(
                sender, baseVersion, sampleCount, Content.DELTA, delta == null ? 0 : delta.length, null, delta);
    }

    /** The parameters at {@code indices} of a model with {@code dimension} parameters. */
    public static ModelUpdate fragment(
            String sender, long version, long sampleCount, int dimension, int[] indices, float[] values) {
        return new ModelUpdate(sender, version, sampleCount, Content.PARAMETERS, dimension, indices, values);
    }

    /** This update with {@code newVersion} as its version. */
    public ModelUpdate withVersion(long newVersion) {
        return new ModelUpdate(sender, newVersion, sampleCount, content, dimension, indices, values, rounding);
    }

    /**
     * The values to mix into {@code local} (the receiver's whole parameter vector): {@link #values()} itself when
     * they travelled unrounded, otherwise a new array holding, for each value, the one nearest to the receiver's
     * parameter among those that round to it ({@link Rounding#nearest}).
     */
    public float[] valuesNear(float[] local) {
        if (rounding == null) {
            return values;
        }
        float[] out = new float[values.length];
        for (int p = 0; p < values.length; p++) {
            out[p] = rounding.nearest(p, values[p], local[indices == null ? p : indices[p]]);
        }
        return out;
    }

    /** Whether this update holds only some coordinates. */
    public boolean isFragment() {
        return indices != null;
    }

    /** Throws {@link InvalidUpdateException} unless this update belongs to a model of {@code expected} parameters. */
    public void requireDimension(int expected) {
        if (dimension != expected) {
            throw new InvalidUpdateException("update from " + sender + " is for a model of " + dimension
                    + " parameters, the local model has " + expected);
        }
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof ModelUpdate u
                && sender.equals(u.sender)
                && version == u.version
                && sampleCount == u.sampleCount
                && content == u.content
                && dimension == u.dimension
                && Arrays.equals(indices, u.indices)
                && Arrays.equals(values, u.values);
    }

    @Override
    public int hashCode() {
        return Objects.hash(sender, version, sampleCount, content, dimension)
                + 31 * Arrays.hashCode(indices)
                + 17 * Arrays.hashCode(values);
    }

    /** A summary: never prints the values, which can be millions. */
    @Override
    public String toString() {
        return "ModelUpdate[sender=" + sender + ", version=" + version + ", samples=" + sampleCount + ", " + content
                + ", " + values.length + "/" + dimension + " coordinates]";
    }
}
