package dev.chorus.testnet;

import dev.chorus.learning.optim.LearningRateSchedule;
import dev.chorus.node.protocol.Dtype;
import java.time.Duration;
import java.util.Objects;

/**
 * The parameters of a testnet, validated once.
 *
 * @param nodes how many nodes (2 to {@link #MAX_NODES})
 * @param partition how the training rows are split among the nodes ({@code dirichlet:0.5}, {@code iid}, ...)
 * @param model the model spec of every node ({@code logreg}, {@code mlp:64})
 * @param optimizer the optimizer spec of every node
 * @param batch the mini-batch size
 * @param exchangeEvery local steps between two averaging rounds (K)
 * @param maxDriftSteps the most steps a node takes past its last completed exchange while one is in flight (0: no
 *     bound; see {@code AveragingEngine.Config#maxDriftSteps})
 * @param maxInFlight each node's outbound exchanges in progress at once; 0 for the strategy's default (4 for the
 *     gossip strategies, as a daemon has; {@code max(8, 4N)} for those that send to many nodes at once)
 * @param bySampleCount whether asynchronous merges weight each model by its node's sample count (else uniformly)
 * @param stragglers the share of nodes slowed down and by what factor (each step is followed by a pause of
 *     the unimpaired nodes' mean time per step times {@code factor}, less its own; see {@code StepPace})
 * @param slowLinks the share of nodes on slow links, and their bandwidth in Mbit/s
 * @param linkMbit the bandwidth of every other node in Mbit/s; 0 for unlimited
 * @param duration how long each run trains
 * @param evalInterval how often every node is evaluated
 * @param targetAccuracy the accuracy whose first crossing is reported per node
 * @param seed the seed of the split, the partition, the initializations, the shuffles and the impaired nodes
 * @param backend the tensor backend of every node (single-threaded)
 * @param degree peers each node connects to; 0 for a full mesh (the synchronous strategy always uses one)
 * @param fragments fragments per round of the fragmented strategy; 0 for {@code FragmentedGossip.defaultFragments}
 *     of the model's parameter count (10, fewer for a model under 10,240 parameters)
 * @param fanout peers per fragment of the fragmented strategy
 * @param evalRows rows of the common test set the nodes are scored on (0: all)
 * @param dtype how exchanged model bodies are encoded ({@code F32}, or quantized)
 * @param lrSchedule each node's learning rate over the run, progress being the share of {@code duration} elapsed
 * @param warmup how long each strategy of a comparison runs, unimpaired and unreported, before the measured runs
 *     (so that the first run does not pay for the JIT compiling the training code); zero for none
 * @param maxStepsPerSecond the most steps a second each unimpaired node takes (a straggler takes its factor times
 *     fewer); 0 for no bound. On one machine, the CPU a straggler's pauses leave goes to the other nodes, which
 *     then train faster than they do without stragglers, as in no real consortium; a bound below what the machine
 *     gives every node keeps their pace the same with and without impairments
 * @param balanceFragments whether the fragmented strategy's nodes scale the share of each average taken from what
 *     they received by their ratio of coordinates delivered to received ({@code FragmentedGossip.Config#balanced()})
 */
public record TestnetSettings(
        int nodes,
        String partition,
        String model,
        String optimizer,
        int batch,
        int exchangeEvery,
        int maxDriftSteps,
        int maxInFlight,
        boolean bySampleCount,
        Impairment stragglers,
        Impairment slowLinks,
        double linkMbit,
        Duration duration,
        Duration evalInterval,
        double targetAccuracy,
        long seed,
        String backend,
        int degree,
        int fragments,
        int fanout,
        int evalRows,
        Dtype dtype,
        LearningRateSchedule lrSchedule,
        Duration warmup,
        double maxStepsPerSecond,
        boolean balanceFragments) {

    /**
     * The most nodes of one in-process testnet. Every node is a host with its own threads and buffers in this JVM:
     * 64 ran in a 4 GiB heap (docs/benchmarks.md). Far larger runs fail only after minutes of starting hosts; the
     * bound refuses them up front.
     */
    public static final int MAX_NODES = 256;

    public TestnetSettings {
        if (nodes < 2 || nodes > MAX_NODES) {
            throw new IllegalArgumentException(
                    "a testnet has at least 2 and at most " + MAX_NODES + " nodes, got " + nodes);
        }
        Objects.requireNonNull(partition, "partition");
        Objects.requireNonNull(model, "model");
        Objects.requireNonNull(optimizer, "optimizer");
        Objects.requireNonNull(stragglers, "stragglers");
        Objects.requireNonNull(slowLinks, "slowLinks");
        Objects.requireNonNull(backend, "backend");
        Objects.requireNonNull(dtype, "dtype");
        Objects.requireNonNull(lrSchedule, "lrSchedule");
        Objects.requireNonNull(warmup, "warmup");
        if (warmup.isNegative()) {
            throw new IllegalArgumentException("warm-up must not be negative, got " + warmup);
        }
        if (batch < 1 || exchangeEvery < 1 || fanout < 1) {
            throw new IllegalArgumentException("batch, exchange interval and fan-out must be positive");
        }
        if (fragments < 0) {
            throw new IllegalArgumentException("fragments must not be negative, got " + fragments);
        }
        if (!(linkMbit >= 0) || Double.isInfinite(linkMbit)) {
            throw new IllegalArgumentException("link bandwidth must be a number >= 0, got " + linkMbit);
        }
        if (duration.isNegative() || duration.isZero() || evalInterval.isNegative() || evalInterval.isZero()) {
            throw new IllegalArgumentException("duration and evaluation interval must be positive");
        }
        if (!(targetAccuracy > 0 && targetAccuracy <= 1)) {
            throw new IllegalArgumentException("target accuracy must lie in (0, 1], got " + targetAccuracy);
        }
        if (!(maxStepsPerSecond >= 0) || Double.isInfinite(maxStepsPerSecond)) {
            throw new IllegalArgumentException(
                    "the bound on steps per second must be 0 (none) or positive, got " + maxStepsPerSecond);
        }
        if (degree < 0 || evalRows < 0 || maxDriftSteps < 0 || maxInFlight < 0) {
            throw new IllegalArgumentException(
                    "degree, evaluation rows, drift bound and exchanges in flight must not be negative");
        }
    }

    /** These settings with runs of {@code runDuration}: a warm-up's. */
    public TestnetSettings withDuration(Duration runDuration) {
        return new TestnetSettings(
                nodes,
                partition,
                model,
                optimizer,
                batch,
                exchangeEvery,
                maxDriftSteps,
                maxInFlight,
                bySampleCount,
                stragglers,
                slowLinks,
                linkMbit,
                runDuration,
                evalInterval,
                targetAccuracy,
                seed,
                backend,
                degree,
                fragments,
                fanout,
                evalRows,
                dtype,
                lrSchedule,
                warmup,
                maxStepsPerSecond,
                balanceFragments);
    }

    /** How asynchronous strategies weight a received model. */
    public dev.chorus.aggregation.weighting.UpdateWeighting weighting() {
        return new dev.chorus.aggregation.weighting.UpdateWeighting(
                dev.chorus.aggregation.weighting.StalenessWeighting.constant(), bySampleCount);
    }

    /** Bytes per second of {@code mbit} megabits per second. */
    public static long bytesPerSecond(double mbit) {
        return Math.max(1, Math.round(mbit * 1_000_000 / 8));
    }
}
