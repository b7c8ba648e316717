package dev.chorus.testnet;

import dev.chorus.aggregation.AveragingStrategy;
import dev.chorus.aggregation.SelfCenteredClipping;
import dev.chorus.aggregation.async.FragmentedGossip;
import dev.chorus.gossip.host.Host;
import dev.chorus.gossip.host.HostConfig;
import dev.chorus.gossip.identity.PrivateKey;
import dev.chorus.gossip.multiaddr.Multiaddr;
import dev.chorus.learning.data.Dataset;
import dev.chorus.learning.eval.Evaluation;
import dev.chorus.learning.model.ModelSpec;
import dev.chorus.learning.model.Sequential;
import dev.chorus.learning.optim.OptimizerSpec;
import dev.chorus.learning.tensor.TensorBackend;
import dev.chorus.learning.tensor.TensorBackends;
import dev.chorus.learning.train.Trainer;
import dev.chorus.learning.train.TrainingConfig;
import dev.chorus.node.averaging.AveragingEngine;
import dev.chorus.node.averaging.AveragingKind;
import dev.chorus.node.averaging.RobustRule;
import dev.chorus.node.averaging.StalenessHistogram;
import dev.chorus.node.averaging.StrategySettings;
import dev.chorus.node.membership.Membership;
import dev.chorus.node.protocol.ArchitectureHash;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * Runs one strategy on a testnet: starts the nodes (a real libp2p host each, on loopback), connects them, trains
 * for the configured duration while scoring every node on the common test set every evaluation interval, then
 * stops every thread and closes every host.
 *
 * <p>The nodes form a consortium as deployed ones do ({@link TestnetConsortium}): each node's host admits a
 * connection only once the remote has shown a member certificate from a CA on the roster, and with {@link
 * TestnetSettings#outsiders()} hosts without one attack the nodes throughout the run ({@link OutsiderAttack}).
 */
public final class Testnet {

    /**
     * Training runs long enough for any duration; the run ends it with {@link Trainer#requestStop()}. No finite
     * count of epochs: a node whose shard fits one batch takes one step per epoch, and a small model steps fast
     * enough to use up any such count within a run, after which the node would go unscored.
     */
    private static final int EPOCHS = Integer.MAX_VALUE;

    /** Compiler idleness that counts as settled before a measured run. */
    private static final Duration COMPILER_QUIET = Duration.ofSeconds(1);

    /**
     * A warm-up run lasts at most this many times its duration, in percent; the wait for idle compilers before a
     * measured run lasts at most the rest of twice the warm-up ({@link #settleLimit}). A warm-up asked for T thus
     * costs at most 2T per run: a bound the user can plan with, where waiting for the compilers without one took
     * four times T on a machine with two cores.
     */
    static final int WARMUP_EXTENSION_PERCENT = 150;

    /** The share of the latest window, in percent, above which the compilers count as busy during a warm-up. */
    static final int WARMUP_BUSY_PERCENT = 5;

    private static final long STRAGGLER_SALT = 1;
    private static final long SLOW_LINK_SALT = 2;
    private static final long BYZANTINE_SALT = 3;

    private final TestnetSettings settings;
    /** What the current run's relays received, checked for uniformity (a {@code secure} run's only). */
    private SecureRoundsView relayView = new SecureRoundsView();

    private final TestnetData data;
    private final int parameterCount;
    /** The nodes' CAs and certificates, made at the first run that exchanges; every such run uses them. */
    private TestnetConsortium consortium;

    /**
     * @throws IllegalArgumentException when the model does not fit the data (e.g. {@code cnn} on tabular data), or
     *     the model has fewer parameters than {@link TestnetSettings#fragments()}
     */
    public Testnet(TestnetSettings settings, TestnetData data) {
        this.settings = settings;
        this.data = data;
        ModelSpec spec = ModelSpec.parse(settings.training().model());
        try (TensorBackend backend = TensorBackends.create(settings.training().backend(), 1);
                Sequential model =
                        spec.build(backend, data.train().cols(), data.train().classes(), settings.seed())) {
            parameterCount = model.parameterCount();
        }
        if (settings.averaging().fragments() > parameterCount) {
            throw new IllegalArgumentException(
                    "--fragments " + settings.averaging().fragments() + " is more than the "
                            + parameterCount + " parameters of model " + spec + " on this data (one coordinate at least"
                            + " per fragment)");
        }
    }

    /**
     * The fragments per round of the fragmented strategy: as set, or {@link FragmentedGossip#defaultFragments} of the
     * model's parameter count.
     */
    public int fragments() {
        return settings.averaging().fragments() > 0
                ? settings.averaging().fragments()
                : FragmentedGossip.defaultFragments(parameterCount);
    }

    public int[] stragglers() {
        return settings.impairments().stragglers().choose(settings.nodes(), settings.seed(), STRAGGLER_SALT);
    }

    public int[] slowLinks() {
        return settings.impairments().slowLinks().choose(settings.nodes(), settings.seed(), SLOW_LINK_SALT);
    }

    /** What the nodes of {@link #attackers()} send. */
    public ByzantineAttack attack() {
        return settings.impairments().byzantine().attack();
    }

    /** The nodes that send crafted models ({@code --byzantine}) in a run that exchanges; never node 0. */
    public int[] attackers() {
        return settings.impairments().byzantine().choose(settings.nodes(), settings.seed(), BYZANTINE_SALT);
    }

    /**
     * Runs {@code strategy}; with {@code impaired} false, no node is slowed, every link has the base bandwidth and
     * no node attacks.
     *
     * @param progress told about each evaluation round (may be a no-op)
     */
    public TestnetRun run(StrategyKind strategy, boolean impaired, Consumer<String> progress)
            throws InterruptedException {
        return run(strategy, impaired, progress, scored -> {});
    }

    /**
     * As {@link #run(StrategyKind, boolean, Consumer)}, and tells {@code scored} each evaluation round's samples
     * (one per node scored, the final round included).
     */
    public TestnetRun run(
            StrategyKind strategy,
            boolean impaired,
            Consumer<String> progress,
            Consumer<List<TestnetRun.Sample>> scored)
            throws InterruptedException {
        return run(strategy, impaired, progress, scored, false);
    }

    /** The longest wait for idle compilers before a measured run: what twice {@code warmup} leaves. */
    static Duration settleLimit(Duration warmup) {
        return warmup.multipliedBy(200 - WARMUP_EXTENSION_PERCENT).dividedBy(100);
    }

    private static Duration min(Duration a, Duration b) {
        return a.compareTo(b) <= 0 ? a : b;
    }

    /**
     * A warm-up run, not to be reported: as {@link #run(StrategyKind, boolean, Consumer)}, but it goes on past the
     * settings' duration, one evaluation interval at a time, while the JIT compilers worked for more than
     * {@value #WARMUP_BUSY_PERCENT}% of the latest window (a third of the duration, at least 1 s and at most 10 s),
     * up to {@value #WARMUP_EXTENSION_PERCENT}% of the duration. On a machine with few cores a fixed warm-up can end
     * before the model exchange's code is compiled, and the first measured run would pay for the compiling (see
     * {@link JvmFootprint.CompilerActivity}).
     */
    public TestnetRun warmUp(StrategyKind strategy, boolean impaired) throws InterruptedException {
        return run(strategy, impaired, line -> {}, scored -> {}, true);
    }

    private TestnetRun run(
            StrategyKind strategy,
            boolean impaired,
            Consumer<String> progress,
            Consumer<List<TestnetRun.Sample>> scored,
            boolean untilCompiled)
            throws InterruptedException {
        RunPlan plan = new RunPlan(
                strategy.id() + (impaired || !anyImpairment() ? "" : "-ideal"),
                strategy,
                impaired ? stragglers() : new int[0],
                impaired && strategy.exchanges() ? slowLinks() : new int[0],
                impaired && strategy.exchanges() ? attackers() : new int[0]);
        ModelSpec spec = ModelSpec.parse(settings.training().model());
        List<TestnetNode> nodes = new ArrayList<>();
        List<Host> hosts = new ArrayList<>();
        List<Membership> memberships = new ArrayList<>();
        OutsiderAttack attack = null;
        TensorBackend evalBackend = TensorBackends.create(settings.training().backend(), 1);
        Sequential evalModel = null;
        try {
            buildNodes(plan, spec, nodes, hosts, memberships);
            if (strategy.exchanges()) {
                connect(hosts, strategy);
                List<String> ids =
                        hosts.stream().map(h -> h.peerId().toBase58()).toList();
                attachAll(plan, nodes, ids);
                if (settings.outsiders() > 0) {
                    Sequential model = nodes.getFirst().model;
                    attack = OutsiderAttack.prepare(
                            settings.outsiders(),
                            settings.seed(),
                            hosts,
                            memberships,
                            ArchitectureHash.of(model),
                            model.parameterCount());
                }
            }
            nodes.forEach(TestnetNode::finishWiring);
            evalModel =
                    spec.build(evalBackend, data.train().cols(), data.train().classes(), settings.seed());
            return train(plan, nodes, evalModel, progress, scored, untilCompiled, attack);
        } finally {
            shutDown(nodes, hosts, memberships, attack);
            if (evalModel != null) {
                evalModel.close();
            }
            evalBackend.close();
        }
    }

    /**
     * Wires every node's averaging; the attackers of {@code plan} send what the settings' attack crafts, reading the
     * honest nodes' published models where the attack does.
     */
    private void attachAll(RunPlan plan, List<TestnetNode> nodes, List<String> ids) {
        relayView = new SecureRoundsView();
        ByzantineAttack byzantine = settings.impairments().byzantine().attack();
        float[] initial = new float[parameterCount];
        nodes.getFirst().model.copyParametersTo(initial); // every node starts from it
        List<TestnetNode> honest = nodes.stream()
                .filter(node -> Arrays.binarySearch(plan.attackers(), node.index) < 0)
                .toList();
        ByzantineAttack.HonestModels models = new ByzantineAttack.HonestModels() {
            @Override
            public int forEach(Consumer<float[]> visit) {
                int count = 0;
                for (TestnetNode node : honest) {
                    dev.chorus.node.averaging.SnapshotBuffer buffer = node.snapshots();
                    dev.chorus.node.averaging.SnapshotBuffer.Lease lease = buffer == null ? null : buffer.acquire();
                    if (lease != null) {
                        try (lease) {
                            visit.accept(lease.values());
                            count++;
                        }
                    }
                }
                return count;
            }

            @Override
            public int nodes() {
                return nodes.size();
            }

            @Override
            public int attackers() {
                return plan.attackers().length;
            }
        };
        for (TestnetNode node : nodes) {
            AveragingStrategy s = strategy(plan.strategy(), node, ids);
            boolean attacks = Arrays.binarySearch(plan.attackers(), node.index) >= 0;
            node.attach(
                    s,
                    engineConfig(settings, node.index, plan.strategy()),
                    settings.averaging().dtype(),
                    attacks
                            ? byzantine.transform(initial, settings.seed() * 1000 + node.index, models)
                            : java.util.function.UnaryOperator.identity(),
                    new TestnetNode.SecureRounds(
                            dev.chorus.node.secagg.SecAggSettings.defaults(settings.seed())
                                    .withGroupSize(settings.secure().groupSize())
                                    .withPhaseTimeout(settings.secure().phaseTimeout())
                                    .withOfferWindow(settings.secure().offerWindow())
                                    .withSampleWeighting(settings.weighting().bySampleCount()),
                            Arrays.binarySearch(plan.slowLinks(), node.index) >= 0
                                    ? settings.secure().slowLinksRelay()
                                    : dev.chorus.node.secagg.RelayRole.Setting.AUTO,
                            settings.secure().dropouts(),
                            dropoutPhase(node.index, nodes.size()),
                            relayView));
        }
    }

    /**
     * Where node {@code index} of {@code count} starts in the dropout schedule: phases spread evenly over [0, 1), so
     * that the nodes drop out in different rounds, and the last drops out of the first round it joins whenever the
     * fraction is at least {@code 1 / (2 * count)}.
     */
    static double dropoutPhase(int index, int count) {
        return (index + 0.5) / count;
    }

    /**
     * Which run this is: its label, its strategy, and the nodes it impairs.
     *
     * @param label the strategy's id, with {@code -ideal} for a run without the impairments that the settings have
     * @param stragglers the slowed nodes (none for an unimpaired run)
     * @param slowLinks the nodes on slow links (none for an unimpaired run, or a strategy that does not exchange)
     * @param attackers the nodes that send crafted models (as the slow links: none unimpaired or without exchanges)
     */
    private record RunPlan(String label, StrategyKind strategy, int[] stragglers, int[] slowLinks, int[] attackers) {}

    /**
     * Builds the run's nodes (one that trains on all the data for {@link StrategyKind#CENTRAL}), each with a host
     * when the strategy exchanges, gated by the node's membership; adds each to {@code nodes}, its host to {@code
     * hosts} and its membership to {@code memberships} as soon as it exists, so that a failure part way leaves
     * everything started in the lists for {@link #shutDown}.
     */
    private void buildNodes(
            RunPlan plan, ModelSpec spec, List<TestnetNode> nodes, List<Host> hosts, List<Membership> memberships) {
        StrategyKind strategy = plan.strategy();
        Set<Integer> slowSet = toSet(plan.slowLinks());
        Set<Integer> stragglerSet = toSet(plan.stragglers());
        int n = strategy == StrategyKind.CENTRAL ? 1 : settings.nodes();
        OptimizerSpec optimizer = OptimizerSpec.parse(settings.training().optimizer());
        double maxStepsPerSecond = settings.training().maxStepsPerSecond();
        long minStepNanos = maxStepsPerSecond > 0 ? Math.round(1e9 / maxStepsPerSecond) : 0;
        int unimpaired = (int) java.util.stream.IntStream.range(0, n)
                .filter(i -> !stragglerSet.contains(i))
                .count();
        StepPace pace = stragglerSet.isEmpty() && minStepNanos == 0 ? null : new StepPace(minStepNanos, unimpaired);
        for (int i = 0; i < n; i++) {
            Dataset shard = strategy == StrategyKind.CENTRAL ? data.train() : data.shard(i);
            if (Arrays.binarySearch(plan.attackers(), i) >= 0) {
                shard = attack().trainingShard(shard);
            }
            Host host = null;
            if (strategy.exchanges()) {
                long limit = 0;
                if (slowSet.contains(i)) {
                    limit = TestnetSettings.bytesPerSecond(
                            settings.impairments().slowLinks().value());
                } else if (settings.topology().linkMbit() > 0) {
                    limit = TestnetSettings.bytesPerSecond(settings.topology().linkMbit());
                }
                PrivateKey key = hostKey(i);
                Membership membership = consortium().membership(i, key);
                memberships.add(membership);
                host = Host.start(hostConfig(key, limit), membership.gate()).join();
                hosts.add(host);
            }
            TensorBackend backend = TensorBackends.create(settings.training().backend(), 1);
            // Every node starts from the same initialization, as a consortium agrees on one.
            Sequential model =
                    spec.build(backend, data.train().cols(), data.train().classes(), settings.seed());
            Trainer trainer = new Trainer(
                    model,
                    optimizer.create(),
                    new TrainingConfig(EPOCHS, settings.training().batch(), settings.seed() * 1000 + i));
            double slowdown = stragglerSet.contains(i)
                    ? settings.impairments().stragglers().value()
                    : 1;
            TestnetNode node = new TestnetNode(i, shard, backend, model, trainer, host, slowdown, pace);
            node.scheduleLearningRate(
                    settings.training().lrSchedule(), settings.evaluation().duration());
            nodes.add(node);
        }
    }

    /**
     * Stops the outsiders and every node's training, closes the nodes, their memberships and their side of the
     * announcement topic, then the hosts (all at once, for at most a minute).
     */
    private static void shutDown(
            List<TestnetNode> nodes, List<Host> hosts, List<Membership> memberships, OutsiderAttack attack)
            throws InterruptedException {
        if (attack != null) {
            attack.stop(); // as a rule done already, when training ended
        }
        stopTraining(nodes);
        for (TestnetNode node : nodes) {
            node.close();
        }
        memberships.forEach(Membership::close);
        if (attack != null) {
            attack.close();
        }
        CompletableFuture.allOf(hosts.stream().map(Host::closeAsync).toArray(CompletableFuture[]::new))
                .orTimeout(60, TimeUnit.SECONDS)
                .exceptionally(e -> null)
                .join();
    }

    /** Asks every node to stop, then waits for each (at most 30 s a node). */
    private static void stopTraining(List<TestnetNode> nodes) throws InterruptedException {
        for (TestnetNode node : nodes) {
            node.requestStop();
        }
        for (TestnetNode node : nodes) {
            node.join(Duration.ofSeconds(30));
        }
    }

    public boolean anyImpairment() {
        return settings.impairments().stragglers().count(settings.nodes()) > 0
                || settings.impairments().slowLinks().count(settings.nodes()) > 0
                || settings.impairments().byzantine().count(settings.nodes()) > 0;
    }

    /**
     * Trains the wired nodes for the settings' duration (longer for a warm-up while the compilers are busy), scoring
     * them every evaluation interval and once more at the end, while {@code attack} (null: none) goes on, and returns
     * what the run measured.
     */
    private TestnetRun train(
            RunPlan plan,
            List<TestnetNode> nodes,
            Sequential evalModel,
            Consumer<String> progress,
            Consumer<List<TestnetRun.Sample>> scored,
            boolean untilCompiled,
            OutsiderAttack attack)
            throws InterruptedException {
        // After a warm-up, what it queued for compilation is compiled before this run starts, not during it. A
        // warm-up run does not wait: compiling is what it is for.
        Duration settleLimit = settleLimit(settings.evaluation().warmup());
        double settle = settings.evaluation().warmup().isZero() || untilCompiled
                ? 0
                : JvmFootprint.awaitCompilerIdle(min(COMPILER_QUIET, settleLimit), settleLimit);
        long start = System.nanoTime();
        double jitAtStart = JvmFootprint.compilationSeconds();
        nodes.forEach(TestnetNode::start);
        if (attack != null) {
            attack.begin();
        }
        Scorer scorer = new Scorer(plan.label(), start, evalModel, nodes.size(), progress, scored, plan.attackers());
        scoreWhileTraining(nodes, scorer, jitAtStart, untilCompiled);
        TestnetRun.Outsiders outsiders = attack == null ? TestnetRun.Outsiders.NONE : attack.stop();
        stopTraining(nodes);
        checkFailures(nodes);
        double seconds = (System.nanoTime() - start) / 1e9;
        scorer.ticks.add(seconds);
        JvmFootprint.sample();
        NodeTotals totals = finalTotals(nodes, scorer);
        scorer.report(seconds);
        return new TestnetRun(
                plan.label(),
                plan.strategy(),
                new TestnetRun.Impairments(
                        plan.stragglers(),
                        plan.slowLinks(),
                        nodes.stream()
                                .mapToLong(node -> node.host == null
                                        ? 0
                                        : node.host.config().bandwidthLimit())
                                .toArray(),
                        plan.attackers()),
                new TestnetRun.Scores(
                        List.copyOf(scorer.samples),
                        scorer.ticks.stream().mapToDouble(Double::doubleValue).toArray(),
                        totals.finalAccuracy,
                        totals.finalLoss,
                        totals.finalAuc,
                        totals.finalBalancedAccuracy,
                        scorer.timeToTarget),
                new TestnetRun.Exchanges(
                        totals.bytesSent,
                        totals.bytesReceived,
                        totals.rounds,
                        totals.accepted,
                        totals.staleness,
                        totals.clipped,
                        totals.dropped,
                        secureRounds(nodes, plan.slowLinks())),
                new TestnetRun.Pace(totals.stepsPerSecond, totals.waitSeconds, totals.stepScale),
                new TestnetRun.Timing(seconds, JvmFootprint.compilationSeconds() - jitAtStart, settle),
                outsiders);
    }

    /**
     * Scores the nodes every evaluation interval until the run's end, and the last interval's request at the end.
     * A warm-up's end moves on an interval at a time, up to {@value #WARMUP_EXTENSION_PERCENT}% of the duration,
     * while the compilers are busy.
     */
    private void scoreWhileTraining(List<TestnetNode> nodes, Scorer scorer, double jitAtStart, boolean untilCompiled)
            throws InterruptedException {
        long start = scorer.start;
        long durationNanos = settings.evaluation().duration().toNanos();
        long interval = settings.evaluation().interval().toNanos();
        // Snapshots requested at one tick are taken by the training threads at their next step and scored at the
        // following tick, so the evaluator never touches a model that a trainer is using. A tick's samples and its
        // place on the time axis are those of the request, not of the scoring one interval later.
        nodes.forEach(TestnetNode::pollSnapshot);
        long requested = start;
        long end = start + durationNanos;
        long latestEnd = untilCompiled ? start + durationNanos / 100 * WARMUP_EXTENSION_PERCENT : end;
        JvmFootprint.CompilerActivity jit = new JvmFootprint.CompilerActivity(
                warmUpWindow(settings.evaluation().duration()), WARMUP_BUSY_PERCENT / 100.0);
        jit.record(start, jitAtStart);
        for (long next = start + interval; next < end; next += interval) {
            sleepUntil(next);
            checkFailures(nodes);
            long now = System.nanoTime();
            jit.record(now, JvmFootprint.compilationSeconds());
            scorer.scorePending(requested, nodes);
            requested = now;
            scorer.report(scorer.ticks.getLast());
            if (next + interval >= end && end < latestEnd && jit.busy()) {
                end = Math.min(latestEnd, end + interval);
            }
        }
        sleepUntil(end);
        checkFailures(nodes);
        // The last tick's request, taken while training still ran.
        scorer.scorePending(requested, nodes);
        scorer.report(scorer.ticks.getLast());
    }

    /** Each node's final figures, indexed by node. */
    private static final class NodeTotals {
        final double[] finalAccuracy;
        final double[] finalLoss;
        final double[] finalAuc;
        final double[] finalBalancedAccuracy;
        final long[] bytesSent;
        final double[] stepsPerSecond;
        final double[] waitSeconds;
        final double[] stepScale;
        final long[] rounds;
        final long[] accepted;
        final long[] clipped;
        final long[] dropped;
        final long[] bytesReceived;
        /** Summed over the nodes, in {@link StalenessHistogram} buckets. */
        final long[] staleness = new long[StalenessHistogram.BUCKETS];

        NodeTotals(int n) {
            finalAccuracy = new double[n];
            finalLoss = new double[n];
            finalAuc = new double[n];
            finalBalancedAccuracy = new double[n];
            bytesSent = new long[n];
            stepsPerSecond = new double[n];
            waitSeconds = new double[n];
            stepScale = new double[n];
            rounds = new long[n];
            accepted = new long[n];
            clipped = new long[n];
            dropped = new long[n];
            bytesReceived = new long[n];
        }
    }

    /** What the run's group rounds did; {@link TestnetRun.SecureRounds#NONE} for a strategy without them. */
    private TestnetRun.SecureRounds secureRounds(List<TestnetNode> nodes, int[] slowLinks) {
        List<java.util.Optional<dev.chorus.node.secagg.SecAggCounters>> counters =
                nodes.stream().map(TestnetNode::secureCounters).toList();
        if (counters.stream().allMatch(java.util.Optional::isEmpty)) {
            return TestnetRun.SecureRounds.NONE;
        }
        long relayedOnSlowLinks = 0;
        for (int i : slowLinks) {
            relayedOnSlowLinks += counters.get(i)
                    .map(c -> c.relayCompleted() + c.relayAbandoned())
                    .orElse(0L);
        }
        return relayView.summary(counters, nodes.get(0).model.parameterCount(), relayedOnSlowLinks);
    }

    /**
     * Scores every node's final model as the current tick and, for its final figures, on every held-out row; collects
     * its counters. The nodes have stopped.
     */
    private NodeTotals finalTotals(List<TestnetNode> nodes, Scorer scorer) {
        NodeTotals totals = new NodeTotals(nodes.size());
        for (TestnetNode node : nodes) {
            TestnetNode.Snapshot last = node.finalSnapshot();
            TestnetRun.Sample sample = scorer.score(node.index, last);
            scorer.samples.add(sample);
            TestnetRun.Score end = data.heldOut() == data.test() ? sample.score() : scorer.scoreHeldOut(last);
            totals.finalAccuracy[node.index] = end.accuracy();
            totals.finalLoss[node.index] = end.loss();
            totals.finalAuc[node.index] = end.auc();
            totals.finalBalancedAccuracy[node.index] = end.balancedAccuracy();
            totals.bytesSent[node.index] = node.bytesSent();
            totals.stepsPerSecond[node.index] = node.stepsPerSecond();
            totals.waitSeconds[node.index] = node.waitedSeconds();
            AveragingEngine engine = node.engine();
            totals.stepScale[node.index] = engine == null ? 1 : engine.stepScale();
            if (engine != null) {
                AveragingEngine.Stats st = engine.stats();
                totals.rounds[node.index] = st.rounds();
                totals.accepted[node.index] = st.incoming().accepted();
                totals.clipped[node.index] = node.screened(SelfCenteredClipping::clipped);
                totals.dropped[node.index] = node.screened(SelfCenteredClipping::dropped);
                totals.bytesReceived[node.index] = st.traffic().bytesReceived();
                for (int b = 0; b < totals.staleness.length; b++) {
                    totals.staleness[b] += st.staleness()[b];
                }
            }
        }
        return totals;
    }

    /**
     * One run's scoring: every node's snapshots on the common test set, tick by tick, the time of each tick, and
     * each node's first time at or above the target accuracy.
     */
    private final class Scorer {
        final String label;
        /** When training began ({@link System#nanoTime}); times are seconds since. */
        final long start;

        final Sequential evalModel;
        final Consumer<String> progress;
        final Consumer<List<TestnetRun.Sample>> scored;
        final List<TestnetRun.Sample> samples = new ArrayList<>();
        final List<Double> ticks = new ArrayList<>();
        final double[] timeToTarget;
        /** Left out of the progress lines' summaries, as out of the report's. */
        final int[] attackers;

        int tick;

        Scorer(
                String label,
                long start,
                Sequential evalModel,
                int nodes,
                Consumer<String> progress,
                Consumer<List<TestnetRun.Sample>> scored,
                int[] attackers) {
            this.label = label;
            this.attackers = attackers;
            this.start = start;
            this.evalModel = evalModel;
            this.progress = progress;
            this.scored = scored;
            this.timeToTarget = new double[nodes];
            Arrays.fill(timeToTarget, Double.NaN);
        }

        TestnetRun.Sample score(int node, TestnetNode.Snapshot s) {
            evalModel.setParameters(s.params());
            TestnetRun.Score score = Testnet.score(evalModel, data.test());
            double t = Math.max(0, (s.nanos() - start) / 1e9);
            if (score.accuracy() >= settings.evaluation().targetAccuracy()
                    && (Double.isNaN(timeToTarget[node]) || t < timeToTarget[node])) {
                timeToTarget[node] = t;
            }
            return new TestnetRun.Sample(label, tick, t, node, score, s.version(), s.bytesSent());
        }

        /**
         * What a node's final model scores on every held-out row. The run's samples score a seeded subset
         * ({@code --eval-rows}) to keep scoring cheap while the nodes train. The standard error of an accuracy near
         * 0.88 taken from 2,000 rows is 0.7 points, as large as the differences between strategies a final figure
         * is read for.
         */
        TestnetRun.Score scoreHeldOut(TestnetNode.Snapshot s) {
            evalModel.setParameters(s.params());
            return Testnet.score(evalModel, data.heldOut());
        }

        /** Scores the snapshots the nodes took since {@code requested} as the current tick, and records its time. */
        void scorePending(long requested, List<TestnetNode> nodes) {
            ticks.add((requested - start) / 1e9);
            JvmFootprint.sample();
            for (TestnetNode node : nodes) {
                TestnetNode.Snapshot s = node.pollSnapshot();
                if (s != null) {
                    samples.add(score(node.index, s));
                }
            }
        }

        /** Tells the listeners about the current tick, at {@code t} seconds, and moves on to the next tick. */
        void report(double t) {
            progress.accept(progressLine(label, t, samples, tick, attackers));
            scored.accept(ofTick(samples, tick));
            tick++;
        }
    }

    /**
     * What {@code model} scores on {@code test}: the AUC from the positive class's probability, not from the
     * predicted class, so that it ranks the rows as the model does (see {@link Evaluation#of}).
     */
    static TestnetRun.Score score(Sequential model, Dataset test) {
        return TestnetRun.Score.of(Evaluation.of(test.labels(), model.predictProbabilities(test), test.classes()));
    }

    private static List<TestnetRun.Sample> ofTick(List<TestnetRun.Sample> samples, int tick) {
        return samples.stream().filter(s -> s.tick() == tick).toList();
    }

    /** The tick's scores in one line, summarized over the honest nodes (all but {@code attackers}, sorted). */
    private static String progressLine(
            String label, double t, List<TestnetRun.Sample> samples, int tick, int[] attackers) {
        double[] acc = samples.stream()
                .filter(s -> s.tick() == tick && Arrays.binarySearch(attackers, s.node()) < 0)
                .mapToDouble(TestnetRun.Sample::accuracy)
                .toArray();
        return String.format(
                java.util.Locale.ROOT,
                "%s t=%.1fs: %d %s scored, accuracy mean %.4f, worst %.4f",
                label,
                t,
                acc.length,
                attackers.length == 0 ? "nodes" : "honest nodes",
                java.util.Arrays.stream(acc).average().orElse(Double.NaN),
                java.util.Arrays.stream(acc).min().orElse(Double.NaN));
    }

    private static void checkFailures(List<TestnetNode> nodes) {
        for (TestnetNode node : nodes) {
            Throwable f = node.failure();
            if (f != null) {
                throw new IllegalStateException("node " + node.index + " failed: " + f.getMessage(), f);
            }
        }
    }

    /** How far back a warm-up run looks at the compilers' work: a third of its duration, 1 to 10 s. */
    static Duration warmUpWindow(Duration duration) {
        Duration third = duration.dividedBy(3);
        Duration min = Duration.ofSeconds(1);
        Duration max = Duration.ofSeconds(10);
        return third.compareTo(min) < 0 ? min : third.compareTo(max) > 0 ? max : third;
    }

    private static void sleepUntil(long deadline) throws InterruptedException {
        long left;
        while ((left = deadline - System.nanoTime()) > 0) {
            TimeUnit.NANOSECONDS.sleep(left);
        }
    }

    /** Node {@code index}'s key: the same in every run of the testnet, as its member certificate names it. */
    private PrivateKey hostKey(int index) {
        byte[] seed = new byte[32];
        new SplittableRandom(settings.seed() * 7919 + index).nextBytes(seed);
        return PrivateKey.fromSeed(seed);
    }

    /** The nodes' CAs and member certificates, made once. */
    private TestnetConsortium consortium() {
        if (consortium == null) {
            List<PrivateKey> keys = new ArrayList<>();
            for (int i = 0; i < settings.nodes(); i++) {
                keys.add(hostKey(i));
            }
            consortium = new TestnetConsortium(keys);
        }
        return consortium;
    }

    /**
     * A node's host: on loopback, with room for every other node's connections and, while the gate checks them,
     * two of each outsider's.
     */
    private HostConfig hostConfig(PrivateKey key, long bandwidthLimit) {
        int limit = 4 * settings.nodes() + 16 + 2 * settings.outsiders();
        return HostConfig.defaults(key)
                .withListenAddrs(List.of(Multiaddr.parse("/ip4/127.0.0.1/tcp/0")))
                .withConnectionLimits(limit, 2, limit)
                .withGracePeriod(Duration.ofMillis(200))
                .withIoThreads(1)
                .withBandwidthLimit(bandwidthLimit);
    }

    /**
     * The daemon's engine settings, except where a strategy sends to many nodes at once: the synchronous strategy
     * to every other node, FedBuff's aggregator to every contributor, and nothing of theirs may be refused locally.
     * The gossip strategies keep the daemon's bound of exchanges in flight unless {@code --max-in-flight} says
     * otherwise: in one JVM more in flight costs the nodes CPU that separate machines would not share, so they would
     * train fewer steps for more bytes sent (docs/experiments/2026-straggler-experiment.md).
     */
    public static AveragingEngine.Config engineConfig(TestnetSettings settings, int index, StrategyKind strategy) {
        int n = settings.nodes();
        AveragingEngine.Config daemon = AveragingEngine.Config.defaults(settings.seed() * 1000 + index)
                .withExchangeEvery(settings.averaging().exchangeEvery())
                .withMaxDriftSteps(settings.averaging().training().maxDriftSteps())
                .withMaxStepScale(settings.averaging().training().maxStepScale());
        boolean broadcasts = strategy == StrategyKind.SYNC || strategy == StrategyKind.FEDBUFF;
        int inFlight = settings.averaging().maxInFlight() > 0
                ? settings.averaging().maxInFlight()
                : broadcasts ? Math.max(8, 4 * n) : daemon.maxInFlight();
        return daemon.withQueues(inFlight, Math.max(16, 4 * n));
    }

    private AveragingStrategy strategy(StrategyKind kind, TestnetNode node, List<String> ids) {
        return kind.averaging().create(strategySettings(ids), ids.get(node.index), parameterCount);
    }

    /**
     * Refuses a robust rule that {@code strategy} cannot apply: one for a strategy that merges one model at a time
     * or only ever sees a group's sum,
     * or one that needs more models per aggregation than the synchronous rounds (every node) or FedBuff's buffer
     * ({@link #bufferSize}) hold. A strategy that does not exchange ignores the rule.
     *
     * @throws IllegalArgumentException naming {@code --robust} and the problem
     */
    public static void checkRobust(TestnetSettings settings, StrategyKind strategy) {
        RobustRule rule = settings.averaging().robust();
        AveragingKind kind = strategy.averaging();
        if (rule.isNone() || !kind.exchanges()) {
            return;
        }
        if (!kind.aggregatesSeveral()) {
            throw new IllegalArgumentException(
                    "--robust " + rule.text() + " with strategy " + strategy.id() + ": " + kind.robustRefusal());
        }
        Optional<String> problem = kind == AveragingKind.SYNC
                ? rule.problemWith(settings.nodes(), "the testnet has " + settings.nodes() + " nodes")
                : rule.problemWith(
                        bufferSize(settings.nodes()), "fedbuff's buffer holds " + bufferSize(settings.nodes()));
        if (problem.isPresent()) {
            throw new IllegalArgumentException("--robust: " + problem.get());
        }
    }

    /** FedBuff's buffer on a testnet of {@code nodes}: every contributor's delta, at most 10. */
    public static int bufferSize(int nodes) {
        return Math.min(10, nodes - 1);
    }

    /**
     * The testnet's parameters of the strategies: its weighting, a 10 s pull timeout, every node in the synchronous
     * rounds, node 0 as FedBuff's aggregator with a buffer of at most 10 deltas, the robust rule as set.
     */
    private StrategySettings strategySettings(List<String> ids) {
        return new StrategySettings(
                settings.weighting(),
                Duration.ofSeconds(10),
                new StrategySettings.Fragmenting(
                        fragments(),
                        settings.averaging().fanout(),
                        settings.seed(),
                        settings.averaging().balanceFragments()),
                new StrategySettings.Buffering(ids.get(0), bufferSize(settings.nodes())),
                Set.copyOf(ids),
                new StrategySettings.Robustness(settings.averaging().robust(), Duration.ZERO),
                settings.averaging().screening());
    }

    /**
     * A full mesh when {@code degree} is 0 (or the strategy is synchronous or secure); otherwise a ring plus random edges
     * until every node has about {@code degree} peers, and for FedBuff an edge from every node to the aggregator.
     */
    private void connect(List<Host> hosts, StrategyKind strategy) {
        int n = hosts.size();
        Set<Long> edges = new HashSet<>();
        boolean mesh = settings.topology().degree() == 0
                || settings.topology().degree() >= n - 1
                || strategy == StrategyKind.SYNC
                || strategy == StrategyKind.SECURE; // a round's plan is drawn from each member's connected peers
        if (mesh) {
            for (int i = 0; i < n; i++) {
                for (int j = i + 1; j < n; j++) {
                    edges.add(edge(i, j));
                }
            }
        } else {
            SplittableRandom r = new SplittableRandom(settings.seed() + 31);
            int[] degree = new int[n];
            for (int i = 0; i < n; i++) {
                addEdge(edges, degree, i, (i + 1) % n);
                if (strategy == StrategyKind.FEDBUFF && i != 0) {
                    addEdge(edges, degree, 0, i);
                }
            }
            for (int i = 0; i < n; i++) {
                for (int tries = 0; degree[i] < settings.topology().degree() && tries < 10 * n; tries++) {
                    int j = r.nextInt(n);
                    if (j != i && degree[j] < settings.topology().degree()) {
                        addEdge(edges, degree, i, j);
                    }
                }
            }
        }
        List<CompletableFuture<?>> dials = new ArrayList<>();
        for (long e : edges) {
            int i = (int) (e >>> 32), j = (int) e;
            dials.add(hosts.get(i).connect(hosts.get(j).listenAddrs().get(0)));
        }
        CompletableFuture.allOf(dials.toArray(CompletableFuture[]::new)).join();
    }

    private static long edge(int i, int j) {
        return ((long) Math.min(i, j) << 32) | Math.max(i, j);
    }

    private static void addEdge(Set<Long> edges, int[] degree, int i, int j) {
        if (edges.add(edge(i, j))) {
            degree[i]++;
            degree[j]++;
        }
    }

    private static Set<Integer> toSet(int[] a) {
        Set<Integer> s = new HashSet<>();
        for (int x : a) {
            s.add(x);
        }
        return s;
    }
}
