package dev.chorus.node.daemon;

import static org.assertj.core.api.Assertions.assertThat;

import dev.chorus.learning.model.Sequential;
import dev.chorus.learning.optim.Optimizer;
import dev.chorus.learning.tensor.TensorBackend;
import dev.chorus.learning.tensor.TensorBackends;
import dev.chorus.node.NodeTestDirs;
import dev.chorus.node.api.NodeMetrics;
import dev.chorus.node.checkpoint.CheckpointStore;
import dev.chorus.node.config.ConfigLoader;
import dev.chorus.node.config.NodeConfig;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Evaluations and checkpoints come once both their step interval and their time interval have passed, on the
 * loop's clock: here each step takes 100 ms of a clock the test moves, so the time half is the binding one.
 */
class TrainingLoopScheduleTest {

    @TempDir
    Path dir;

    /** A clock moved by the test. */
    private static final class StepClock implements InstantSource {
        final AtomicLong millis = new AtomicLong(1_700_000_000_000L);

        @Override
        public Instant instant() {
            return Instant.ofEpochMilli(millis.get());
        }
    }

    /** @param replaced how often the step listeners heard that the parameters were replaced outside a step */
    private record Run(
            long steps, int evaluations, long checkpoints, NodeMetrics metrics, boolean earlyStopped, int replaced) {}

    private Run train(List<String> settings) throws Exception {
        NodeConfig config = ConfigLoader.load(NodeTestDirs.create(dir, ""), settings);
        StepClock clock = new StepClock();
        LocalData data = LocalData.load(config);
        try (TensorBackend backend = TensorBackends.create("reference", 1);
                Sequential model = config.model()
                        .spec()
                        .build(
                                backend,
                                data.train().cols(),
                                data.train().classes(),
                                config.training().seed());
                Optimizer optimizer = config.model().optimizer().create()) {
            CheckpointStore store =
                    new CheckpointStore(config.checkpointDir(), new CheckpointStore.Retention(1000, 0, 0), clock);
            NodeMetrics metrics = new NodeMetrics(clock);
            TrainingLoop loop = new TrainingLoop(
                    model, optimizer, data, config, store, metrics, clock, TrainingLoop.Progress.FRESH);
            java.util.concurrent.atomic.AtomicInteger replaced = new java.util.concurrent.atomic.AtomicInteger();
            loop.addStepListener(new dev.chorus.learning.train.StepListener() {
                @Override
                public void afterStep(dev.chorus.learning.train.TrainingStep step) {
                    clock.millis.addAndGet(100);
                }

                @Override
                public void parametersReplaced() {
                    replaced.incrementAndGet();
                }
            });
            loop.run();
            return new Run(
                    metrics.steps(),
                    metrics.history().size(),
                    metrics.checkpointsWritten(),
                    metrics,
                    loop.earlyStopped(),
                    replaced.get());
        }
    }

    @Test
    void theTimeIntervalWinsWhenItComesLater() throws Exception {
        Run r = train(List.of(
                "training.epochs=4",
                "training.eval_every_steps=5",
                "training.eval_every_seconds=1",
                "checkpoint.every_steps=10",
                "checkpoint.every_seconds=3"));
        assertThat(r.steps()).isGreaterThan(60);
        assertThat(r.evaluations())
                .as("one per second of the clock (10 steps), and the final one")
                .isEqualTo((int) (r.steps() / 10) + 1);
        assertThat(r.checkpoints())
                .as("one per 3 s of the clock (30 steps), and the final one")
                .isEqualTo(r.steps() / 30 + (r.steps() % 30 == 0 ? 0 : 1));
    }

    @Test
    void theStepIntervalWinsWhenItComesLater() throws Exception {
        Run r = train(List.of(
                "training.epochs=4",
                "training.eval_every_steps=20",
                "training.eval_every_seconds=0.5",
                "checkpoint.every_steps=40",
                "checkpoint.every_seconds=0"));
        assertThat(r.evaluations()).isEqualTo((int) (r.steps() / 20) + 1);
        assertThat(r.checkpoints()).isEqualTo(r.steps() / 40 + (r.steps() % 40 == 0 ? 0 : 1));
    }

