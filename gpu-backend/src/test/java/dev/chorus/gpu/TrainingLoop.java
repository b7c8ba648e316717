package dev.chorus.gpu;

import dev.chorus.learning.model.BatchBuffer;
import dev.chorus.learning.model.ModelSpec;
import dev.chorus.learning.model.Sequential;
import dev.chorus.learning.optim.Optimizer;
import dev.chorus.learning.optim.OptimizerSpec;
import dev.chorus.learning.tensor.Tensor;
import dev.chorus.learning.tensor.TensorBackend;
import java.util.SplittableRandom;

/**
 * A seeded MLP training run on any backend, stepped by hand the way the trainer steps it (copy a
 * batch in, forward, loss and backward, optimizer step), over synthetic data: features uniform in
 * [0, 1), labels uniform over the classes.
 */
final class TrainingLoop implements AutoCloseable {

    final Sequential model;
    final Optimizer optimizer;
    private final TensorBackend backend;
    private final BatchBuffer input;
    private final float[] features;
    private final int[] labels;
    private final int rows;
    private final int width;
    private final int batch;
    private int cursor;

    TrainingLoop(
            TensorBackend backend,
            String model,
            String optimizer,
            int width,
            int classes,
            int rows,
            int batch,
            long seed) {
        this.backend = backend;
        this.model = ModelSpec.parse(model).build(backend, width, classes, seed);
        this.optimizer = OptimizerSpec.parse(optimizer).create();
        this.input = new BatchBuffer(backend, width);
        this.width = width;
        this.rows = rows;
        this.batch = batch;
        SplittableRandom random = new SplittableRandom(seed ^ 0x5EED);
        features = new float[rows * width];
        labels = new int[rows];
        for (int i = 0; i < features.length; i++) {
            features[i] = (float) random.nextDouble();
        }
        for (int i = 0; i < rows; i++) {
            labels[i] = random.nextInt(classes);
        }
    }

    /** One step over the next batch (wrapping around); returns the batch's loss. */
    float step() {
        if (cursor + batch > rows) {
            cursor = 0;
        }
        Tensor x = input.rows(batch);
        backend.copyFromHost(features, cursor * width, x);
        model.forward(x);
        int[] batchLabels = java.util.Arrays.copyOfRange(labels, cursor, cursor + batch);
        float loss = model.backward(batchLabels, 0);
        optimizer.step(model.parameters(), model.gradients());
        cursor += batch;
        return loss;
    }

    float[] parameters() {
        float[] out = new float[model.parameterCount()];
        model.copyParametersTo(out);
        return out;
    }

    @Override
    public void close() {
        input.close();
        optimizer.close();
        model.close();
    }
}
