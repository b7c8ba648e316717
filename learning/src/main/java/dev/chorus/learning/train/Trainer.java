package dev.chorus.learning.train;

import dev.chorus.learning.data.Dataset;
import dev.chorus.learning.model.BatchBuffer;
import dev.chorus.learning.model.Sequential;
import dev.chorus.learning.optim.Optimizer;
import dev.chorus.learning.tensor.Tensor;
import dev.chorus.learning.tensor.TensorBackend;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.LongSupplier;

/**
 * Trains a {@link Sequential} model on a data set held in memory: each epoch visits every row once
 * in a fresh seeded shuffle (Fisher-Yates), in mini-batches of {@link TrainingConfig#batchSize()}
 * rows (the last, partial batch included), one forward pass, backward pass and optimizer step per
 * batch. After each step the {@link StepListener}s run, then the {@link ProgressReporter}.
 *
 * <p>Batches are gathered into a host buffer and copied into backend tensors that are allocated
 * once (one for full batches, a view of it for the partial one), so a warm step allocates no tensor
 * storage.
 *
 * <p>A trainer keeps its shuffle generator, step count and epoch count across {@link #train} calls,
 * so a node that trains in rounds continues one deterministic sequence. Equal seeds, equal initial
 * parameters, equal data and equal listener behaviour give bit-identical parameters on the same
 * backend. Not thread-safe, except {@link #requestStop()}.
 */
public final class Trainer {

    private final Sequential model;
    private final Optimizer optimizer;
    private final TrainingConfig config;
    private final SplittableRandom shuffle;
    private final List<StepListener> listeners = new CopyOnWriteArrayList<>();
    private ProgressReporter progress = ProgressReporter.quiet();
    private LongSupplier clock = System::nanoTime;
    private volatile boolean stopRequested;
    private long steps;
    private int epochsDone;

    public Trainer(Sequential model, Optimizer optimizer, TrainingConfig config) {
        if (model == null || optimizer == null || config == null) {
            throw new IllegalArgumentException("a trainer needs a model, an optimizer and a config");
        }
        this.model = model;
        this.optimizer = optimizer;
        this.config = config;
        this.shuffle = new SplittableRandom(config.seed());
    }

    /** Reports progress to {@code reporter} (quiet by default). */
    public Trainer progress(ProgressReporter reporter) {
        this.progress = reporter == null ? ProgressReporter.quiet() : reporter;
        return this;
    }

    /** Adds a listener called after every optimizer step, in the order added. */
    public Trainer addStepListener(StepListener listener) {
        if (listener == null) {
            throw new IllegalArgumentException("step listener must not be null");
        }
        listeners.add(listener);
        return this;
    }

    /** Replaces the clock used for timings ({@link System#nanoTime} by default), for tests. */
    public Trainer clock(LongSupplier nanoTime) {
        this.clock = nanoTime;
        return this;
    }

    /**
     * Asks {@link #train} to return after the current step (callable from any thread, e.g. a
     * listener or a shutdown hook). A request made between runs ends the next run before its first
     * step; each run clears the request when it returns.
     */
    public void requestStop() {
        stopRequested = true;
    }

    public Sequential model() {
        return model;
    }

    public Optimizer optimizer() {
        return optimizer;
    }

    public TrainingConfig config() {
        return config;
    }

    /** Steps taken over this trainer's life. */
    public long steps() {
        return steps;
    }

