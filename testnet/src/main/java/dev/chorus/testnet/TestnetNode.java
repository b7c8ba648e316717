package dev.chorus.testnet;

import dev.chorus.aggregation.AveragingStrategy;
import dev.chorus.aggregation.Barrier;
import dev.chorus.aggregation.SelfCenteredClipping;
import dev.chorus.gossip.host.Host;
import dev.chorus.learning.data.Dataset;
import dev.chorus.learning.model.Sequential;
import dev.chorus.learning.optim.LearningRateSchedule;
import dev.chorus.learning.tensor.TensorBackend;
import dev.chorus.learning.train.Trainer;
import dev.chorus.learning.train.TrainingStep;
import dev.chorus.node.averaging.AveragingEngine;
import dev.chorus.node.averaging.RoundBarrier;
import dev.chorus.node.daemon.NodeAveraging;
import dev.chorus.node.protocol.Dtype;
import dev.chorus.node.protocol.ModelExchange;
import dev.chorus.privacy.audit.EgressRecorder;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.LockSupport;

/**
 * One node of a testnet: its shard, model, trainer, and (when it exchanges) its host and averaging engine. The
 * training thread runs three step listeners around the engine: the straggler pause before it, the barrier of a
 * synchronous strategy and the evaluation snapshot after it.
 */
public final class TestnetNode implements AutoCloseable {

    /** What the evaluator scores: the parameters at one instant. */
    public record Snapshot(long nanos, float[] params, long version, long bytesSent) {}

    private static final long PAUSE_QUANTUM_NANOS = 1_000_000;

    final int index;
    final Dataset data;
    final TensorBackend backend;
    final Sequential model;
    final Trainer trainer;
    final Host host;
    final double slowdown;
    private final StepPace pace;
    private NodeAveraging averaging;
    private AveragingEngine engine;
    /** Null until {@link #attach}. */
    private AveragingStrategy strategy;
    /** The wait at a synchronous strategy's barrier; null for the other strategies. */
    private RoundBarrier roundBarrier;

    private final AtomicBoolean snapshotWanted = new AtomicBoolean();
    private volatile Snapshot snapshot;
    /** When the evaluator last asked for a snapshot (its thread only). */
    private long requestedNanos;

    private volatile boolean stopping;
    /** When the node's last step (and pause) ended, or -1; training thread only. */
    private long lastStepEnd = -1;
    /** The network waits counted until then (drift bound, barrier); training thread only. */
    private long waitedAtLastStep;
    /** Pause owed and not yet slept: slept once it reaches a millisecond, as a sleep overshoots short requests. */
    private long owedNanos;

    private long pausedNanos;
    /** A straggler's steps counted by {@link #paceByCount}, and the credit offset on its allowance; training thread. */
    private long pacedSteps;

    private double stepOffset;
    private volatile long steps;
    private Thread thread;
    private volatile Throwable failure;
    private long startNanos;
    private long endNanos;

    public TestnetNode(
            int index,
            Dataset data,
            TensorBackend backend,
            Sequential model,
            Trainer trainer,
            Host host,
            double slowdown,
            StepPace pace) {
        this.index = index;
        this.data = data;
        this.backend = backend;
        this.model = model;
        this.trainer = trainer;
        this.host = host;
        this.slowdown = slowdown;
        this.pace = pace;
        if (pace != null) {
            trainer.addStepListener(this::pace);
        }
    }

    /**
     * Anneals the learning rate along {@code schedule} over {@code duration} from the start of training: before each
     * step, the optimizer's rate is the schedule's at the share of {@code duration} elapsed. Call before {@link
     * #attach}.
     */
    public void scheduleLearningRate(LearningRateSchedule schedule, Duration duration) {
        if (schedule.equals(LearningRateSchedule.CONSTANT)) {
            return;
        }
        float initial = trainer.optimizer().learningRate();
        double nanos = duration.toNanos();
        trainer.addStepListener(step ->
                trainer.optimizer().setLearningRate(schedule.rate(initial, (System.nanoTime() - startNanos) / nanos)));
    }

