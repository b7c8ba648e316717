package dev.chorus.node.averaging;

import dev.chorus.aggregation.AveragingMessage;
import dev.chorus.aggregation.AveragingStrategy;
import dev.chorus.aggregation.DeliveryFailure;
import dev.chorus.aggregation.InvalidUpdateException;
import dev.chorus.aggregation.LocalModel;
import dev.chorus.aggregation.ModelUpdate;
import dev.chorus.aggregation.Outbound;
import dev.chorus.aggregation.PullRequest;
import dev.chorus.aggregation.Receipt;
import dev.chorus.learning.model.Sequential;
import dev.chorus.learning.train.StepListener;
import dev.chorus.learning.train.TrainingStep;
import dev.chorus.node.logging.PeriodicSummary;
import java.time.Duration;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.SplittableRandom;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;
import java.util.random.RandomGenerator;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Connects the trainer to an {@link AveragingStrategy} and the network, without ever making training wait.
 *
 * <p>On the training thread, after every step ({@link #afterStep}): the local version advances; updates and
 * failures that arrived since the last step are handed to the strategy, which merges them into the flat vector (as
 * each arrives, or all together once the last is in: {@link AveragingStrategy#mergeArrived}), and the merged vector
 * is written back with {@link Sequential#setParameters}. So what a step takes in is in the model the next step
 * trains and in whatever reads the model after it (a snapshot, the model a node ends with), whichever strategy
 * runs. Every {@code exchangeEvery} steps the engine also runs {@link AveragingStrategy#configure}, publishes a
 * snapshot for peers to pull, and hands the strategy's outbound messages to a dispatcher thread. Encoding, sending
 * and receiving happen on the dispatcher and the network's I/O threads; they only ever enqueue what they get. The
 * strategy is touched by the training thread alone, as its contract requires.
 *
 * <p>A received update goes through the transport's wire checks first and the strategy's own checks second; an update
 * refused by either never reaches the model. The engine sees the network only through {@link ExchangeTransport}.
 *
 * <p>An exchange the strategy gives up ({@link AveragingStrategy#pollAbandoned()}) is cancelled at once: its
 * transport future is cancelled (the model exchange resets the stream), it stops counting against
 * {@link Config#maxInFlight()}, and the strategy hears no failure for it. Otherwise one stalled peer would hold a
 * slot per given-up pull until the transport's own timeout, and a few such pulls would stop every exchange of the
 * node meanwhile. Its elapsed time still counts towards the peer's pace, as a timed-out exchange's does.
 */
public final class AveragingEngine implements StepListener, AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(AveragingEngine.class);

    /**
     * @param exchangeEvery steps between two calls of {@code configure} (K)
     * @param maxInFlight outbound exchanges in progress at once; more are reported to the strategy as failures
     * @param maxInFlightPerPeer outbound exchanges in progress at once with one peer: a message for a peer that
     *     already has this many is reported to the strategy as refused when it is taken from the strategy's
     *     queue, before anything is encoded or handed to the dispatcher (the transport would refuse it anyway;
     *     see {@link #perPeer})
     * @param maxQueuedUpdates unsolicited updates waiting for the next step; more are refused (BUSY)
     * @param seed the seed of the strategy's peer choices
     * @param maxVersionLead the most versions a received update is taken to be ahead of the local model: a peer
     *     claiming more is taken at the local version plus this lead, so that no peer can push the consortium's
     *     versions (and with them every staleness weight) arbitrarily far in one exchange
     * @param training how the node's own training is paced against the consortium ({@link Training})
     * @param maxExchangesPerSecondPerPeer 0: no bound. Otherwise the most rounds a second that start an exchange
     *     with one peer ({@link ExchangeRateLimit}); not for a strategy with a round barrier, whose barrier paces it
     */
    public record Config(
            int exchangeEvery,
            int maxInFlight,
            int maxInFlightPerPeer,
            int maxQueuedUpdates,
            long seed,
            long maxVersionLead,
            Training training,
            double maxExchangesPerSecondPerPeer) {

        /** The longest one step waits on the node's own exchanges when {@link #maxDriftSteps} is set. */
        public static final Duration MAX_DRIFT_WAIT = Duration.ofSeconds(2);

        /**
         * How the node's own training is paced against the consortium.
         *
         * @param maxDriftSteps 0: training never waits. Otherwise the most local steps a node takes past its last
         *     completed exchange while one of its own exchanges is still in flight: beyond that, the training thread
         *     waits (at most {@link #MAX_DRIFT_WAIT}, after which it runs another {@code maxDriftSteps} steps before
         *     it waits again) for an exchange of its own to complete or a peer's model to arrive. It never waits for
         *     another node's training, only for its own link, so a node whose steps are far cheaper than its
         *     exchanges mixes at the rate its network allows instead of drifting on its shard.
         * @param maxStepScale 1: off. Otherwise the largest factor by which a node that trains slower than the
         *     consortium scales what it learnt between two merges ({@link StepScale}); only for the strategies that
         *     keep the newest of two merged versions
         */
        public record Training(int maxDriftSteps, double maxStepScale) {
            public Training {
                if (maxDriftSteps < 0) {
                    throw new IllegalArgumentException("maxDriftSteps must not be negative, got " + maxDriftSteps);
                }
                if (!(maxStepScale >= 1) || Double.isInfinite(maxStepScale)) {
                    throw new IllegalArgumentException(
                            "maxStepScale must be a finite number of at least 1, got " + maxStepScale);
                }
            }
        }

        public Config {
            if (exchangeEvery < 1) {
                throw new IllegalArgumentException("exchangeEvery must be at least 1, got " + exchangeEvery);
            }
            if (maxInFlight < 1 || maxInFlightPerPeer < 1 || maxQueuedUpdates < 1) {
                throw new IllegalArgumentException(
                        "maxInFlight, maxInFlightPerPeer and maxQueuedUpdates must be at least 1");
            }
            if (maxVersionLead < 1) {
                throw new IllegalArgumentException("maxVersionLead must be at least 1, got " + maxVersionLead);
            }
            Objects.requireNonNull(training, "training");
            if (!(maxExchangesPerSecondPerPeer >= 0) || Double.isInfinite(maxExchangesPerSecondPerPeer)) {
                throw new IllegalArgumentException("maxExchangesPerSecondPerPeer must be finite and not negative, got "
                        + maxExchangesPerSecondPerPeer);
            }
        }

        public static Config defaults(long seed) {
            return new Config(10, 4, 2, 16, seed, 100_000, new Training(0, 1), 0);
        }

        /** See {@link Training#maxDriftSteps}. */
        public int maxDriftSteps() {
            return training.maxDriftSteps();
        }

        /** See {@link Training#maxStepScale}. */
        public double maxStepScale() {
            return training.maxStepScale();
        }

        public Config withMaxStepScale(double scale) {
            return new Config(
                    exchangeEvery,
                    maxInFlight,
                    maxInFlightPerPeer,
                    maxQueuedUpdates,
                    seed,
                    maxVersionLead,
                    new Training(training.maxDriftSteps(), scale),
                    maxExchangesPerSecondPerPeer);
        }

        public Config withExchangeEvery(int k) {
            return new Config(
                    k,
                    maxInFlight,
                    maxInFlightPerPeer,
                    maxQueuedUpdates,
                    seed,
                    maxVersionLead,
                    training,
                    maxExchangesPerSecondPerPeer);
        }

        public Config withQueues(int inFlight, int queuedUpdates) {
            return new Config(
                    exchangeEvery,
                    inFlight,
                    maxInFlightPerPeer,
                    queuedUpdates,
                    seed,
                    maxVersionLead,
                    training,
                    maxExchangesPerSecondPerPeer);
        }

        public Config withMaxVersionLead(long lead) {
            return new Config(
                    exchangeEvery,
                    maxInFlight,
                    maxInFlightPerPeer,
                    maxQueuedUpdates,
                    seed,
                    lead,
                    training,
                    maxExchangesPerSecondPerPeer);
        }

        public Config withMaxDriftSteps(int h) {
            return new Config(
                    exchangeEvery,
                    maxInFlight,
                    maxInFlightPerPeer,
                    maxQueuedUpdates,
                    seed,
                    maxVersionLead,
                    new Training(h, training.maxStepScale()),
                    maxExchangesPerSecondPerPeer);
        }

        public Config withMaxExchangesPerSecondPerPeer(double rate) {
            return new Config(
                    exchangeEvery,
                    maxInFlight,
                    maxInFlightPerPeer,
                    maxQueuedUpdates,
                    seed,
                    maxVersionLead,
                    training,
                    rate);
        }

        public Config withMaxInFlightPerPeer(int perPeer) {
            return new Config(
                    exchangeEvery,
                    maxInFlight,
                    perPeer,
                    maxQueuedUpdates,
                    seed,
                    maxVersionLead,
                    training,
                    maxExchangesPerSecondPerPeer);
        }
    }

    /**
     * A snapshot of the engine's counters.
     *
     * @param steps local steps taken
     * @param rounds exchange rounds started (one per {@link Config#exchangeEvery()} steps, less those skipped)
     * @param outgoing the exchanges this node started
     * @param incoming the updates peers sent this node
     * @param driftWaitNanos time training waited for this node's own exchanges ({@link Config#maxDriftSteps()})
     * @param traffic the transport's bytes, both ways
     * @param staleness the staleness histogram of the received updates ({@link StalenessHistogram#toArray()})
     */
    public record Stats(
            long steps,
            long rounds,
            Outgoing outgoing,
            Incoming incoming,
            long driftWaitNanos,
            Traffic traffic,
            long[] staleness) {

        /**
         * The exchanges this node started.
         *
         * @param sent exchanges that completed
         * @param sendFailures exchanges that failed (unreachable, refused, timed out)
         * @param peerBusy of {@code sendFailures}, the messages refused before they started because the peer
         *     already had {@link Config#maxInFlightPerPeer()} exchanges of this node in progress
         * @param abandoned exchanges the strategy gave up, cancelled
         * @param throttledRounds rounds skipped because no peer had a token left ({@link
         *     Config#maxExchangesPerSecondPerPeer()})
         */
        public record Outgoing(long sent, long sendFailures, long peerBusy, long abandoned, long throttledRounds) {}

        /**
         * The updates peers sent this node.
         *
         * @param received updates received and handed to the strategy
         * @param accepted received ones the strategy merged or buffered
         * @param ignored received ones the strategy ignored
         * @param refused received ones refused as invalid
         * @param versionsClamped received ones that claimed a version further ahead than {@link
         *     Config#maxVersionLead()}
         * @param queueOverflows unsolicited updates refused (BUSY) because {@link Config#maxQueuedUpdates()} were
         *     already waiting; not counted in {@code received}
         */
        public record Incoming(
                long received, long accepted, long ignored, long refused, long versionsClamped, long queueOverflows) {}

        /** The bytes the transport sent and received. */
        public record Traffic(long bytesSent, long bytesReceived) {}
    }

    private sealed interface Event permits Arrived, Failed {}

    /** @param queued whether it counts against {@link Config#maxQueuedUpdates()} (unsolicited) */
    private record Arrived(ModelUpdate update, boolean queued) implements Event {}

    private record Failed(DeliveryFailure failure) implements Event {}

    /**
     * One outbound exchange, from its hand-over to the dispatcher until it completes. {@code state} is null before
     * it starts, then its transport future, or {@link #CANCELLED} once the strategy gave it up (whichever came
     * first: a cancelled exchange that has not started never starts; a started one has its future cancelled).
     */
    private static final class Exchange {
        static final Object CANCELLED = new Object();
        final Outbound out;
        final MessageKey key;
        /** With a peer counted as slow when it was taken: outside the node's window of {@link Config#maxInFlight()}. */
        final boolean slowPeer;
        /** The slot of the counts it shares with the pushes batched with it ({@link ExchangeSlots}), or its own. */
        final Slot slot;

        final AtomicReference<Object> state = new AtomicReference<>();

        Exchange(Outbound out, Slot slot) {
            this.out = out;
            this.key = new MessageKey(out.message());
            this.slowPeer = slot.slowPeer;
            this.slot = slot;
        }

        /** Marks it given up; cancels its transport future if it has started. Any thread, never blocks. */
        void cancel() {
            if (state.getAndSet(CANCELLED) instanceof CompletableFuture<?> f) {
                f.cancel(false);
            }
        }

        boolean cancelled() {
            return state.get() == CANCELLED;
        }
    }

    /**
     * One slot of the node's window and of its peer's: a lone exchange, or pushes to one peer on one stream. It is
     * counted while any of its exchanges is outstanding, and in flight while any has started and not completed.
     */
    private static final class Slot {
        final boolean slowPeer;
        /** Its exchanges not yet {@linkplain AveragingEngine#ended ended}. */
        final AtomicInteger open;
        /** Its exchanges started and not yet completed. */
        final AtomicInteger running = new AtomicInteger();

        Slot(boolean slowPeer, int exchanges) {
            this.slowPeer = slowPeer;
            this.open = new AtomicInteger(exchanges);
        }
    }

    /** A message compared by identity, as {@link AveragingStrategy#pollAbandoned()} names it. */
    private record MessageKey(AveragingMessage message) {
        @Override
        public boolean equals(Object o) {
            return o instanceof MessageKey k && k.message == message;
        }

        @Override
        public int hashCode() {
            return System.identityHashCode(message);
        }
    }

    private final LocalModel local;
    /**
     * The message taken from the strategy last that needed a slot of the window when none was free: the first in line
     * at the next dispatch, or dropped when the strategy gives it up. Training thread only.
     */
    private Outbound held;

    /** The local model's parameter count: the most values the pushes of one slot carry together. */
    private final int dimension;

    private final AveragingStrategy strategy;
    private final ExchangeTransport transport;
    private final SnapshotBuffer snapshots;
    private final Config config;
    /**
     * The drift bound in force: {@link Config#maxDriftSteps()}, or 0 under a strategy with a round barrier, whose
     * barrier already holds every node to the round (the two waits would only add up).
     */
    private final int maxDriftSteps;

    private final RandomGenerator random;
    private final InstantSource clock;
    private final ConcurrentLinkedQueue<Event> events = new ConcurrentLinkedQueue<>();
    private final AtomicInteger queuedUpdates = new AtomicInteger();
    private final AtomicInteger inFlight = new AtomicInteger();
    /** Exchanges handed to the dispatcher and not yet completed, by message: what a given-up exchange is found by. */
    private final Map<MessageKey, Exchange> exchanges = new ConcurrentHashMap<>();

    private final PeerPace pace = new PeerPace();
    /** Straggler compensation; on the training thread only. */
    private final StepScale stepScale;

    private volatile double stepScaleGauge = 1;
    /**
     * Whether peers that answer far more slowly than the others are skipped in most rounds ({@link PeerPace}): only
     * for two-way exchanges (push-pull gossip), where a slow node's own exchanges still bring it a model. With
     * pushes only (the fragmented strategy) a slow node hears only from the peers that choose it, so the fast nodes'
     * skipping would starve it (docs/experiments/2026-straggler-experiment.md).
     */
    private final boolean pacePeers;

    /**
     * Whether peers measured as slow are narrowed to one exchange at a time outside the window: not for a strategy
     * that {@linkplain AveragingStrategy#awaitsEveryRecipient awaits every recipient}: its round waits for every
     * peer, and a refused send is retried only after a pause, so a few slow peers would stall every round
     * (docs/experiments/2026-straggler-experiment.md).
     */
    private final boolean narrowSlowPeers;

    private final ExecutorService dispatcher;
    private final StalenessHistogram staleness = new StalenessHistogram();
    private final AtomicLong steps = new AtomicLong();
    private final AtomicLong rounds = new AtomicLong();
    private final AtomicLong sent = new AtomicLong();
    private final AtomicLong sendFailures = new AtomicLong();
    private final AtomicLong busyPeerRefusals = new AtomicLong();
    private final AtomicLong abandoned = new AtomicLong();
    private final AtomicLong throttledRounds = new AtomicLong();
    /**
     * Versions clamped, summarised once a minute: a node joining a consortium that has trained for a while is behind
     * every peer by more than the lead, and each of its first exchanges is clamped until it catches up; that is
     * expected, and a line per exchange would drown the log. Each peer's first clamp is logged at DEBUG.
     */
    private final PeriodicSummary clampLog = PeriodicSummary.perMinute(s -> LOG.info(
            "clamped {} claimed model version{} from {} peer{}{}: a peer more than averaging.max_version_lead"
                    + " versions ahead is taken at the local version plus the lead (expected while this node"
                    + " catches up)",
            s.events(),
            s.events() == 1 ? "" : "s",
            s.kinds().get("clamped").sources(),
            s.kinds().get("clamped").sources() == 1 ? "" : "s",
            s.period().isZero() ? "" : " in the last " + s.period().toSeconds() + " s"));
    /** Received updates refused as invalid, summarised once a minute by reason; each is logged at DEBUG. */
    private final PeriodicSummary refusalLog = PeriodicSummary.perMinute(s -> LOG.info(
            "refused {} received update{}{}: {}",
            s.events(),
            s.events() == 1 ? "" : "s",
            s.period().isZero() ? "" : " in the last " + s.period().toSeconds() + " s",
            s.describe("peer")));
    /** The exchange rate per peer; {@link ExchangeRateLimit#NONE} under a strategy with a round barrier. */
    private final ExchangeRateLimit rateLimit;
    /** The peers this round's exchanges went to, each charged one token; on the training thread. */
    private final java.util.Set<String> roundRecipients = new java.util.HashSet<>();

    private final AtomicLong received = new AtomicLong();
    private final AtomicLong accepted = new AtomicLong();
    private final AtomicLong ignored = new AtomicLong();
    private final AtomicLong refused = new AtomicLong();
    private final AtomicLong overflows = new AtomicLong();
    private final AtomicLong clamped = new AtomicLong();
    private final AtomicLong driftWaitNanos = new AtomicLong();
    /** Exchanges handed to the dispatcher and not yet completed (queued ones included, unlike inFlight). */
    private final AtomicInteger outstanding = new AtomicInteger();
    /** Of {@link #outstanding}, how many go to each peer; a peer without any has no entry. */
    private final Map<String, Integer> outstandingByPeer = new ConcurrentHashMap<>();
    /** Of {@link #outstanding}, those with peers counted as slow, which take no slot of the node's window. */
    private final AtomicInteger outstandingSlow = new AtomicInteger();
    /**
     * The exchange time above which a peer counts as slow ({@link PeerPace#limit}), as of the latest round: read and
     * written on the training thread.
     */
    private double slowLimit = Double.POSITIVE_INFINITY;
    /** The step count when an exchange of this node last completed or a peer's model last arrived. */
    private volatile long lastMixStep;

    /** The training thread while it waits in {@link #awaitArrivals}, to be woken by the next event. */
    private volatile Thread waiter;

    /**
     * @param local the local model; its vector must hold the trainer's current parameters
     * @param strategy the averaging algorithm (used on the training thread only)
     * @param transport how peers are reached
     * @param snapshots where the served snapshot is published
     * @param config the engine's parameters
     * @param clock the time given to the strategy
     */
    public AveragingEngine(
            LocalModel local,
            AveragingStrategy strategy,
            ExchangeTransport transport,
            SnapshotBuffer snapshots,
            Config config,
            InstantSource clock) {
        this.local = Objects.requireNonNull(local, "local");
        this.dimension = local.dimension();
        this.strategy = Objects.requireNonNull(strategy, "strategy");
        this.transport = Objects.requireNonNull(transport, "transport");
        this.snapshots = Objects.requireNonNull(snapshots, "snapshots");
        this.config = Objects.requireNonNull(config, "config");
        this.clock = Objects.requireNonNull(clock, "clock");
        this.random = new SplittableRandom(config.seed());
        this.pacePeers = strategy.exchangesBothWays();
        this.narrowSlowPeers = !strategy.awaitsEveryRecipient();
        this.maxDriftSteps = strategy.barrier().isPresent() ? 0 : config.maxDriftSteps();
        this.stepScale = new StepScale(strategy.keepsTheNewestVersion() ? config.maxStepScale() : 1);
        this.rateLimit = strategy.barrier().isPresent()
                ? ExchangeRateLimit.NONE
                : new ExchangeRateLimit(config.maxExchangesPerSecondPerPeer(), () -> {
                    java.time.Instant t = clock.instant();
                    return t.getEpochSecond() * 1_000_000_000L + t.getNano();
                });
        this.dispatcher = Executors.newSingleThreadExecutor(r -> {
            Thread t = new Thread(r, "chorus-averaging-dispatch");
            t.setDaemon(true);
            return t;
        });
        snapshots.publish(local.params(), local.version(), local.sampleCount());
    }

    /** Takes an update a peer sent unasked; false when the queue is full. Any thread. */
    public boolean offer(ModelUpdate update) {
        if (queuedUpdates.incrementAndGet() > config.maxQueuedUpdates()) {
            queuedUpdates.decrementAndGet();
            overflows.incrementAndGet();
            return false;
        }
        enqueue(new Arrived(update, true));
        return true;
    }

    @Override
    public void afterStep(TrainingStep step) {
        long before = local.version();
        local.advance();
        long n = steps.incrementAndGet();
        if (maxDriftSteps > 0 && n - lastMixStep > maxDriftSteps) {
            awaitOwnExchange(n);
        }
        Sequential model = step.model();
        boolean synced = false;
        Event e;
        while ((e = events.poll()) != null) {
            if (!synced) {
                readModel(model);
                synced = true;
            }
            apply(e);
        }
        if (synced) {
            strategy.mergeArrived(local);
            cancelAbandoned();
        }
        if (n % config.exchangeEvery() == 0) {
            if (!synced) {
                readModel(model);
                synced = true;
            }
            beginRound();
        }
        if (synced) {
            model.setParameters(local.params());
            stepScale.anchor(local.params());
        }
        stepScale.afterStep(local.version() - before);
        stepScaleGauge = stepScale.factor();
    }

    /** Takes the trainer's parameters into the local model, the steps since the last merge scaled for pace. */
    private void readModel(Sequential model) {
        model.copyParametersTo(local.params());
        stepScale.scale(local.params());
    }

    /** The model's parameters were replaced outside a step: what training did since the last merge is unknown. */
    @Override
    public void parametersReplaced() {
        stepScale.forget();
    }

    /**
     * The scale this node's steps take for its pace ({@link StepScale}): the consortium's pace over its own, at
     * least 1; 1 when straggler compensation is off or the strategy does not gossip versions.
     */
    public double stepScale() {
        return stepScaleGauge;
    }

    /**
     * Begins an exchange round now, without a training step: for a node whose training has ended but that still
     * takes part in the rounds others begin (see {@code SynchronousAveraging.retire}). On the thread that trained,
     * or one started after it ended.
     */
    public void beginRound(Sequential model) {
        model.copyParametersTo(local.params());
        beginRound();
        model.setParameters(local.params());
    }

    private void beginRound() {
        clampLog.flushIfDue();
        refusalLog.flushIfDue();
        List<String> peers = transport.peers();
        rateLimit.retain(peers);
        List<String> open = rateLimit.available(peers);
        if (open.isEmpty() && !peers.isEmpty()) {
            // Every peer has had its exchanges for this second: the round is skipped, the served snapshot kept fresh.
            throttledRounds.incrementAndGet();
            snapshots.publish(local.params(), local.version(), local.sampleCount());
            return;
        }
        roundRecipients.clear();
        slowLimit = pace.limit(peers);
        strategy.configure(local, pacePeers ? pace.choose(open, random) : open, random, clock);
        cancelAbandoned();
        rounds.incrementAndGet();
        snapshots.publish(local.params(), local.version(), local.sampleCount());
        dispatchQueued();
    }

    /**
     * Parks while this node's own exchanges are in flight and it is past its drift bound: at most MAX_DRIFT_WAIT, and
     * no longer than the strategy waits for the exchange it awaits ({@link AveragingStrategy#patienceDeadlineMillis}).
     * Past the strategy's patience the step goes on at once, and the strategy starts another exchange at the next
     * round; so a peer behind a slow link holds training back for the strategy's patience, not for MAX_DRIFT_WAIT.
     */
    private void awaitOwnExchange(long n) {
        long start = System.nanoTime();
        long wait = Config.MAX_DRIFT_WAIT.toNanos();
        boolean patienceBound = false;
        long patienceDeadline = strategy.patienceDeadlineMillis();
        if (patienceDeadline != Long.MAX_VALUE) {
            long patienceLeft = Math.max(0, patienceDeadline - clock.millis());
            if (patienceLeft < Config.MAX_DRIFT_WAIT.toMillis()) {
                wait = TimeUnit.MILLISECONDS.toNanos(patienceLeft);
                patienceBound = true;
            }
        }
        long deadline = start + wait;
        waiter = Thread.currentThread();
        try {
            while (outstanding.get() > 0 && events.isEmpty() && n - lastMixStep > maxDriftSteps) {
                long left = deadline - System.nanoTime();
                if (left <= 0 && patienceBound) {
                    break; // the strategy gives the exchange up at its next round
                }
                if (left <= 0) {
                    // Given up on this exchange: the next wait comes only after another maxDriftSteps steps, so a
                    // hung link costs at most MAX_DRIFT_WAIT per maxDriftSteps steps.
                    lastMixStep = n;
                    break;
                }
                LockSupport.parkNanos(this, left);
            }
        } finally {
            waiter = null;
        }
        driftWaitNanos.addAndGet(System.nanoTime() - start);
    }

    private void wake() {
        Thread t = waiter;
        if (t != null) {
            LockSupport.unpark(t);
        }
    }

    private void enqueue(Event e) {
        if (e instanceof Arrived) {
            lastMixStep = steps.get();
        }
        events.add(e);
        Thread t = waiter;
        if (t != null) {
            LockSupport.unpark(t);
        }
    }

    /**
     * On the training thread, between steps, for strategies with a barrier: parks until an update or a failure
     * arrives (or {@code timeout} passes), then hands everything queued to the strategy as {@link #afterStep}
     * does, without advancing the version or starting a round, and sends what the strategy has queued meanwhile
     * (a barrier's retries). The caller loops while its strategy is at the barrier.
     *
     * @return whether anything was handed to the strategy
     */
    public boolean awaitArrivals(Sequential model, Duration timeout) {
        if (events.isEmpty()) {
            waiter = Thread.currentThread();
            try {
                if (events.isEmpty()) {
                    LockSupport.parkNanos(this, timeout.toNanos());
                }
            } finally {
                waiter = null;
            }
        }
        boolean applied = !events.isEmpty();
        if (applied) {
            model.copyParametersTo(local.params());
            Event e;
            while ((e = events.poll()) != null) {
                apply(e);
            }
            strategy.mergeArrived(local);
            cancelAbandoned();
            model.setParameters(local.params());
        }
        dispatchQueued();
        return applied;
    }

    /**
     * On the training thread, after the strategy ran: cancels the exchanges it gave up, which frees their in-flight
     * slots at once (the cancellation completes their futures here, and the transport's reaction, a stream reset,
     * is handed to its I/O thread). Messages it never handed out, or whose exchanges have ended, are not found.
     */
    private void cancelAbandoned() {
        AveragingMessage m;
        while ((m = strategy.pollAbandoned()) != null) {
            if (held != null && held.message() == m) {
                held = null; // taken from the strategy's queue, never started
                continue;
            }
            Exchange x = exchanges.get(new MessageKey(m));
            if (x != null) {
                x.cancel();
            }
        }
    }

    /**
     * Takes from the strategy only what can start now: exchanges already handed to the dispatcher and not yet
     * completed count against {@link Config#maxInFlight()}. The rest stays in the strategy's queue, where it may
     * drop what is no longer worth sending (the fragmented strategy drops a round's unsent fragments when the next
     * round begins); a dispatcher queue that took everything would grow without bound whenever a node produces
     * messages faster than its links carry them. Pushes that share a slot ({@link ExchangeSlots}: fragments for one
     * peer, carried on one stream) take one place of the window together; the one message taken that needs a place
     * when none is free is held for the next dispatch.
     *
     * <p>A message for a peer that already has {@link Config#maxInFlightPerPeer()} exchanges of this node in progress
     * is reported to the strategy as refused here and now. Handed on, the transport would refuse it all the same,
     * but only after a trip through the dispatcher, and a strategy that queues more sends than the links carry
     * (fragments every few steps) would meet that refusal over and over, on the CPU that trains.
     *
     * <p>A peer whose exchanges take far longer than the others' ({@link PeerPace#slow}, one behind a slow link)
     * gets one exchange at a time, and it takes no slot of the node's window: otherwise a few such peers would hold
     * the window most of the time, and a node next to them would send far less than one without slow peers
     * (docs/experiments/2026-straggler-experiment.md). The exchanges beyond the window are thus at most one per slow
     * peer. Not for a strategy that {@linkplain AveragingStrategy#awaitsEveryRecipient awaits every recipient},
     * whose slow peers are treated as the others.
     */
    private void dispatchQueued() {
        List<Outbound> out = new ArrayList<>();
        int windowed = 0;
        while (true) {
            if (held == null && windowed >= windowFree() && !joinable(out)) {
                break; // what the strategy holds stays there, where it may still drop it
            }
            Outbound o = held != null ? held : strategy.pollOutbound();
            held = null;
            if (o == null) {
                break;
            }
            boolean takesWindow =
                    ExchangeSlots.opensSlot(o, out, transport.maxBatch(), dimension) && !slowPeer(o.recipient());
            if (takesWindow && windowed >= windowFree()) {
                // Only a message can tell whether it joins a slot already taken: this one would need another.
                held = o;
                break;
            }
            if (!admit(o, out)) {
                continue;
            }
            if (roundRecipients.add(o.recipient())) {
                rateLimit.take(o.recipient());
            }
            out.add(o);
            if (takesWindow) {
                windowed++;
            }
        }
        dispatch(out);
    }

    /** Whether a push may still join a slot of {@code out}: the transport batches, and {@code out} has pushes. */
    private boolean joinable(List<Outbound> out) {
        if (transport.maxBatch() > 1) {
            for (Outbound o : out) {
                if (o.message() instanceof ModelUpdate) {
                    return true;
                }
            }
        }
        return false;
    }

    /**
     * Whether {@code o} fits the slots left with its recipient once {@code pending} has started too: one for a slow
     * peer, {@link Config#maxInFlightPerPeer()} for the others. What does not fit is reported to the strategy as
     * refused; the strategy's own sends and its replies to arrivals are held to the same slots.
     */
    private boolean admit(Outbound o, List<Outbound> pending) {
        String peer = o.recipient();
        int slots = slowPeer(peer) ? 1 : config.maxInFlightPerPeer();
        int taken = ExchangeSlots.slotsFor(peer, pending, o, transport.maxBatch(), dimension);
        if (outstandingByPeer.getOrDefault(peer, 0) + taken <= slots) {
            return true;
        }
        busyPeerRefusals.incrementAndGet();
        fail(peer, DeliveryFailure.Kind.REFUSED, "every exchange slot with this peer is taken", o.message());
        return false;
    }

    /** Those of {@code replies} that {@linkplain #admit fit} their recipients' slots. */
    private List<Outbound> admitted(List<Outbound> replies) {
        List<Outbound> out = new ArrayList<>(replies.size());
        for (Outbound o : replies) {
            if (admit(o, out)) {
                out.add(o);
            }
        }
        return out;
    }

    /** Slots of the node's window not held by an exchange handed to the dispatcher. */
    private int windowFree() {
        return config.maxInFlight() - (outstanding.get() - outstandingSlow.get());
    }

    /**
     * Whether {@code peer} counts as slow among this round's peers, for its exchange slots; on the training thread.
     */
    private boolean slowPeer(String peer) {
        return narrowSlowPeers && pace.slow(peer, slowLimit);
    }

    private void apply(Event e) {
        switch (e) {
            case Failed f -> strategy.onFailure(f.failure(), local, clock);
            case Arrived a -> {
                if (a.queued()) {
                    queuedUpdates.decrementAndGet();
                }
                ModelUpdate u = boundVersion(a.update());
                received.incrementAndGet();
                long mine = local.version();
                staleness.record(mine - u.version());
                try {
                    // Replies come back on their own pull (not queued); what the inbound queue holds answers
                    // none of this node's exchanges.
                    Receipt r = a.queued()
                            ? strategy.receiveUnsolicited(u, local, clock)
                            : strategy.receive(u, local, clock);
                    if (r.accepted()) {
                        accepted.incrementAndGet();
                        if (!a.queued()) {
                            // A reply is the peer's model as it answered; a push may have waited a round in its
                            // sender's queue, and that wait would read as pace (StepScale#heard).
                            stepScale.heard(u.version() - mine, (double) u.values().length / u.dimension());
                        }
                    } else if (r.outcome() != Receipt.Outcome.ANSWERED) {
                        ignored.incrementAndGet();
                        LOG.debug("update from {} ignored: {} {}", u.sender(), r.outcome(), r.detail());
                    }
                    dispatch(admitted(r.replies()));
                } catch (InvalidUpdateException ex) {
                    refused.incrementAndGet();
                    LOG.debug("update from {} refused: {}", u.sender(), ex.getMessage());
                    refusalLog.record(ex.getMessage(), u.sender());
                }
            }
        }
    }

    /** The update, or a copy at the local version plus the allowed lead when it claims to be further ahead. */
    private ModelUpdate boundVersion(ModelUpdate u) {
        long mine = local.version();
        long limit = mine > Long.MAX_VALUE - config.maxVersionLead() ? Long.MAX_VALUE : mine + config.maxVersionLead();
        if (u.version() <= limit) {
            return u;
        }
        clamped.incrementAndGet();
        if (clampLog.record("clamped", u.sender())) {
            LOG.debug(
                    "update from {} claims version {}, {} ahead of {}; taken as {} (logged once per peer)",
                    u.sender(),
                    u.version(),
                    u.version() - mine,
                    mine,
                    limit);
        }
        return u.withVersion(limit);
    }

    private void dispatch(List<Outbound> out) {
        if (out.isEmpty()) {
            return;
        }
        List<List<Outbound>> slots = ExchangeSlots.group(out, transport.maxBatch(), dimension);
        if (outstanding.get() - outstandingSlow.get() + slots.size() > 2 * config.maxInFlight()) {
            // Replies to arrivals, beyond what the links carry: refused here rather than queued without bound.
            for (Outbound o : out) {
                fail(o.recipient(), DeliveryFailure.Kind.REFUSED, "too many exchanges waiting to start", o.message());
            }
            return;
        }
        List<Exchange> started = new ArrayList<>(out.size());
        for (List<Outbound> members : slots) {
            String peer = members.getFirst().recipient();
            Slot slot = new Slot(slowPeer(peer), members.size());
            for (Outbound o : members) {
                Exchange x = new Exchange(o, slot);
                exchanges.put(x.key, x);
                started.add(x);
            }
            outstandingByPeer.merge(peer, 1, Integer::sum);
            if (slot.slowPeer) {
                outstandingSlow.incrementAndGet();
            }
        }
        outstanding.addAndGet(slots.size());
        try {
            dispatcher.execute(() -> sendAll(started));
        } catch (RejectedExecutionException closed) {
            started.forEach(this::ended);
            // the engine is closing: nothing more goes out
        }
    }

    /**
     * Takes an exchange out of those handed to the dispatcher: it has ended or will never start. Its slot leaves the
     * counts with the last of its exchanges.
     */
    private void ended(Exchange x) {
        exchanges.remove(x.key, x);
        if (x.slot.open.decrementAndGet() > 0) {
            return;
        }
        outstandingByPeer.computeIfPresent(x.out.recipient(), (peer, n) -> n == 1 ? null : n - 1);
        if (x.slowPeer) {
            outstandingSlow.decrementAndGet();
        }
        outstanding.decrementAndGet();
    }

    /**
     * The engine's bound on exchanges in flight with one peer, no more than the transport's {@code transportPerPeer}:
     * what the transport would refuse is refused before it reaches it.
     */
    public static int perPeer(Config config, int transportPerPeer) {
        return Math.min(config.maxInFlightPerPeer(), transportPerPeer);
    }

    /**
     * On the dispatcher thread: starts {@code started}, the pushes that share a slot together ({@link
     * ExchangeTransport#pushAll}, which carries them on one stream), each other exchange on its own.
     */
    private void sendAll(List<Exchange> started) {
        Map<Slot, List<Exchange>> slots = new LinkedHashMap<>();
        for (Exchange x : started) {
            slots.computeIfAbsent(x.slot, k -> new ArrayList<>()).add(x);
        }
        for (List<Exchange> members : slots.values()) {
            if (members.size() == 1) {
                send(members.getFirst());
            } else {
                sendPushes(members.getFirst().out.recipient(), members);
            }
        }
    }

    /** On the dispatcher thread: starts one exchange; its outcome comes back as an event. */
    private void send(Exchange exchange) {
        if (!mayStart(exchange)) {
            return;
        }
        String peer = exchange.out.recipient();
        CompletableFuture<?> running;
        CompletableFuture<?> f;
        try {
            switch (exchange.out.message()) {
                case PullRequest p -> {
                    CompletableFuture<ModelUpdate> pull = transport.pull(peer, p.offer());
                    running = pull;
                    f = pull.thenAccept(u -> enqueue(new Arrived(u, false)));
                }
                case ModelUpdate u -> {
                    running = transport.push(peer, u);
                    f = running;
                }
            }
        } catch (RuntimeException ex) {
            f = CompletableFuture.failedFuture(ex);
            running = f;
        }
        track(exchange, running, f, System.nanoTime());
    }

    /** On the dispatcher thread: starts pushes to {@code peer}, handed to the transport together. */
    private void sendPushes(String peer, List<Exchange> group) {
        List<Exchange> admitted = new ArrayList<>(group.size());
        List<ModelUpdate> updates = new ArrayList<>(group.size());
        for (Exchange x : group) {
            if (mayStart(x)) {
                admitted.add(x);
                updates.add((ModelUpdate) x.out.message());
            }
        }
        if (admitted.isEmpty()) {
            return;
        }
        long started = System.nanoTime();
        List<? extends CompletableFuture<?>> futures;
        try {
            futures = transport.pushAll(peer, updates);
        } catch (RuntimeException ex) {
            futures = Collections.nCopies(updates.size(), CompletableFuture.failedFuture(ex));
        }
        for (int i = 0; i < admitted.size(); i++) {
            track(admitted.get(i), futures.get(i), futures.get(i), started);
        }
    }

    /**
     * Whether {@code exchange} may start now: not given up, and with a slot of the node's window when it takes one;
     * otherwise it is ended here (and a refusal reported for the window).
     */
    private boolean mayStart(Exchange exchange) {
        if (exchange.cancelled()) {
            // given up before it started
            ended(exchange);
            abandoned.incrementAndGet();
            wake();
            return false;
        }
        // The slot's first exchange to start takes the window's place for all of them.
        if (!exchange.slowPeer
                && exchange.slot.running.getAndIncrement() == 0
                && inFlight.incrementAndGet() > config.maxInFlight()) {
            inFlight.decrementAndGet();
            exchange.slot.running.decrementAndGet();
            ended(exchange);
            fail(
                    exchange.out.recipient(),
                    DeliveryFailure.Kind.REFUSED,
                    "too many exchanges in flight",
                    exchange.out.message());
            return false;
        }
        return true;
    }

    /**
     * Follows a started exchange: {@code running} is the transport's future (cancelled when the exchange is given up),
     * {@code f} what completes its outcome; {@code started} when it was handed to the transport.
     */
    private void track(Exchange exchange, CompletableFuture<?> running, CompletableFuture<?> f, long started) {
        Outbound o = exchange.out;
        String peer = o.recipient();
        boolean windowed = !exchange.slowPeer;
        f.whenComplete((v, err) -> {
            if (windowed && exchange.slot.running.decrementAndGet() == 0) {
                inFlight.decrementAndGet();
            }
            ended(exchange);
            Throwable cause = err == null ? null : ExchangeTransport.cause(err);
            boolean givenUp = exchange.cancelled() && cause instanceof CancellationException;
            if (!givenUp) {
                lastMixStep = steps.get();
            }
            wake();
            if (givenUp) {
                // The strategy needs no failure for an exchange it gave up; the peer took at least this long.
                abandoned.incrementAndGet();
                pace.record(peer, System.nanoTime() - started);
                return;
            }
            if (err == null) {
                pace.record(peer, System.nanoTime() - started);
                sent.incrementAndGet();
                return;
            }
            DeliveryFailure.Kind kind = transport.failureKind(cause);
            if (kind == DeliveryFailure.Kind.TIMED_OUT) {
                pace.record(peer, System.nanoTime() - started);
            }
            fail(peer, kind, String.valueOf(cause.getMessage()), o.message());
        });
        if (!exchange.state.compareAndSet(null, running)) {
            running.cancel(false); // given up while it was being started
        }
    }

    private void fail(String peer, DeliveryFailure.Kind kind, String detail, AveragingMessage message) {
        sendFailures.incrementAndGet();
        LOG.debug("exchange with {} failed ({}): {}", peer, kind, detail);
        enqueue(new Failed(new DeliveryFailure(peer, kind, detail, message)));
    }

    /**
     * After this node's training ended by itself (its {@code training.epochs}, or early stopping): it keeps serving
     * its model, with a sample count of 0, as a {@code sync} participant past its epochs contributes with weight 0.
     * A model that no longer trains then no longer pulls peers that weight by sample count towards it. On the
     * training thread, or the one that follows it once the training loop has returned.
     */
    public void retire() {
        local.setSampleCount(0);
        snapshots.publish(local.params(), local.version(), 0);
    }

    /** The local model as the strategy sees it. Read it on the training thread only. */
    public LocalModel localModel() {
        return local;
    }

    /**
     * For each of {@code peers} that has a measured time: how long exchanges with it take (seconds, an exponentially
     * weighted mean of completed and timed-out ones), and whether the engine leaves it out of most rounds as slow
     * among {@code peers} (only strategies whose exchanges go both ways are paced).
     */
    public Map<String, PeerTiming> timings(List<String> peers) {
        double limit = pace.limit(peers);
        Map<String, PeerTiming> out = new HashMap<>();
        for (String peer : peers) {
            double seconds = pace.seconds(peer);
            if (!Double.isNaN(seconds)) {
                out.put(peer, new PeerTiming(seconds, pacePeers && pace.slow(peer, limit)));
            }
        }
        return out;
    }

    /** See {@link #timing}. */
    public record PeerTiming(double exchangeSeconds, boolean slow) {}

    /** Nanoseconds training has waited so far at the drift bound (as in {@link Stats}, without building one). */
    public long driftWaitNanos() {
        return driftWaitNanos.get();
    }

    public StalenessHistogram staleness() {
        return staleness;
    }

    public Stats stats() {
        long bytesOut = transport.bytesSent();
        long bytesIn = transport.bytesReceived();
        return new Stats(
                steps.get(),
                rounds.get(),
                new Stats.Outgoing(
                        sent.get(), sendFailures.get(), busyPeerRefusals.get(), abandoned.get(), throttledRounds.get()),
                new Stats.Incoming(
                        received.get(), accepted.get(), ignored.get(), refused.get(), clamped.get(), overflows.get()),
                driftWaitNanos.get(),
                new Stats.Traffic(bytesOut, bytesIn),
                staleness.toArray());
    }

    /** Stops the dispatcher: nothing more goes out. The transport is its owner's to close. */
    @Override
    public void close() {
        dispatcher.shutdownNow();
        clampLog.flush();
        refusalLog.flush();
    }
}
