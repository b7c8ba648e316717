package dev.chorus.node.daemon;

import dev.chorus.learning.data.Dataset;
import dev.chorus.learning.eval.Evaluation;
import dev.chorus.learning.model.Sequential;
import dev.chorus.learning.optim.LearningRateSchedule;
import dev.chorus.learning.optim.Optimizer;
import dev.chorus.learning.train.StepListener;
import dev.chorus.learning.train.Trainer;
import dev.chorus.learning.train.TrainingConfig;
import dev.chorus.learning.train.TrainingStep;
import dev.chorus.node.api.EarlyStoppingState;
import dev.chorus.node.api.NodeMetrics;
import dev.chorus.node.checkpoint.Checkpoint;
import dev.chorus.node.checkpoint.CheckpointStore;
import dev.chorus.node.config.NodeConfig;
import java.io.IOException;
import java.time.InstantSource;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The node's local training loop, run on one thread: epoch after epoch over the local training
 * split (until the steps of {@code training.epochs} are taken, counting those of a resumed checkpoint, or a stop
 * request), one model version per step. After every step, in order: the version is counted, the added
 * {@link StepListener}s run (the seam where the averaging engine snapshots and merges parameters), the version
 * follows a merged one that is ahead, then an evaluation on the validation split once both {@code
 * training.eval_every_steps} steps and {@code training.eval_every_seconds} have passed since the last one, and a
 * checkpoint once both {@code checkpoint.every_steps} and {@code checkpoint.every_seconds} have (whichever comes
 * later: a small model takes thousands of steps a second, and a bound by steps alone would evaluate and write
 * checkpoints several times a second). The learning rate for the next step follows {@code
 * training.lr_schedule}, progress being the share of the budget's steps taken. A stop request finishes the current
 * step, writes a final checkpoint and returns.
 *
 * <p>Every evaluation is judged by a {@link CollapseDetector}; a checkpoint is written only after an evaluation of
 * the model it holds, so a checkpoint of a collapsed model is never mistaken for a healthy one. A collapse is logged
 * and counted and, with {@code checkpoint.revert_on_collapse}, answered by restoring the model and the optimizer from
 * the newest checkpoint written while healthy. The version keeps growing across a revert.
 */
public final class TrainingLoop implements Runnable {

    private static final Logger log = LoggerFactory.getLogger(TrainingLoop.class);

    private final Sequential model;
    private final Optimizer optimizer;
    private final LocalData data;
    private final NodeConfig config;
    private final CheckpointStore checkpoints;
    private final NodeMetrics metrics;
    private final InstantSource clock;
    private final Trainer trainer;
    private final List<StepListener> listeners = new CopyOnWriteArrayList<>();
    private LongSupplier mergedVersion;
    private volatile boolean stopRequested;
    private volatile boolean started;
    private final LearningRateSchedule schedule;
    private final float initialRate;
    /** The steps of {@code training.epochs} over the local split; 0 when training runs until stopped. */
    private final long stepBudget;

    private long version;
    private long steps;
    private final CollapseDetector detector = new CollapseDetector();
    /** The step of the last evaluation, and whether it was healthy. */
    private long evaluatedAtStep = -1;
    /** The step and time (the clock's milliseconds) of the last evaluation; the loop's start before the first. */
    private long evaluationMarkStep;

    private long evaluatedAtMillis;
    /** The step and time of the last checkpoint written or attempted (the start before the first). */
    private long checkpointedAtStep;

    private long checkpointedAtMillis;

    private boolean evaluationHealthy = true;
    /** {@code training.early_stopping} resolved for the local data: warn, stop or off. */
    private final String earlyStopMode;

    private final EarlyStopping plateau;
    /** With {@code stop}: the parameters of the best evaluation, restored when training stops for it. */
    private float[] bestParams;

    private long bestParamsVersion = -1;
    private volatile boolean earlyStopped;
    /** The newest checkpoint written (or resumed) while the model was healthy; -1 when none. */
    private long lastHealthyCheckpoint;

