package dev.chorus.testnet;

import dev.chorus.learning.optim.LearningRateSchedule;
import dev.chorus.node.averaging.AveragingDefaults;
import dev.chorus.node.averaging.AveragingEngine;
import dev.chorus.node.averaging.RobustRule;
import dev.chorus.node.averaging.StrategySettings;
import dev.chorus.node.protocol.Dtype;
import dev.chorus.node.secagg.RelayRole;
import java.time.Duration;
import java.util.Objects;

/**
 * The parameters of a testnet, validated once, in sections: how the nodes are connected, what they train, how they
 * average, which of them are impaired, and how each run is timed and scored.
 *
 * @param topology the nodes and the links between them
 * @param training what every node trains, on which share of the data, and how fast
 * @param averaging how the nodes exchange and merge models
 * @param impairments the stragglers and the nodes on slow links
 * @param evaluation how long each run trains and how its nodes are scored
 * @param seed the seed of the split, the partition, the initializations, the shuffles and the impaired nodes
 * @param outsiders hosts with valid libp2p keys and no member certificate that attack every node throughout each run
 *     that exchanges (0 to {@link #MAX_OUTSIDERS}): they try to connect, pull models, push poisoned ones and publish
 *     announcements, and the run reports what they got ({@link TestnetRun.Outsiders})
 * @param secure the group rounds of the {@code secure} strategy
 */