    /**
     * Wires the averaging engine (after the pacing listener, before the barrier and snapshot ones); {@code outbound}
     * crafts what a Byzantine node sends (identity for an honest one).
     */
    void attach(
            AveragingStrategy strategy,
            AveragingEngine.Config config,
            Dtype dtype,
            java.util.function.UnaryOperator<dev.chorus.aggregation.ModelUpdate> outbound,
            SecureRounds secure) {
        this.strategy = strategy;
        averaging = NodeAveraging.start(
                host,
                model,
                0,
                data.rows(),
                strategy,
                new NodeAveraging.Settings(
                        config,
                        ModelExchange.Config.defaults().withDtype(dtype).withOutboundTransform(outbound),
                        EgressRecorder.NONE,
                        secure.settings(),
                        secure.relays()));
        averaging.secure().ifPresent(s -> {
            s.injectDropouts(secure.dropouts(), secure.dropoutPhase());
            s.tapRelay(secure.view());
        });
        engine = averaging.engine();
        trainer.addStepListener(engine);
        strategy.barrier().ifPresent(this::addBarrier);
    }

    /** What this node serves to pulls: its latest published model; null before {@link #attach}. */
    dev.chorus.node.averaging.SnapshotBuffer snapshots() {
        return averaging == null ? null : averaging.snapshots();
    }

    /** Adds the last listener; call after {@link #attach}, or alone for a node that does not exchange. */
    public void finishWiring() {
        trainer.addStepListener(this::afterStep);
    }

    AveragingEngine engine() {
        return engine;
    }

    /** One of this node's screening counters ({@code --screening}); 0 without screening. */
    long screened(java.util.function.ToLongFunction<SelfCenteredClipping> counter) {
        return strategy == null
                ? 0
                : strategy.screening().map(counter::applyAsLong).orElse(0L);
    }

    /**
     * The first listener after each step. An unimpaired node counts the step, reports how long it was busy since its
     * last step, and pauses until its step has taken the bound's time per step where there is one. A straggler
     * pauses until it has taken no more than the unimpaired nodes' mean count of steps over its {@code slowdown}
     * ({@link StepPace#allowedSteps}); in a run without unimpaired nodes, or under a synchronous strategy's barrier,
     * until its step has taken {@code slowdown} times an unimpaired node's time per step ({@link StepPace#targetNanos}). Time-based pauses shorter than a millisecond are added up and slept
     * together, and what a sleep overshoots, or a step takes beyond its target, is taken off the next pauses, up to
     * {@link StepPace#CREDIT_NANOS}.
     */
    private void pace(TrainingStep step) {
        long now = System.nanoTime();
        // Under a round barrier every node's count is held to the round, so a straggler counting against the others
        // would wait for steps that wait for it: there it paces by time per step.
        if (slowdown > 1 && pace.pacesByCount() && roundBarrier == null) {
            paceByCount(now);
            return;
        }
        long waited = waitedNanos();
        if (lastStepEnd >= 0) {
            long busy = Math.max(0, now - lastStepEnd - (waited - waitedAtLastStep));
            if (slowdown <= 1) {
                pace.record(busy);
                pace.countStep();
            }
            long target = pace.targetNanos(slowdown, busy);
            if (target > 0) {
                owedNanos = StepPace.owed(owedNanos, target, busy);
                if (owedNanos >= PAUSE_QUANTUM_NANOS) {
                    sleepNanos(owedNanos);
                    long end = System.nanoTime();
                    owedNanos -= end - now; // an overshoot is owed back
                    pausedNanos += end - now;
                    now = end;
                }
            }
        } else if (slowdown <= 1) {
            pace.countStep();
        }
        lastStepEnd = now;
        waitedAtLastStep = waited;
    }

    /** A straggler's pause: until its steps are within the unimpaired nodes' mean count over its slowdown. */
    private void paceByCount(long now) {
        pacedSteps++;
        double allowed = pace.allowedSteps(slowdown);
        double allowedPerNano = allowed / Math.max(1, now - startNanos);
        stepOffset = StepPace.creditOffset(stepOffset, allowed, pacedSteps, allowedPerNano * StepPace.CREDIT_NANOS);
        if (pacedSteps <= allowed - stepOffset) {
            return;
        }
        while (!stopping && pacedSteps > pace.allowedSteps(slowdown) - stepOffset) {
            LockSupport.parkNanos(this, PAUSE_QUANTUM_NANOS);
        }
        pausedNanos += System.nanoTime() - now;
    }

    private void sleepNanos(long nanos) {
        long end = System.nanoTime() + nanos;
        long left;
        while (!stopping && (left = end - System.nanoTime()) > 0) {
            LockSupport.parkNanos(this, left);
        }
    }

