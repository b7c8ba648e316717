package dev.chorus.learning.optim;

import dev.chorus.learning.tensor.Tensor;
import dev.chorus.learning.tensor.TensorBackend;

/** Zero-initialized per-parameter state tensors, allocated on the first step and checked after. */
final class OptimizerState implements AutoCloseable {

    private final Tensor[] slots;
    private TensorBackend backend;
    private long size = -1;

    OptimizerState(int count) {
        slots = new Tensor[count];
    }

    /** The state tensors, created on first use to match {@code parameters}. */
    Tensor[] forParameters(Tensor parameters, Tensor gradients) {
        if (parameters.size() != gradients.size()) {
            throw new IllegalArgumentException(
                    "parameters (" + parameters.size() + ") and gradients (" + gradients.size() + ") differ in size");
        }
        if (size < 0) {
            backend = parameters.backend();
            size = parameters.size();
            for (int i = 0; i < slots.length; i++) {
                slots[i] = backend.zeros(parameters.rows(), parameters.cols());
            }
        } else if (parameters.size() != size || parameters.backend() != backend) {
            throw new IllegalArgumentException("optimizer state was made for " + size
                    + " parameters on backend " + backend.name() + ", got " + parameters.size() + " on "
                    + parameters.backend().name());
        }
        return slots;
    }

    /** Copies each state tensor to the host; empty before the first step. */
    float[][] toHost() {
        if (size < 0) {
            return new float[0][];
        }
        float[][] out = new float[slots.length][];
        for (int i = 0; i < slots.length; i++) {
            out[i] = new float[(int) size];
            backend.copyToHost(slots[i], out[i], 0);
        }
        return out;
    }

    /** Replaces the state with {@code values} (empty: no state yet), shaped like {@code parameters}. */
    void fromHost(float[][] values, Tensor parameters) {
        if (values.length != 0 && values.length != slots.length) {
            throw new IllegalArgumentException(
                    "optimizer state has " + slots.length + " vectors, the snapshot " + values.length);
        }
        for (float[] v : values) {
            if (v.length != parameters.size()) {
                throw new IllegalArgumentException("optimizer state vector of " + v.length + " values does not fit "
                        + parameters.size() + " parameters");
            }
        }
        close();
        if (values.length == 0) {
            return;
        }
        forParameters(parameters, parameters);
        for (int i = 0; i < slots.length; i++) {
            backend.copyFromHost(values[i], 0, slots[i]);
        }
    }

    /** Zeroes the state, if any. */
    void reset() {
        for (Tensor slot : slots) {
            if (slot != null) {
                backend.fill(slot, 0f);
            }
        }
    }

    @Override
    public void close() {
        for (int i = 0; i < slots.length; i++) {
            if (slots[i] != null) {
                slots[i].close();
                slots[i] = null;
            }
        }
        size = -1;
        backend = null;
    }
}