    /**
     * Where training starts: the model version and the step count, both 0 for a fresh model and those of the
     * checkpoint for a resumed one.
     */
    public record Progress(long version, long steps) {
        /** A fresh model's start. */
        public static final Progress FRESH = new Progress(0, 0);
    }

    /** @param start the model version and step count to continue from (restored from a checkpoint, or fresh) */
    public TrainingLoop(
            Sequential model,
            Optimizer optimizer,
            LocalData data,
            NodeConfig config,
            CheckpointStore checkpoints,
            NodeMetrics metrics,
            InstantSource clock,
            Progress start) {
        this.model = model;
        this.optimizer = optimizer;
        this.data = data;
        this.config = config;
        this.checkpoints = checkpoints;
        this.metrics = metrics;
        this.clock = clock;
        this.version = start.version();
        this.steps = start.steps();
        this.lastHealthyCheckpoint = start == Progress.FRESH ? -1 : start.version();
        this.evaluatedAtMillis = clock.millis();
        this.earlyStopMode = config.training()
                .earlyStopping()
                .resolve(data.train().rows(), config.averaging().enabled());
        this.plateau = new EarlyStopping(config.training().earlyStopping().patience());
        metrics.recordEarlyStopping(EarlyStoppingState.initial(earlyStopMode));
        this.evaluationMarkStep = start.steps();
        this.checkpointedAtStep = start.steps();
        this.checkpointedAtMillis = evaluatedAtMillis;
        // A resumed node continues with a different shuffle rather than replaying the first batches.
        long seed = config.training().seed() + start.steps();
        this.trainer = new Trainer(
                model, optimizer, new TrainingConfig(1, config.training().batch(), seed));
        trainer.addStepListener(this::afterStep);
        int rows = data.train().rows();
        int batch = Math.max(1, Math.min(config.training().batch(), rows));
        long perEpoch = (rows + batch - 1) / batch;
        this.stepBudget = config.training().epochs() * perEpoch;
        this.schedule = config.training().lrSchedule();
        this.initialRate = optimizer.learningRate();
        scheduleRate();
    }

    /** Whether a stop has been requested; a step listener that waits polls it. */
    public boolean stopRequested() {
        return stopRequested;
    }

    /**
     * Adds a listener that runs on the training thread after each step, after the version is
     * counted and before evaluation and checkpointing: the averaging engine's hook.
     */
    public TrainingLoop addStepListener(StepListener listener) {
        listeners.add(listener);
        return this;
    }

    /**
     * Makes the model version follow {@code source} (read on the training thread after the listeners) whenever it
     * is ahead: asynchronous averaging keeps the larger of two merged versions.
     */
    public TrainingLoop followVersion(LongSupplier source) {
        this.mergedVersion = source;
        return this;
    }

    /** Asks the loop to finish the current step, checkpoint and return. Any thread. */
    public void requestStop() {
        stopRequested = true;
        trainer.requestStop();
    }

    /** Whether the first step has been taken. */
    public boolean started() {
        return started;
    }

    @Override
    public void run() {
        while ((stepBudget == 0 || steps < stepBudget) && !stopRequested && !earlyStopped) {
            trainer.train(data.train());
        }
        if (earlyStopped) {
            restoreBest();
        } else if (!stopRequested) {
            log.info(
                    "trained {} epochs ({} steps); training stops, the node keeps serving",
                    config.training().epochs(),
                    steps);
        }
        evaluate();
        checkpoint();
    }

    /** Sets the rate of the next step from the schedule. */
    private void scheduleRate() {
        if (schedule.cosine() && stepBudget > 0) {
            optimizer.setLearningRate(schedule.rate(initialRate, (double) steps / stepBudget));
        }
        metrics.recordLearningRate(optimizer.learningRate());
    }