    /**
     * The synchronous strategy's barrier: park until the round completes, serving snapshots meanwhile. Every node of
     * a run trains until the run stops them all, so no round is given up.
     */
    private void addBarrier(Barrier barrier) {
        roundBarrier = new RoundBarrier(
                barrier,
                timeout -> {
                    engine.awaitArrivals(model, timeout);
                    offerSnapshot();
                },
                RoundBarrier.NO_TIMEOUT,
                () -> stopping,
                System::nanoTime);
        trainer.addStepListener(roundBarrier);
    }

    private void afterStep(TrainingStep step) {
        steps = step.step();
        offerSnapshot();
    }

    private void offerSnapshot() {
        if (snapshotWanted.getAndSet(false)) {
            snapshot = take();
        }
    }

    private Snapshot take() {
        return take(System.nanoTime());
    }

    private Snapshot take(long nanos) {
        float[] p = new float[model.parameterCount()];
        model.copyParametersTo(p);
        long version = engine == null ? trainer.steps() : engine.localModel().version();
        return new Snapshot(nanos, p, version, bytesSent());
    }

    /** What this node sent: its model exchange's payloads, and its group rounds' frames as a member and a relay. */
    long bytesSent() {
        long exchange = engine == null ? 0 : engine.stats().traffic().bytesSent();
        return exchange
                + secureCounters()
                        .map(c -> c.bytesSentAsMember() + c.bytesSentAsRelay())
                        .orElse(0L);
    }

    /** The counters of this node's group rounds; empty unless it runs the {@code secure} strategy. */
    java.util.Optional<dev.chorus.node.secagg.SecAggCounters> secureCounters() {
        return averaging == null
                ? java.util.Optional.empty()
                : averaging.secure().map(dev.chorus.node.secagg.SecureGroupService::counters);
    }

    /**
     * The group rounds a node joins: their settings, whether this node takes its turn as a relay, the injected
     * dropouts (the fraction of rounds, and where in the schedule this node starts), and the view that checks what
     * the relays receive.
     */
    record SecureRounds(
            dev.chorus.node.secagg.SecAggSettings settings,
            dev.chorus.node.secagg.RelayRole.Setting relays,
            double dropouts,
            double dropoutPhase,
            java.util.function.BiConsumer<String, byte[]> view) {}

    /**
     * Asks the training thread for a snapshot at its next step; returns the one it took since the last call. A node
     * whose training has ended (its epochs ran out, or it failed) takes no more steps: nothing changes its model any
     * more, so the snapshot asked for last time is taken here instead, as of that request.
     */
    public Snapshot pollSnapshot() {
        Snapshot s = snapshot;
        if (s == null && snapshotWanted.get() && thread != null && !thread.isAlive()) {
            s = take(requestedNanos);
        }
        snapshot = null;
        requestedNanos = System.nanoTime();
        snapshotWanted.set(true);
        return s;
    }

    public void start() {
        startNanos = System.nanoTime();
        lastStepEnd = -1;
        owedNanos = 0;
        pacedSteps = 0;
        stepOffset = 0;
        thread = new Thread(
                () -> {
                    try {
                        trainer.train(data);
                    } catch (RuntimeException | Error e) {
                        failure = e;
                    } finally {
                        endNanos = System.nanoTime();
                    }
                },
                "testnet-node-" + index);
        thread.setDaemon(true);
        thread.start();
    }

    public void requestStop() {
        stopping = true;
        trainer.requestStop();
        if (thread != null) {
            LockSupport.unpark(thread);
        }
    }

    /** Waits for the training thread; interrupts it if it does not end within {@code timeout}. */
    public void join(Duration timeout) throws InterruptedException {
        if (thread == null) {
            return;
        }
        thread.join(timeout);
        if (thread.isAlive()) {
            thread.interrupt();
            thread.join(timeout);
        }
    }

    /** The final snapshot, taken on the caller's thread once training has ended. */
    Snapshot finalSnapshot() {
        return take();
    }

    public Throwable failure() {
        return failure;
    }

    public long steps() {
        return steps;
    }

    double stepsPerSecond() {
        double seconds = (endNanos - startNanos) / 1e9;
        return seconds > 0 ? steps / seconds : 0;
    }

    /** How long training waited for exchanges: the drift bound's waits and the synchronous barrier's. */
    double waitedSeconds() {
        return waitedNanos() / 1e9;
    }

    private long waitedNanos() {
        long barrier = roundBarrier == null ? 0 : roundBarrier.waitedNanos();
        return barrier + (engine == null ? 0 : engine.driftWaitNanos());
    }

    double pausedSeconds() {
        return pausedNanos / 1e9;
    }

    @Override
    public void close() {
        if (averaging != null) {
            averaging.close();
        }
        model.close();
        backend.close();
    }
}