    /** A learning rate so small that no step changes the model: the validation loss never improves on the first. */
    private static final String FROZEN = "model.optimizer=\"sgd:lr=1e-30\"";

    @Test
    void stopEndsTrainingOnceThePatienceRunsOut() throws Exception {
        Run r = train(List.of(
                FROZEN,
                "training.epochs=4",
                "training.eval_every_steps=5",
                "training.eval_every_seconds=0",
                "training.early_stopping=stop",
                "training.early_stopping_patience=2"));
        assertThat(r.earlyStopped()).isTrue();
        assertThat(r.steps())
                .as("the best at step 5, then 2 evaluations without a better one")
                .isEqualTo(15);
        dev.chorus.node.api.EarlyStoppingState s = r.metrics().earlyStopping();
        assertThat(s.mode()).isEqualTo("stop");
        assertThat(s.triggered()).isTrue();
        assertThat(s.stopped()).isTrue();
        assertThat(s.bestVersion()).isEqualTo(5);
        assertThat(r.metrics().lastCheckpointVersion())
                .as("the best parameters restored as a new version and checkpointed at the end")
                .isEqualTo(16);
        assertThat(r.replaced())
                .as("the averaging engine hears of the restore, so it does not take it for training")
                .isEqualTo(1);
    }

    /**
     * Two epochs of a model that cannot learn (its validation loss never improves), evaluated every 5 steps, with
     * early stopping {@code mode} and a patience of 2, under averaging strategy {@code strategy}.
     */
    private Run plateau(String mode, String strategy) throws Exception {
        return train(List.of(
                FROZEN,
                "training.epochs=2",
                "training.eval_every_steps=5",
                "training.eval_every_seconds=0",
                "training.early_stopping=" + mode,
                "training.early_stopping_patience=2",
                "averaging.strategy=" + strategy));
    }

    @Test
    void warnTrainsOnAndAutoStopsOnASmallDataSetTrainedAlone() throws Exception {
        Run warn = plateau("warn", "async");
        assertThat(warn.earlyStopped()).isFalse();
        assertThat(warn.replaced()).isZero();
        assertThat(warn.steps()).isGreaterThan(15);
        assertThat(warn.metrics().earlyStopping().triggered()).isTrue();
        assertThat(warn.metrics().earlyStopping().stopped()).isFalse();
        Run auto = plateau("auto", "none");
        assertThat(auto.metrics().earlyStopping().mode())
                .as("the bundled data's few hundred training rows are a small data set")
                .isEqualTo("stop");
        assertThat(auto.earlyStopped()).isTrue();
    }

    /** A member that averages judges its local validation loss only by warning: its split is its own shard. */
    @Test
    void autoOnlyWarnsANodeThatAverages() throws Exception {
        Run auto = plateau("auto", "async");
        assertThat(auto.metrics().earlyStopping().mode()).isEqualTo("warn");
        assertThat(auto.metrics().earlyStopping().triggered()).isTrue();
        assertThat(auto.earlyStopped()).isFalse();
        assertThat(auto.steps()).isGreaterThan(15);
    }

    @Test
    void anIntervalIsDueOnlyWhenBothHalvesHavePassed() {
        NodeConfig.Interval i = new NodeConfig.Interval(10, Duration.ofSeconds(30));
        assertThat(i.due(10, Duration.ofSeconds(30).toNanos())).isTrue();
        assertThat(i.due(9, Duration.ofHours(1).toNanos())).isFalse();
        assertThat(i.due(1_000_000, Duration.ofSeconds(29).toNanos())).isFalse();
        assertThat(new NodeConfig.Interval(1, Duration.ZERO).due(1, 0)).isTrue();
    }
}