    private void afterStep(TrainingStep step) {
        version++;
        steps++;
        started = true;
        for (StepListener l : listeners) {
            l.afterStep(step);
        }
        if (mergedVersion != null) {
            version = Math.max(version, mergedVersion.getAsLong());
        }
        scheduleRate();
        if (stepBudget > 0 && steps >= stepBudget) {
            trainer.requestStop(); // the budget ends mid-epoch after a resume
        }
        metrics.recordStep(version, step.loss(), System.nanoTime());
        long now = clock.millis();
        if (config.training().evaluation().due(steps - evaluationMarkStep, (now - evaluatedAtMillis) * 1_000_000L)) {
            evaluate();
        }
        if (config.operations()
                .checkpoints()
                .every()
                .due(steps - checkpointedAtStep, (now - checkpointedAtMillis) * 1_000_000L)) {
            checkpoint();
        }
        int pause = config.training().pauseMillis();
        if (pause > 0 && !stopRequested) {
            try {
                Thread.sleep(pause);
            } catch (InterruptedException ie) {
                Thread.currentThread().interrupt();
                requestStop();
            }
        }
    }

    /** Evaluates the current model on the validation split, records it and judges it; a collapse is answered. */
    void evaluate() {
        float[] params = new float[model.parameterCount()];
        model.copyParametersTo(params);
        double loss = score();
        CollapseDetector.Verdict verdict = detector.observe(loss, CollapseDetector.norm(params));
        evaluatedAtStep = steps;
        evaluationMarkStep = steps;
        evaluatedAtMillis = clock.millis();
        boolean wasHealthy = evaluationHealthy;
        evaluationHealthy = !verdict.collapsed();
        if (verdict.collapsed() && wasHealthy) {
            evaluationHealthy = onCollapse(verdict);
        } else if (verdict.collapsed()) {
            log.debug("version {}: still collapsed: {}", version, verdict.reason());
        } else if (!wasHealthy) {
            log.info("version {}: validation loss {} is back in range", version, loss);
        }
        if (evaluationHealthy && !verdict.collapsed() && !earlyStopMode.equals("off")) {
            judgePlateau(loss, params);
        }
    }

    /** Counts evaluations since the best validation loss, and acts once the patience runs out. */
    private void judgePlateau(double loss, float[] params) {
        switch (plateau.observe(loss, version)) {
            case IMPROVED -> {
                if (earlyStopMode.equals("stop")) {
                    bestParams = params;
                    bestParamsVersion = version;
                }
            }
            case EXHAUSTED -> {
                boolean stop = earlyStopMode.equals("stop") && !stopRequested;
                log.warn(
                        "validation loss {} has not improved on its best, {} at version {}, for {} evaluations: the"
                                + " model is overfitting the local data; {}",
                        loss,
                        plateau.bestLoss(),
                        plateau.bestVersion(),
                        plateau.evaluationsSinceBest(),
                        stop
                                ? "local training stops with the best model restored (training.early_stopping: stop);"
                                        + " the node keeps serving"
                                : "training goes on (training.early_stopping: warn; `stop` would end it with the best"
                                        + " model)");
                if (stop) {
                    earlyStopped = true;
                    trainer.requestStop();
                }
            }
            case WAITING -> {}
        }
        metrics.recordEarlyStopping(new EarlyStoppingState(
                earlyStopMode,
                plateau.exhausted(),
                plateau.bestLoss(),
                plateau.bestVersion(),
                plateau.evaluationsSinceBest(),
                earlyStopped));
    }

    /**
     * After training stopped early: restores the parameters of the best evaluation, as a new version (so that the
     * final checkpoint holds them even if the current version was checkpointed already).
     */
    private void restoreBest() {
        if (bestParams == null || bestParams.length != model.parameterCount()) {
            return;
        }
        model.setParameters(bestParams);
        listeners.forEach(StepListener::parametersReplaced);
        version++;
        log.info(
                "restored the parameters of version {} (validation loss {}) as version {}; the final checkpoint holds"
                        + " them",
                bestParamsVersion,
                plateau.bestLoss(),
                version);
    }