public record TestnetSettings(
        Topology topology,
        Training training,
        Averaging averaging,
        Impairments impairments,
        Evaluation evaluation,
        long seed,
        int outsiders,
        Secure secure) {

    /**
     * The most nodes of one in-process testnet. Every node is a host with its own threads and buffers in this JVM, and
     * a testnet too large for the heap fails only after minutes of starting hosts, so the bound refuses it up front
     * (docs/benchmarks.md gives the heap a testnet needs).
     */
    public static final int MAX_NODES = 256;

    /**
     * The most outsiders of one testnet: each is a host of its own in this JVM that dials every node five times a
     * second, and more would measure the machine's load rather than the membership check.
     */
    public static final int MAX_OUTSIDERS = 64;

    public TestnetSettings {
        Objects.requireNonNull(secure, "secure");
        Objects.requireNonNull(topology, "topology");
        Objects.requireNonNull(training, "training");
        Objects.requireNonNull(averaging, "averaging");
        Objects.requireNonNull(impairments, "impairments");
        Objects.requireNonNull(evaluation, "evaluation");
        if (outsiders < 0 || outsiders > MAX_OUTSIDERS) {
            throw new IllegalArgumentException(
                    "a testnet has at least 0 and at most " + MAX_OUTSIDERS + " outsiders, got " + outsiders);
        }
    }

    /** Settings without outsiders. */
    public TestnetSettings(
            Topology topology,
            Training training,
            Averaging averaging,
            Impairments impairments,
            Evaluation evaluation,
            long seed) {
        this(topology, training, averaging, impairments, evaluation, seed, 0);
    }

    /** Settings whose {@code secure} runs use the default groups. */
    public TestnetSettings(
            Topology topology,
            Training training,
            Averaging averaging,
            Impairments impairments,
            Evaluation evaluation,
            long seed,
            int outsiders) {
        this(topology, training, averaging, impairments, evaluation, seed, outsiders, Secure.DEFAULT);
    }

    /**
     * The {@code secure} strategy's group rounds.
     *
     * @param groupSize the largest group ({@code averaging.group_size})
     * @param dropouts the fraction of the rounds it joins in which a member goes silent part way through (evenly
     *     spaced, the nodes out of step with each other, at each of its five messages in turn), as one whose
     *     connection dies would
     * @param phaseTimeout how long each phase of a round may last ({@code averaging.secure_phase_timeout_seconds})
     * @param slowLinksRelay {@code averaging.secure_relay} of the nodes on slow links: {@code AUTO} (the node's
     *     default, which every other node runs), {@code NEVER} as the operator of a link known to be thin sets it,
     *     or {@code ALWAYS}
     * @param offerWindow the length of a round's window ({@code averaging.secure_offer_window_seconds})
     */
    public record Secure(
            int groupSize,
            double dropouts,
            Duration phaseTimeout,
            RelayRole.Setting slowLinksRelay,
            Duration offerWindow) {
        /** The node's defaults and no injected dropouts. */
        public static final Secure DEFAULT =
                new Secure(8, 0, Duration.ofSeconds(5), RelayRole.Setting.AUTO, Duration.ofMillis(500));

        /** The node's relay setting and window. */
        public Secure(int groupSize, double dropouts, Duration phaseTimeout) {
            this(groupSize, dropouts, phaseTimeout, DEFAULT.slowLinksRelay(), DEFAULT.offerWindow());
        }

        public Secure {
            Objects.requireNonNull(phaseTimeout, "phaseTimeout");
            if (phaseTimeout.toMillis() < 10) {
                throw new IllegalArgumentException("the phase timeout must be at least 10 ms, got " + phaseTimeout);
            }
            Objects.requireNonNull(offerWindow, "offerWindow");
            Objects.requireNonNull(slowLinksRelay, "slowLinksRelay");
            if (offerWindow.toMillis() < 10) {
                throw new IllegalArgumentException("the offer window must be at least 10 ms, got " + offerWindow);
            }
            if (groupSize < 3) {
                throw new IllegalArgumentException("a group has at least 3 members, got " + groupSize);
            }
            if (!(dropouts >= 0 && dropouts < 1)) {
                throw new IllegalArgumentException("the dropout fraction must be in [0, 1), got " + dropouts);
            }
        }
    }

    /** These settings with {@code secure}'s group rounds. */
    public TestnetSettings withSecure(Secure s) {
        return new TestnetSettings(topology, training, averaging, impairments, evaluation, seed, outsiders, s);
    }

    /**
     * The nodes and the links between them.
     *
     * @param nodes how many nodes (2 to {@link #MAX_NODES})
     * @param degree peers each node connects to; 0 for a full mesh (the synchronous strategy always uses one)
     * @param linkMbit the bandwidth of every node not on a slow link, in Mbit/s; 0 for unlimited
     */
    public record Topology(int nodes, int degree, double linkMbit) {
        public Topology {
            if (nodes < 2 || nodes > MAX_NODES) {
                throw new IllegalArgumentException(
                        "a testnet has at least 2 and at most " + MAX_NODES + " nodes, got " + nodes);
            }
            if (!(linkMbit >= 0) || Double.isInfinite(linkMbit)) {
                throw new IllegalArgumentException("link bandwidth must be a number >= 0, got " + linkMbit);
            }
            if (degree < 0) {
                throw new IllegalArgumentException("degree must not be negative");
            }
        }
    }

    /**
     * What every node trains, on which share of the data, and how fast.
     *
     * @param partition how the training rows are split among the nodes ({@code dirichlet:0.5}, {@code iid}, ...)
     * @param model the model spec of every node ({@code logreg}, {@code mlp:64})
     * @param optimizer the optimizer spec of every node
     * @param batch the mini-batch size
     * @param backend the tensor backend of every node (single-threaded)
     * @param lrSchedule each node's learning rate over the run, progress being the share of the duration elapsed
     * @param maxStepsPerSecond the most steps a second each unimpaired node takes (a straggler takes its factor times
     *     fewer); 0 for no bound. On one machine, the CPU a straggler's pauses leave goes to the other nodes, which
     *     then train faster than they do without stragglers, as in no real consortium; a bound below what the machine
     *     gives every node keeps their pace the same with and without impairments
     */
    public record Training(
            String partition,
            String model,
            String optimizer,
            int batch,
            String backend,
            LearningRateSchedule lrSchedule,
            double maxStepsPerSecond) {
        public Training {
            Objects.requireNonNull(partition, "partition");
            Objects.requireNonNull(model, "model");
            Objects.requireNonNull(optimizer, "optimizer");
            Objects.requireNonNull(backend, "backend");
            Objects.requireNonNull(lrSchedule, "lrSchedule");
            if (batch < 1) {
                throw new IllegalArgumentException("batch must be positive");
            }
            if (!(maxStepsPerSecond >= 0) || Double.isInfinite(maxStepsPerSecond)) {
                throw new IllegalArgumentException(
                        "the bound on steps per second must be 0 (none) or positive, got " + maxStepsPerSecond);
            }
        }
    }

    /**
     * How the nodes exchange and merge models.
     *
     * @param exchangeEvery local steps between two averaging rounds (K)
     * @param training the drift bound and the straggler compensation of each node's engine ({@code
     *     AveragingEngine.Config.Training})
     * @param maxInFlight each node's outbound exchanges in progress at once; 0 for the strategy's default (4 for the
     *     gossip strategies, as a daemon has; {@code max(8, 4N)} for those that send to many nodes at once)
     * @param bySampleCount whether asynchronous merges weight each model by its node's sample count (else uniformly)
     * @param fragmenting the fragmented strategy's fragments per round, fan-out and balance
     * @param dtype how exchanged model bodies are encoded ({@code F32}, or quantized)
     * @param robust the robust rule of the strategies that combine several models at once ({@code sync},
     *     {@code fedbuff}); {@link RobustRule#NONE} for their weighted mean
     * @param screening how the gossip strategies' nodes screen received models ({@code --screening})
     */
    public record Averaging(
            int exchangeEvery,
            AveragingEngine.Config.Training training,
            int maxInFlight,
            boolean bySampleCount,
            Fragmenting fragmenting,
            Dtype dtype,
            RobustRule robust,
            StrategySettings.Screening screening) {
        public Averaging {
            Objects.requireNonNull(fragmenting, "fragmenting");
            Objects.requireNonNull(dtype, "dtype");
            Objects.requireNonNull(robust, "robust");
            Objects.requireNonNull(screening, "screening");
            Objects.requireNonNull(training, "training");
            if (exchangeEvery < 1) {
                throw new IllegalArgumentException("exchange interval must be positive");
            }
            if (maxInFlight < 0) {
                throw new IllegalArgumentException("exchanges in flight must not be negative");
            }
        }

        /**
         * Without a robust rule, with the daemon's straggler compensation; the gossip strategies' nodes screen
         * received models as a daemon does by default.
         */
        public Averaging(
                int exchangeEvery,
                int maxDriftSteps,
                int maxInFlight,
                boolean bySampleCount,
                int fragments,
                int fanout,
                boolean balanceFragments,
                Dtype dtype) {
            this(
                    exchangeEvery,
                    new AveragingEngine.Config.Training(maxDriftSteps, AveragingDefaults.STRAGGLER_COMPENSATION),
                    maxInFlight,
                    bySampleCount,
                    new Fragmenting(fragments, fanout, balanceFragments),
                    dtype,
                    RobustRule.NONE,
                    AveragingDefaults.SCREENING);
        }

        /**
         * The fragmented strategy's settings.
         *
         * @param fragments fragments per round; 0 for {@code FragmentedGossip.defaultFragments} of the model's
         *     parameter count
         * @param fanout peers per fragment
         * @param balanced whether nodes scale the share of each average taken from what they received by their ratio
         *     of coordinates delivered to received
         */
        public record Fragmenting(int fragments, int fanout, boolean balanced) {
            public Fragmenting {
                if (fanout < 1) {
                    throw new IllegalArgumentException("fan-out must be positive");
                }
                if (fragments < 0) {
                    throw new IllegalArgumentException("fragments must not be negative, got " + fragments);
                }
            }
        }

        public int fragments() {
            return fragmenting.fragments();
        }

        public int fanout() {
            return fragmenting.fanout();
        }

        public boolean balanceFragments() {
            return fragmenting.balanced();
        }
    }

    /**
     * The impaired nodes.
     *
     * @param stragglers the share of nodes slowed down and by what factor (a straggler pauses so that it takes at
     *     most the unimpaired nodes' mean count of steps over {@code factor}; see {@code StepPace})
     * @param slowLinks the share of nodes on slow links, and their bandwidth in Mbit/s
     * @param byzantine the share of nodes that send crafted models, and what they send
     */
    public record Impairments(Impairment stragglers, Impairment slowLinks, Byzantine byzantine) {
        /** No straggler, no slow link, no attacker. */
        public static final Impairments NONE = new Impairments(Impairment.NONE, Impairment.NONE);

        public Impairments {
            Objects.requireNonNull(stragglers, "stragglers");
            Objects.requireNonNull(slowLinks, "slowLinks");
            Objects.requireNonNull(byzantine, "byzantine");
        }

        /** Without attackers. */
        public Impairments(Impairment stragglers, Impairment slowLinks) {
            this(stragglers, slowLinks, Byzantine.NONE);
        }
    }

    /**
     * The testnet's Byzantine members: a share of the nodes that train as usual but send crafted models.
     *
     * @param fraction the share of the nodes, in [0, 0.5)
     * @param attack what they send
     */
    public record Byzantine(double fraction, ByzantineAttack attack) {
        /** No attacker. */
        public static final Byzantine NONE = new Byzantine(0, ByzantineAttack.NONE);

        public Byzantine {
            Objects.requireNonNull(attack, "attack");
            if (!(fraction >= 0 && fraction < 0.5)) {
                throw new IllegalArgumentException("the Byzantine share must lie in [0, 0.5), got " + fraction);
            }
        }

        /** How many of {@code nodes} attack: none without an attack, else the fraction rounded to the nearest count. */
        public int count(int nodes) {
            return attack.kind() == ByzantineAttack.Kind.NONE ? 0 : (int) Math.round(fraction * nodes);
        }

        /**
         * Which nodes attack, drawn from {@code seed} as impaired nodes are, among all but node 0 (FedBuff's
         * aggregator): a sorted array of distinct indices.
         */
        public int[] choose(int nodes, long seed, long salt) {
            int count = Math.min(count(nodes), nodes - 1);
            int[] chosen = new Impairment((double) count / (nodes - 1), 1).choose(nodes - 1, seed, salt);
            for (int i = 0; i < chosen.length; i++) {
                chosen[i]++;
            }
            return chosen;
        }
    }

    /**
     * How long each run trains and how its nodes are scored.
     *
     * @param duration how long each run trains
     * @param interval how often every node is evaluated
     * @param warmup how long each strategy of a comparison runs, unimpaired and unreported, before the measured runs
     *     (so that the first run does not pay for the JIT compiling the training code); zero for none
     * @param targetAccuracy the accuracy whose first crossing is reported per node
     * @param rows rows of the common test set the nodes are scored on (0: all)
     */
    public record Evaluation(Duration duration, Duration interval, Duration warmup, double targetAccuracy, int rows) {
        public Evaluation {
            Objects.requireNonNull(warmup, "warmup");
            if (warmup.isNegative()) {
                throw new IllegalArgumentException("warm-up must not be negative, got " + warmup);
            }
            if (duration.isNegative() || duration.isZero() || interval.isNegative() || interval.isZero()) {
                throw new IllegalArgumentException("duration and evaluation interval must be positive");
            }
            if (!(targetAccuracy > 0 && targetAccuracy <= 1)) {
                throw new IllegalArgumentException("target accuracy must lie in (0, 1], got " + targetAccuracy);
            }
            if (rows < 0) {
                throw new IllegalArgumentException("evaluation rows must not be negative");
            }
        }

        /** This evaluation with runs of {@code runDuration}. */
        public Evaluation withDuration(Duration runDuration) {
            return new Evaluation(runDuration, interval, warmup, targetAccuracy, rows);
        }
    }

    /** The number of nodes. */
    public int nodes() {
        return topology.nodes();
    }

    /** These settings with runs of {@code runDuration}: a warm-up's. */
    public TestnetSettings withDuration(Duration runDuration) {
        return new TestnetSettings(
                topology,
                training,
                averaging,
                impairments,
                evaluation.withDuration(runDuration),
                seed,
                outsiders,
                secure);
    }

    /** How asynchronous strategies weight a received model. */
    public dev.chorus.aggregation.weighting.UpdateWeighting weighting() {
        return new dev.chorus.aggregation.weighting.UpdateWeighting(
                dev.chorus.aggregation.weighting.StalenessWeighting.constant(), averaging.bySampleCount());
    }

    /** Bytes per second of {@code mbit} megabits per second. */
    public static long bytesPerSecond(double mbit) {
        return Math.max(1, Math.round(mbit * 1_000_000 / 8));
    }
}
