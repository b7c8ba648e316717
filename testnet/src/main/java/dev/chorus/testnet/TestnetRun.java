package dev.chorus.testnet;

import dev.chorus.learning.eval.Evaluation;
import java.io.Serializable;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.function.ToDoubleFunction;

/**
 * What one run of a testnet measured. Per-node arrays are indexed by node.
 *
 * @param label the run's name in tables and plots (the strategy, with {@code -ideal} when impairments were off)
 * @param strategy the strategy
 * @param impairments the nodes the run slowed, and each node's bandwidth limit
 * @param scores every evaluation and what the nodes reached
 * @param exchanges what each node's averaging sent, received and merged
 * @param pace how fast each node trained, and how long it waited
 * @param timing how long the run trained, and the JIT compilers' part in it
 * @param outsiders what the hosts without a member certificate tried during the run, and what they got ({@link
 *     Outsiders#NONE} for a run without them)
 */
public record TestnetRun(
        String label,
        StrategyKind strategy,
        Impairments impairments,
        Scores scores,
        Exchanges exchanges,
        Pace pace,
        Timing timing,
        Outsiders outsiders)
        implements Serializable {

    /**
     * The nodes the run slowed, and each node's bandwidth limit.
     *
     * @param stragglers the slowed nodes
     * @param slowLinks the nodes on slow links
     * @param linkBytesPerSecond each node's bandwidth limit as its host applies it, bytes per second each way; 0:
     *     unlimited (and for a node without a host)
     * @param attackers the nodes that sent crafted models ({@code --byzantine}); their scores are left out of the
     *     final scores' summaries ({@link #honest})
     */
    public record Impairments(int[] stragglers, int[] slowLinks, long[] linkBytesPerSecond, int[] attackers)
            implements Serializable {

        /** Without attackers. */
        public Impairments(int[] stragglers, int[] slowLinks, long[] linkBytesPerSecond) {
            this(stragglers, slowLinks, linkBytesPerSecond, new int[0]);
        }
    }

    /**
     * Every evaluation, and what the nodes reached.
     *
     * @param samples every evaluation, in order
     * @param ticks the evaluation rounds: time (s) of each
     * @param finalAccuracy each node's accuracy at the end
     * @param finalLoss each node's test log loss at the end
     * @param finalAuc each node's ROC AUC at the end (see {@link Score#auc()}; NaN where undefined)
     * @param finalBalancedAccuracy each node's balanced accuracy at the end
     * @param timeToTarget each node's first time (s) at or above the target accuracy; NaN when never
     */
    public record Scores(
            List<Sample> samples,
            double[] ticks,
            double[] finalAccuracy,
            double[] finalLoss,
            double[] finalAuc,
            double[] finalBalancedAccuracy,
            double[] timeToTarget)
            implements Serializable {}

    /**
     * What each node's averaging sent, received and merged.
     *
     * @param bytesSent each node's bytes sent (model exchange payloads)
     * @param bytesReceived each node's bytes received (model exchange payloads)
     * @param rounds each node's averaging rounds
     * @param updatesAccepted each node's received updates that reached its model (for the fragmented strategy,
     *     fragments)
     * @param staleness the version lags of received updates, summed over nodes, in {@code StalenessHistogram} buckets
     * @param updatesClipped each node's received updates whose difference from its model was clipped
     *     ({@code --screening clip})
     * @param updatesDropped each node's received updates not merged because they were too far from its model or
     *     repeated one their sender had sent before
     * @param secure what the secure strategy's group rounds did; {@link SecureRounds#NONE} for the other strategies
     */
    public record Exchanges(
            long[] bytesSent,
            long[] bytesReceived,
            long[] rounds,
            long[] updatesAccepted,
            long[] staleness,
            long[] updatesClipped,
            long[] updatesDropped,
            SecureRounds secure)
            implements Serializable {

        /** Without group rounds. */
        public Exchanges(
                long[] bytesSent,
                long[] bytesReceived,
                long[] rounds,
                long[] updatesAccepted,
                long[] staleness,
                long[] updatesClipped,
                long[] updatesDropped) {
            this(
                    bytesSent,
                    bytesReceived,
                    rounds,
                    updatesAccepted,
                    staleness,
                    updatesClipped,
                    updatesDropped,
                    SecureRounds.NONE);
        }

        /** Nothing clipped. */
        public Exchanges(
                long[] bytesSent, long[] bytesReceived, long[] rounds, long[] updatesAccepted, long[] staleness) {
            this(
                    bytesSent,
                    bytesReceived,
                    rounds,
                    updatesAccepted,
                    staleness,
                    new long[rounds.length],
                    new long[rounds.length]);
        }
    }

    /**
     * What the secure strategy's group rounds did over all nodes.
     *
     * @param rounds the relayed rounds: completed, abandoned (fewer than t in a phase), cancelled (fewer than three
     *     offers), dropouts recovered in completed rounds, member rounds joined, the relays' time from a round's
     *     start to its end in milliseconds, summed, the dropouts injected ({@code --dropouts}), the rounds relayed by
     *     nodes on slow links, and the relay's role declined ({@code averaging.secure_relay: auto})
     * @param bytesPerMemberVsPlain bytes a member sent per round joined, over the bytes of its model sent once as
     *     32-bit floats (plain averaging's cost for the same vector)
     * @param bytesPerRelayVsPlain bytes a relay sent per round, on the same scale
     * @param maskedInputsChecked masked inputs the relays received and checked for uniformity
     * @param maskedInputsNonUniform those whose words failed the check ({@code SecureRoundsView})
     * @param sumsPerNode for each node, in node order, the rounds that gave it its group's sum: how often it merged.
     *     A node far below the others is left out of rounds, which the totals above do not show
     * @param unansweredPerNode for each node, its offers that no round followed (cancelled, or never started)
     */
    public record SecureRounds(
            long[] rounds,
            double bytesPerMemberVsPlain,
            double bytesPerRelayVsPlain,
            long maskedInputsChecked,
            long maskedInputsNonUniform,
            long[] sumsPerNode,
            long[] unansweredPerNode)
            implements Serializable {

        /** A run without group rounds. */
        public static final SecureRounds NONE = new SecureRounds(new long[9], 0, 0, 0, 0, new long[0], new long[0]);

        public long completed() {
            return rounds[0];
        }

        public long abandoned() {
            return rounds[1];
        }

        public long cancelled() {
            return rounds[2];
        }

        public long dropoutsRecovered() {
            return rounds[3];
        }

        public long memberRounds() {
            return rounds[4];
        }

        /** The member rounds left part way through on purpose, as {@code --dropouts} asked. */
        public long dropoutsInjected() {
            return rounds[6];
        }

        /**
         * The rounds relayed (completed or abandoned) by nodes on slow links: with {@code --slow-links-relay auto},
         * those before each declined the role; with {@code false}, those of groups no other member could relay.
         */
        public long relayedOnSlowLinks() {
            return rounds[7];
        }

        /** How many times a node declined the relay's role after its rounds showed its link the slower. */
        public long relayDeclines() {
            return rounds[8];
        }

        /** The mean time from a relayed round's start to its end, in milliseconds; 0 without rounds. */
        public double meanRoundMillis() {
            long ended = rounds[0] + rounds[1];
            return ended == 0 ? 0 : rounds[5] / (double) ended;
        }
    }

    /**
     * How fast each node trained, and how long it waited.
     *
     * @param stepsPerSecond each node's training steps per second
     * @param waitSeconds how long each node's training waited for exchanges: the drift bound's waits ({@code
     *     --max-drift}) and the barrier of synchronous averaging
     * @param stepScale the scale of each node's steps for its pace at the end (straggler compensation; 1 off)
     */
    public record Pace(double[] stepsPerSecond, double[] waitSeconds, double[] stepScale) implements Serializable {}

    /**
     * How long the run trained, and the JIT compilers' part in it.
     *
     * @param seconds how long the nodes trained
     * @param jitSeconds how long the JIT compilers worked during the run (NaN where the JVM does not say): on a
     *     machine with few cores and many nodes, a run that starts before the hot code is compiled trains slower for
     *     it
     * @param settleSeconds how long the run waited, with every node built and none training, for the JIT compilers to
     *     finish what earlier runs had queued (0 without a warm-up); see {@code JvmFootprint.awaitCompilerIdle}
     */
    public record Timing(double seconds, double jitSeconds, double settleSeconds) implements Serializable {}

    /**
     * What the outsiders (hosts with valid libp2p keys and no member certificate) tried against the nodes during a
     * run, and what they got. Every node's host admits a connection only after checking the remote's member
     * certificate, so the last three figures must be 0: anything else is a breach of the membership.
     *
     * @param hosts the outsiders (0: none attacked this run)
     * @param connects connections they tried to open to a node
     * @param pulls model pulls they tried over a connection that they had opened
     * @param pushes pushes of a poisoned model they tried over such a connection
     * @param publishes announcements they published on the consortium's topic
     * @param modelBytesPulled the bytes of model parameters their pulls brought back
     * @param updatesAccepted their pushes that a node acknowledged, i.e. took into its averaging
     * @param messagesDelivered their announcements that gossipsub delivered to a node
     */
    public record Outsiders(
            int hosts,
            long connects,
            long pulls,
            long pushes,
            long publishes,
            long modelBytesPulled,
            long updatesAccepted,
            long messagesDelivered)
            implements Serializable {

        /** A run without outsiders. */
        public static final Outsiders NONE = new Outsiders(0, 0, 0, 0, 0, 0, 0, 0);

        /** Whether the outsiders got a model byte, an update accepted or a message delivered. */
        public boolean breached() {
            return modelBytesPulled > 0 || updatesAccepted > 0 || messagesDelivered > 0;
        }
    }

    /**
     * One evaluation of one node.
     *
     * @param run the run's label
     * @param tick the evaluation round
     * @param time when the node's parameters were taken, seconds since the run began
     * @param node the node
     * @param score what the node's model scored on the common test set
     * @param version the node's model version
     * @param bytesSent the model exchange payload bytes the node had sent
     */
    public record Sample(String run, int tick, double time, int node, Score score, long version, long bytesSent)
            implements Serializable {

        public double accuracy() {
            return score.accuracy();
        }

        public double loss() {
            return score.loss();
        }
    }

    /**
     * What one model scored on the common test set. Accuracy alone barely separates models on a table whose majority
     * class holds most rows (a model that always predicts it scores that share), so the AUC and the balanced accuracy
     * go with it.
     *
     * @param accuracy the share of rows predicted correctly
     * @param loss the mean log loss
     * @param auc the ROC AUC of the positive class's probability (class 1) on a binary task; NaN with more classes,
     *     or when the test set holds one class only
     * @param balancedAccuracy the mean over the classes in the test set of each class's recall, for any number of
     *     classes
     */
    public record Score(double accuracy, double loss, double auc, double balancedAccuracy) implements Serializable {

        public static Score of(Evaluation e) {
            return new Score(e.accuracy(), e.logLoss(), e.auc(), e.confusion().balancedAccuracy());
        }
    }

    /**
     * A score's summary over the nodes, for a score where higher is better: the mean, the median, the worst node's
     * (the lowest) and the best node's. All four are NaN when any node's score is (an AUC on a multiclass task): a
     * summary over some of the nodes would read as one over all of them.
     */
    public record Spread(double mean, double median, double worst, double max) {

        public static Spread of(double[] perNode) {
            if (perNode.length == 0 || Arrays.stream(perNode).anyMatch(Double::isNaN)) {
                return new Spread(Double.NaN, Double.NaN, Double.NaN, Double.NaN);
            }
            return new Spread(
                    Arrays.stream(perNode).average().orElseThrow(),
                    TestnetRun.median(perNode),
                    Arrays.stream(perNode).min().orElseThrow(),
                    Arrays.stream(perNode).max().orElseThrow());
        }
    }

    public int nodes() {
        return scores.finalAccuracy().length;
    }

    /**
     * The entries of {@code perNode} (a per-node array of this run) of the honest nodes, those that did not attack:
     * what the final scores' summaries are taken over, as a defence is judged by the nodes it protects.
     */
    public double[] honest(double[] perNode) {
        int[] attackers = impairments.attackers();
        if (attackers.length == 0) {
            return perNode;
        }
        return java.util.stream.IntStream.range(0, perNode.length)
                .filter(i -> Arrays.binarySearch(attackers, i) < 0)
                .mapToDouble(i -> perNode[i])
                .toArray();
    }

    /** Honest nodes that reached the target. */
    public int reached() {
        return (int) Arrays.stream(honest(scores.timeToTarget()))
                .filter(t -> !Double.isNaN(t))
                .count();
    }

    /** The median over honest nodes of the time to target; NaN unless more than half of them reached it. */
    public double medianTimeToTarget() {
        double[] t = honest(scores.timeToTarget()).clone();
        for (int i = 0; i < t.length; i++) {
            if (Double.isNaN(t[i])) {
                t[i] = Double.POSITIVE_INFINITY;
            }
        }
        double m = median(t);
        return Double.isInfinite(m) ? Double.NaN : m;
    }

    /** The longest time to target of an honest node; NaN unless every honest node reached it. */
    public double maxTimeToTarget() {
        double max = 0;
        for (double t : honest(scores.timeToTarget())) {
            if (Double.isNaN(t)) {
                return Double.NaN;
            }
            max = Math.max(max, t);
        }
        return max;
    }

    /**
     * The mean accuracy over the honest nodes at each evaluation round, each node counted with its latest score up to that round
     * (so a node that took no step between two rounds keeps its last score); NaN until every node has been scored.
     * This is the consortium's curve that decentralized-learning papers report (e.g. DivShare's average test
     * accuracy over nodes); averaging over the nodes smooths the step-to-step swings of each node's score, which
     * make a single node's first crossing of a target a noisy measure.
     */
    public double[] meanAccuracyPerTick() {
        return latestAccuracyPerTick(a -> Arrays.stream(a).average().orElse(Double.NaN));
    }

    /**
     * The worst honest node's accuracy at each evaluation round: the lowest over them of each node's latest score up to
     * that round, as {@link #meanAccuracyPerTick()} counts them; NaN until every node has been scored. A mean (or a
     * median) over nodes hides a node that the averaging left behind, which every member of a consortium would
     * notice when its own model is the one that does not work.
     */
    public double[] worstAccuracyPerTick() {
        return latestAccuracyPerTick(a -> Arrays.stream(a).min().orElse(Double.NaN));
    }

    /**
     * {@code overNodes} of every honest node's latest accuracy at each evaluation round; NaN until every honest node
     * has been scored. The attackers are left out, as in the final scores' summaries.
     */
    private double[] latestAccuracyPerTick(ToDoubleFunction<double[]> overNodes) {
        double[] ticks = scores.ticks();
        double[] out = new double[ticks.length];
        double[] latest = new double[nodes()];
        Arrays.fill(latest, Double.NaN);
        int scored = 0;
        int next = 0;
        List<Sample> byTick = scores.samples().stream()
                .sorted(Comparator.comparingInt(Sample::tick))
                .toList();
        for (int k = 0; k < ticks.length; k++) {
            for (; next < byTick.size() && byTick.get(next).tick() <= k; next++) {
                Sample s = byTick.get(next);
                if (Double.isNaN(latest[s.node()])) {
                    scored++;
                }
                latest[s.node()] = s.accuracy();
            }
            out[k] = scored == latest.length ? overNodes.applyAsDouble(honest(latest)) : Double.NaN;
        }
        return out;
    }

    /**
     * The time (s) of the first evaluation round at which {@link #meanAccuracyPerTick() the mean accuracy over
     * nodes} is at or above {@code target}; NaN when it never is.
     */
    public double meanTimeToTarget(double target) {
        return firstAtOrAbove(meanAccuracyPerTick(), target);
    }

    /**
     * The time (s) of the first evaluation round from which {@link #meanAccuracyPerTick() the mean accuracy over
     * nodes} stays at or above {@code target} in every later round to the end of the run; NaN when the last round is
     * below it. Unlike {@link #meanTimeToTarget}, a mean that touches the target on one evaluation and falls back
     * under it does not count until it comes back for good: near a plateau the mean moves by about a point between
     * evaluations, and its first crossing is as much chance as speed.
     */
    public double heldTimeToTarget(double target) {
        return heldFrom(meanAccuracyPerTick(), target);
    }

    /**
     * The time (s) of the first evaluation round at which {@link #worstAccuracyPerTick() the worst node's accuracy}
     * is at or above {@code target}, so every node's is; NaN when it never is.
     */
    public double worstTimeToTarget(double target) {
        return firstAtOrAbove(worstAccuracyPerTick(), target);
    }

    /**
     * The time (s) of the first evaluation round from which {@link #worstAccuracyPerTick() the worst node's
     * accuracy} stays at or above {@code target} to the end of the run; NaN when the last round is below it. As
     * {@link #heldTimeToTarget}, for the worst node, whose score swings more between evaluations than the mean does.
     */
    public double worstHeldTimeToTarget(double target) {
        return heldFrom(worstAccuracyPerTick(), target);
    }

    /** The time of the first round whose value in {@code perTick} is at or above {@code target}; NaN when none. */
    private double firstAtOrAbove(double[] perTick, double target) {
        for (int k = 0; k < perTick.length; k++) {
            if (perTick[k] >= target) {
                return scores.ticks()[k];
            }
        }
        return Double.NaN;
    }

    /**
     * The time of the first round from which every value in {@code perTick} to the end is at or above {@code
     * target}; NaN when the last one is below it.
     */
    private double heldFrom(double[] perTick, double target) {
        int from = -1;
        for (int k = perTick.length - 1; k >= 0 && perTick[k] >= target; k--) {
            from = k;
        }
        return from < 0 ? Double.NaN : scores.ticks()[from];
    }

    /** The median accuracy over nodes at each evaluation round (NaN where no node was scored). */
    public double[] medianAccuracyPerTick() {
        double[] out = new double[scores.ticks().length];
        for (int k = 0; k < out.length; k++) {
            final int tick = k;
            double[] acc = scores.samples().stream()
                    .filter(s -> s.tick() == tick)
                    .mapToDouble(Sample::accuracy)
                    .toArray();
            out[k] = acc.length == 0 ? Double.NaN : median(acc);
        }
        return out;
    }

    public static double median(double[] values) {
        if (values.length == 0) {
            return Double.NaN;
        }
        double[] v = values.clone();
        Arrays.sort(v);
        int n = v.length;
        return n % 2 == 1 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
    }

    public static double median(long[] values) {
        return median(Arrays.stream(values).asDoubleStream().toArray());
    }
}