    /**
     * Runs {@link TrainingConfig#epochs()} epochs over {@code data}.
     *
     * @throws IllegalArgumentException when the data does not fit the model, or is empty
     * @throws IllegalStateException when the loss becomes NaN or infinite (the step that produced it
     *     is named; the parameters are left as they were after it)
     */
    public TrainingStats train(Dataset data) {
        model.checkData(data);
        if (data.rows() == 0) {
            throw new IllegalArgumentException("cannot train on an empty data set");
        }
        TensorBackend backend = model.backend();
        int rows = data.rows(), cols = data.cols();
        int batchSize = Math.min(config.batchSize(), rows);
        float[] hostBatch = new float[batchSize * cols];
        int[] hostLabels = new int[batchSize];
        int[] order = new int[rows];
        for (int i = 0; i < rows; i++) {
            order[i] = i;
        }
        List<Double> epochLosses = new ArrayList<>();
        long samples = 0;
        long runSteps = 0;
        boolean stopped = false;
        long runStart = clock.getAsLong();
        progress.trainingStarted(config.epochs(), rows, batchSize);
        try (BatchBuffer input = new BatchBuffer(backend, cols)) {
            epochs:
            for (int e = 0; e < config.epochs(); e++) {
                int epoch = ++epochsDone;
                shuffle(order);
                long epochStart = clock.getAsLong();
                double lossSum = 0;
                int done = 0;
                for (int start = 0; start < rows; start += batchSize) {
                    if (stopRequested) {
                        stopped = true;
                        epochsDone--;
                        break epochs;
                    }
                    int n = Math.min(batchSize, rows - start);
                    float loss = step(data, order, start, n, hostBatch, hostLabels, input, epoch);
                    runSteps++;
                    done += n;
                    samples += n;
                    lossSum += (double) loss * n;
                    long now = clock.getAsLong();
                    progress.stepCompleted(epoch, done, rows, lossSum / done, now - epochStart, now);
                }
                double meanLoss = lossSum / rows;
                epochLosses.add(meanLoss);
                progress.epochCompleted(new EpochSummary(
                        epoch, config.epochs(), steps, rows, meanLoss, (clock.getAsLong() - epochStart) / 1e9));
            }
        } finally {
            stopRequested = false;
        }
        double finalLoss = epochLosses.isEmpty() ? Double.NaN : epochLosses.getLast();
        TrainingStats stats = new TrainingStats(
                epochLosses.size(),
                runSteps,
                samples,
                finalLoss,
                (clock.getAsLong() - runStart) / 1e9,
                epochLosses,
                stopped);
        progress.trainingFinished(stats);
        return stats;
    }

    /**
     * One step on the rows {@code order[start, start + n)}: gathers them, runs the forward and backward passes and
     * the optimizer, then the listeners; returns the batch's loss. Its own method rather than the body of
     * {@link #train}'s loop, so the JIT compiles the step once, from its calls, and keeps it: a loop that runs a
     * whole training run is compiled on stack (OSR), and the compiled loop is thrown away when a run ends (the stop
     * request is a branch it had never taken), so each later run began in the interpreter until it was compiled
     * again, which took seconds on a machine whose cores the training threads keep busy.
     */
    private float step(
            Dataset data,
            int[] order,
            int start,
            int n,
            float[] hostBatch,
            int[] hostLabels,
            BatchBuffer input,
            int epoch) {
        int cols = data.cols();
        for (int i = 0; i < n; i++) {
            int row = order[start + i];
            System.arraycopy(data.features(), row * cols, hostBatch, i * cols, cols);
            hostLabels[i] = data.labels()[row];
        }
        Tensor x = input.rows(n);
        model.backend().copyFromHost(hostBatch, 0, x);
        model.forward(x);
        float loss = model.backward(hostLabels, 0);
        if (!Float.isFinite(loss)) {
            throw new IllegalStateException("training diverged at step " + (steps + 1) + " (epoch " + epoch
                    + "): loss is " + loss + "; try a lower learning rate");
        }
        optimizer.step(model.parameters(), model.gradients());
        steps++;
        TrainingStep event = new TrainingStep(steps, epoch, n, loss, model);
        for (StepListener listener : listeners) {
            listener.afterStep(event);
        }
        return loss;
    }

    private void shuffle(int[] order) {
        for (int i = order.length - 1; i > 0; i--) {
            int j = shuffle.nextInt(i + 1);
            int t = order[i];
            order[i] = order[j];
            order[j] = t;
        }
    }
}
