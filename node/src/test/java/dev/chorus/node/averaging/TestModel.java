package dev.chorus.node.averaging;

import dev.chorus.aggregation.LocalModel;
import dev.chorus.learning.model.ModelSpec;
import dev.chorus.learning.model.Sequential;
import dev.chorus.learning.tensor.TensorBackend;
import dev.chorus.learning.tensor.TensorBackends;

/**
 * The engine tests' model: a two-class logistic regression on the reference backend, and a copy of its
 * parameters for the engine's local model. Closing it frees the model and the backend.
 */
record TestModel(TensorBackend backend, Sequential model, float[] params) implements AutoCloseable {

    static TestModel logreg(int features) {
        TensorBackend backend = TensorBackends.create("reference", 1);
        Sequential model = ModelSpec.parse("logreg").build(backend, features, 2, 7);
        float[] params = new float[model.parameterCount()];
        model.copyParametersTo(params);
        return new TestModel(backend, model, params);
    }

    /** Node {@code peer-a}'s local model: these parameters, version 0, 100 samples. */
    LocalModel local() {
        return new LocalModel("peer-a", params, 0, 100);
    }

    @Override
    public void close() {
        model.close();
        backend.close();
    }
}