    /** Whether local training ended because the validation loss stopped improving ({@code stop}). */
    public boolean earlyStopped() {
        return earlyStopped;
    }

    /** Scores the current model on the validation split and records it; returns the log loss. */
    private double score() {
        Dataset v = data.validation();
        Evaluation e = Evaluation.of(v.labels(), model.predictProbabilities(v), v.classes());
        metrics.recordEvaluation(e.accuracy(), e.logLoss(), e.auc());
        log.debug("version {}: validation accuracy {}, loss {}", version, e.accuracy(), e.logLoss());
        return e.logLoss();
    }

    /**
     * Logs and counts a collapse (once, until an evaluation is healthy again) and, when configured and possible,
     * reverts to the newest healthy checkpoint.
     *
     * @return whether the model was reverted (and so is healthy again)
     */
    private boolean onCollapse(CollapseDetector.Verdict verdict) {
        metrics.recordCollapse(verdict.reason());
        boolean revert = config.operations().checkpoints().revertOnCollapse();
        log.warn(
                "model collapse at version {} (step {}): {}; {}",
                version,
                steps,
                verdict.reason(),
                revert ? "reverting to the newest checkpoint from before it" : "checkpoint.revert_on_collapse is off");
        if (!revert) {
            return false;
        }
        Checkpoint c = lastHealthyCheckpoint < 0
                ? null
                : checkpoints.loadNewestAtOrBefore(lastHealthyCheckpoint).orElse(null);
        if (c == null || c.parameters().length != model.parameterCount()) {
            log.warn(
                    "no checkpoint from before the collapse in {} to revert to: training goes on from the collapsed"
                            + " model",
                    checkpoints.directory());
            return false;
        }
        model.setParameters(c.parameters());
        listeners.forEach(StepListener::parametersReplaced);
        if (c.optimizer().equals(config.model().optimizer().toString())) {
            optimizer.restore(c.optimizerState(), model.parameters());
        }
        metrics.recordRollback(c.version());
        metrics.resetTrainLoss();
        double loss = score();
        log.warn(
                "reverted the model{} to checkpoint version {} of {} (validation loss now {}); the version goes on"
                        + " from {}",
                c.optimizer().equals(config.model().optimizer().toString()) ? " and optimizer" : "",
                c.version(),
                java.time.Instant.ofEpochMilli(c.createdMillis()),
                loss,
                version);
        return true;
    }

    /**
     * Writes a checkpoint of the current state, after an evaluation of it (one is run unless this step had one); a
     * collapsed model is not written, so that it displaces none of the healthy ones. A reverted model is written (it
     * is the checkpoint it came from, at the current version). A failure is logged and training goes on.
     */
    void checkpoint() {
        if (metrics.lastCheckpointVersion() == version) {
            return;
        }
        checkpointedAtStep = steps;
        checkpointedAtMillis = clock.millis();
        if (evaluatedAtStep != steps) {
            evaluate();
        }
        if (!evaluationHealthy) {
            log.warn("version {}: no checkpoint of a collapsed model", version);
            return;
        }
        float[] params = new float[model.parameterCount()];
        model.copyParametersTo(params);
        Checkpoint c = new Checkpoint(
                version,
                steps,
                clock.millis(),
                config.model().spec().toString(),
                config.model().optimizer().toString(),
                params,
                optimizer.snapshot(),
                Map.of(
                        "trainLoss", metrics.trainLoss(),
                        "accuracy", metrics.accuracy(),
                        "loss", metrics.validationLoss(),
                        "auc", metrics.auc()));
        try {
            checkpoints.save(c);
            metrics.recordCheckpoint(version);
            lastHealthyCheckpoint = version;
        } catch (IOException | RuntimeException e) {
            log.error("checkpoint of version {} failed: {}", version, e.toString());
        }
    }

    public long version() {
        return version;
    }
}
