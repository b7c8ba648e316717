package dev.chorus.aggregation.async;

import dev.chorus.aggregation.ModelUpdate;

/** Models as they arrive after the wire's int8 encoding: one symmetric scale per chunk, values rounded to it. */
final class Int8 {

    private Int8() {}

    /** {@code params} rounded to int8 with a scale per {@code chunk} values, with the rounding the receiver learns. */
    static ModelUpdate rounded(String sender, float[] params, int chunk) {
        return rounded(sender, params, null, params.length, chunk);
    }

    /** The same for the values at {@code indices} of a model of {@code dimension} parameters. */
    static ModelUpdate rounded(String sender, float[] values, int[] indices, int dimension, int chunk) {
        float[] out = new float[values.length];
        float[] halfSteps = new float[(values.length + chunk - 1) / chunk];
        for (int from = 0, c = 0; from < values.length; from += chunk, c++) {
            int to = Math.min(values.length, from + chunk);
            float max = 0;
            for (int i = from; i < to; i++) {
                max = Math.max(max, Math.abs(values[i]));
            }
            float scale = max / 127f;
            halfSteps[c] = scale / 2;
            for (int i = from; i < to; i++) {
                out[i] = scale == 0 ? 0 : Math.round(values[i] / scale) * scale;
            }
        }
        return new ModelUpdate(
                sender,
                0,
                1,
                ModelUpdate.Content.PARAMETERS,
                dimension,
                indices,
                out,
                new ModelUpdate.Rounding(chunk, halfSteps));
    }
}
