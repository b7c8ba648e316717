package dev.chorus.aggregation;

import java.util.List;

/**
 * Checks and plain loops over flat parameter vectors. The loops are simple enough for the JIT to vectorise
 * and never allocate.
 */
public final class ParameterVectors {

    private ParameterVectors() {}

    /**
     * Throws {@link InvalidUpdateException} naming the first non-finite value.
     *
     * @param what how to name the vector in the message, e.g. {@code "update from peer-3"}
     */
    public static void requireFinite(float[] values, String what) {
        for (int i = 0; i < values.length; i++) {
            if (!Float.isFinite(values[i])) {
                throw new InvalidUpdateException(what + ": value at position " + i + " is " + values[i]);
            }
        }
    }

    /** Throws {@link InvalidUpdateException} unless {@code values} has {@code expected} entries. */
    public static void requireLength(float[] values, int expected, String what) {
        if (values.length != expected) {
            throw new InvalidUpdateException(what + " has " + values.length + " parameters, expected " + expected);
        }
    }

    /**
     * Validates the inputs of an aggregation rule: at least one input, all of the output's length, all finite,
     * none the output array itself.
     */
    public static void requireInputs(List<float[]> inputs, float[] out) {
        if (inputs.isEmpty()) {
            throw new IllegalArgumentException("no inputs to aggregate");
        }
        for (int k = 0; k < inputs.size(); k++) {
            float[] x = inputs.get(k);
            if (x == null) {
                throw new InvalidUpdateException("input " + k + " is null");
            }
            if (x == out) {
                throw new IllegalArgumentException("input " + k + " is the output array");
            }
            requireLength(x, out.length, "input " + k);
            requireFinite(x, "input " + k);
        }
    }

    /** The squared Euclidean distance, accumulated in double. */
    public static double squaredDistance(float[] a, float[] b) {
        double sum = 0;
        for (int i = 0; i < a.length; i++) {
            double d = (double) a[i] - b[i];
            sum += d * d;
        }
        return sum;
    }

    /** The Euclidean norm, accumulated in double. */
    public static double norm(float[] a) {
        double sum = 0;
        for (float v : a) {
            sum += (double) v * v;
        }
        return Math.sqrt(sum);
    }

    /** {@code x += rate * (y - x)}: moves {@code x} a fraction {@code rate} of the way to {@code y}. */
    public static void mixInto(float[] x, float[] y, float rate) {
        for (int i = 0; i < x.length; i++) {
            x[i] += rate * (y[i] - x[i]);
        }
    }
}
