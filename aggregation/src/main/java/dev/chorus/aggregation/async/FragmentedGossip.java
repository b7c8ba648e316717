package dev.chorus.aggregation.async;

import dev.chorus.aggregation.AveragingMessage;
import dev.chorus.aggregation.AveragingStrategy;
import dev.chorus.aggregation.DeliveryFailure;
import dev.chorus.aggregation.InvalidUpdateException;
import dev.chorus.aggregation.LocalModel;
import dev.chorus.aggregation.ModelFragmentation;
import dev.chorus.aggregation.ModelUpdate;
import dev.chorus.aggregation.Outbound;
import dev.chorus.aggregation.PullRequest;
import dev.chorus.aggregation.Receipt;
import dev.chorus.aggregation.SelfCenteredClipping;
import dev.chorus.aggregation.weighting.UpdateWeighting;
import java.time.Instant;
import java.time.InstantSource;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.random.RandomGenerator;

/**
 * Fragmented asynchronous gossip: each round the model is cut into {@code F} fragments (the same cut on every
 * node, see {@link ModelFragmentation}), and each fragment is sent to {@code s} distinct random peers while
 * training goes on. A receiver accumulates, per coordinate, the weighted sum of the values it received and the
 * number of contributions; once the caller has handed it what arrived between two steps ({@link #mergeArrived}), or
 * at the start of its next round at the latest, it averages each coordinate over its own value and exactly the
 * contributions received for that coordinate since it last did:
 *
 * <pre>  x_i = (w_self x_i + sum_k w_k v_k,i) / (w_self + sum_k w_k)</pre>
 *
 * with the weights of {@link Config#weighting()} (all 1 by default: a plain per-coordinate average). Coordinates
 * that received nothing keep their value. A fragment is thus in the model from the step that takes it in, as a
 * gossiped model is: held until the next round, it would be missing from the steps trained meanwhile and from every
 * read of the model in between (a snapshot, the model a node ends with after its last round), and the more so where
 * fragments come in bunches, after the training thread has not run for a while. Fragments still queued when the
 * next round begins are dropped: a slow link delivers some fragments rather than a late full model.
 *
 * <p>Reference: S. Biswas, A.-M. Kermarrec, A. Marouani, R. Pires, R. Sharma, M. de Vos, "Boosting Asynchronous
 * Decentralized Learning with Model Fragmentation" (DivShare), The Web Conference (WWW) 2025, arXiv:2410.12918.
 *
 * <p>Memory: a float sum, a float weight, an int count and an int index per coordinate, preallocated; receiving a fragment
 * allocates nothing. The (fragment, peer) sends of a round are queued in random order, so when a slow link cuts
 * the round short the fragments lost are random ones rather than always the last.
 *
 * <p>A sender that sends the same fragment twice in one round is counted twice; the transport is expected to
 * deliver each message once.
 *
 * <p><b>Rate balance</b> ({@link Config#balanced()}, an addition to DivShare). Pushes with a fixed mixing weight
 * make the consensus a weighted mean of the nodes' models in which a node counts in proportion to the
 * coordinates it gets out over those it takes in: the left Perron vector of the mixing, uniform only when every
 * node sends as much as it receives (as pairwise push-pull does by construction). A node behind a slow link
 * sends fewer fragments than the others send it, so its shard is under-weighted in the consensus and the model
 * drifts towards the fast nodes' data (docs/aggregation.md, "The rate balance of the fragmented strategy"). With
 * the balance on, a node scales the share of its average that comes from what it received (per coordinate,
 * {@code sum_k w_k / (w_self + sum_k w_k)}, capped at all of it) by its ratio of coordinates delivered to
 * coordinates received, each an exponentially decayed count over about {@link #BALANCE_WINDOW_SECONDS} seconds,
 * clamped to [1/{@link #MAX_BALANCE}, {@link #MAX_BALANCE}]. A node that takes in more than it gets out then keeps
 * more of its own values, and each node's mixing rate times its in-rate matches its out-rate times the others'
 * mixing rates: the condition for a uniform consensus weight. The ratio is 1 until both counts have reached one
 * fragment's worth of coordinates.
 */
public final class FragmentedGossip implements AveragingStrategy {

    /**
     * @param fragments {@code F}: how many fragments the model is cut into; default {@link #defaultFragments}: 10,
     *     fewer for a model under 10 x {@link #MIN_DEFAULT_FRAGMENT_PARAMETERS} parameters
     * @param fanout {@code s}: how many distinct random peers each fragment goes to (all peers if fewer);
     *     default 3
     * @param seed the consortium's shared seed for the cut into fragments
     * @param weighting the weight of each contribution; default {@link UpdateWeighting#uniform()}, a plain
     *     average with counts
     * @param balanced whether the share of each average taken from received contributions is scaled by this
     *     node's ratio of coordinates delivered to coordinates received (see the class comment); default false,
     *     DivShare as published
     * @param screening the clipping of each received fragment around the local model's same coordinates
     *     ({@link SelfCenteredClipping}); null (the default) takes every finite fragment as it is
     */
    public record Config(
            int fragments,
            int fanout,
            long seed,
            UpdateWeighting weighting,
            boolean balanced,
            SelfCenteredClipping.Config screening) {

        /** DivShare as published: no rate balance, no screening. */
        public Config(int fragments, int fanout, long seed, UpdateWeighting weighting) {
            this(fragments, fanout, seed, weighting, false, null);
        }

        /** No screening. */
        public Config(int fragments, int fanout, long seed, UpdateWeighting weighting, boolean balanced) {
            this(fragments, fanout, seed, weighting, balanced, null);
        }

        public Config {
            if (fragments <= 0) {
                throw new IllegalArgumentException("fragment count must be positive, got " + fragments);
            }
            if (fanout <= 0) {
                throw new IllegalArgumentException("fanout must be positive, got " + fanout);
            }
            Objects.requireNonNull(weighting, "weighting");
        }

        /** {@link #defaultFragments} fragments of a model of {@code dimension} parameters, fanout 3, uniform. */
        public static Config defaults(long seed, int dimension) {
            return new Config(defaultFragments(dimension), 3, seed, UpdateWeighting.uniform());
        }

        /** This configuration with the rate balance on or off. */
        public Config withBalanced(boolean on) {
            return new Config(fragments, fanout, seed, weighting, on, screening);
        }

        /** This configuration with received fragments clipped as {@code screening} says; null: none. */
        public Config withScreening(SelfCenteredClipping.Config screening) {
            return new Config(fragments, fanout, seed, weighting, balanced, screening);
        }
    }

    /** Fragments per round by default, as in DivShare's experiments, for a model of at least 10 x 4096 parameters. */
    public static final int DEFAULT_FRAGMENTS = 10;

    /**
     * The fewest parameters a fragment holds when the fragment count is left to {@link #defaultFragments}. Every
     * fragment is a message of its own, with a 111-byte header (docs/protocol.md), an acknowledgement and a share
     * of a stream, and a message costs the CPUs at each end as much as many kilobytes of values do, so when CPU or the
     * exchanges in flight rather than the link bound what a node gets out, a model cut into small fragments gets
     * out a fraction of the values a whole model would, and each coordinate is mixed less often (docs/aggregation.md,
     * "The size of a fragment").
     */
    public static final int MIN_DEFAULT_FRAGMENT_PARAMETERS = 4096;

    /**
     * The default fragment count for a model of {@code dimension} parameters: {@link #DEFAULT_FRAGMENTS}, or fewer
     * so that each fragment holds at least {@link #MIN_DEFAULT_FRAGMENT_PARAMETERS} (one fragment, the whole model,
     * below twice that). Every node of a consortium derives the same count from the same model.
     */
    public static int defaultFragments(int dimension) {
        if (dimension <= 0) {
            throw new IllegalArgumentException("dimension must be positive, got " + dimension);
        }
        return Math.clamp(dimension / MIN_DEFAULT_FRAGMENT_PARAMETERS, 1, DEFAULT_FRAGMENTS);
    }

    /** The time constant of the decayed counts of coordinates delivered and received. */
    public static final double BALANCE_WINDOW_SECONDS = 5;
    /** The furthest the rate balance scales the share a node takes of what it receives, either way. */
    public static final double MAX_BALANCE = 16;

    private final Config config;
    /** Null when received fragments are taken unscreened. */
    private final SelfCenteredClipping screening;

    private final ModelFragmentation fragmentation;
    private final float[] weightedSum;
    private final float[] weightSum;
    private final int[] contributions;
    private final int[] seenStamp;
    /** The coordinates with a contribution since the last round, each once: a round merges only those. */
    private final int[] touched;

    private int touchedCount;
    private int stamp;
    private long newestReceivedVersion = -1;
    private final ArrayDeque<Outbound> queue = new ArrayDeque<>();
    private long rounds;
    private long droppedTotal;
    private int droppedLastRound;

    /** Coordinates handed out for sending since the last round, less those whose send failed. */
    private long deliveredSinceRound;
    /** Coordinates received since the last round. */
    private long receivedSinceRound;
    /** Decayed counts of coordinates delivered and received (see the rate balance in the class comment). */
    private double deliveredDecayed;

    private double receivedDecayed;
    private long lastRoundNanos = Long.MIN_VALUE;
    private double balance = 1;

    /**
     * @param config the parameters
     * @param dimension the model's parameter count
     */
    public FragmentedGossip(Config config, int dimension) {
        this.config = Objects.requireNonNull(config, "config");
        this.screening = config.screening() == null ? null : new SelfCenteredClipping(config.screening());
        this.fragmentation = new ModelFragmentation(dimension, config.fragments(), config.seed());
        this.weightedSum = new float[dimension];
        this.weightSum = new float[dimension];
        this.contributions = new int[dimension];
        this.seenStamp = new int[dimension];
        this.touched = new int[dimension];
    }

    public Config config() {
        return config;
    }

    @Override
    public Optional<SelfCenteredClipping> screening() {
        return Optional.ofNullable(screening);
    }

    /** Always present: the fragmentation seeded by {@link Config#seed()}. */
    @Override
    public Optional<ModelFragmentation> fragmentation() {
        return Optional.of(fragmentation);
    }

    /**
     * Starts a round: merges the contributions received since the last merge, drops the sends still queued, and
     * queues every fragment of a fresh snapshot to {@code s} random peers.
     */
    @Override
    public void configure(LocalModel local, List<String> peers, RandomGenerator random, InstantSource clock) {
        requireDimension(local);
        updateBalance(clock);
        applyReceived(local);
        droppedLastRound = queue.size();
        droppedTotal += droppedLastRound;
        queue.clear();
        rounds++;
        if (peers.isEmpty()) {
            return;
        }
        int fanout = Math.min(config.fanout(), peers.size());
        int[] order = new int[peers.size()];
        List<Outbound> sends = new ArrayList<>(fragmentation.fragmentCount() * fanout);
        float[] params = local.params();
        for (int f = 0; f < fragmentation.fragmentCount(); f++) {
            // One copy of the values per fragment, shared by its s messages.
            ModelUpdate fragment = ModelUpdate.fragment(
                    local.id(),
                    local.version(),
                    local.sampleCount(),
                    local.dimension(),
                    fragmentation.indices(f),
                    fragmentation.gather(f, params));
            for (int i = 0; i < order.length; i++) {
                order[i] = i;
            }
            // Partial Fisher-Yates: the first `fanout` entries become a uniform sample without replacement.
            for (int i = 0; i < fanout; i++) {
                int j = i + random.nextInt(order.length - i);
                int t = order[i];
                order[i] = order[j];
                order[j] = t;
                sends.add(new Outbound(peers.get(order[i]), fragment));
            }
        }
        for (int i = sends.size() - 1; i > 0; i--) {
            int j = random.nextInt(i + 1);
            Outbound t = sends.get(i);
            sends.set(i, sends.get(j));
            sends.set(j, t);
        }
        queue.addAll(sends);
    }

    /** Folds the counts since the last round into the decayed ones and recomputes {@link #balance()}. */
    private void updateBalance(InstantSource clock) {
        if (!config.balanced()) {
            return;
        }
        Instant now = clock.instant();
        long nanos = now.getEpochSecond() * 1_000_000_000L + now.getNano();
        double keep = lastRoundNanos == Long.MIN_VALUE
                ? 1
                : Math.exp(-Math.max(0, nanos - lastRoundNanos) / (BALANCE_WINDOW_SECONDS * 1e9));
        lastRoundNanos = nanos;
        deliveredDecayed = Math.max(0, deliveredDecayed * keep + deliveredSinceRound);
        receivedDecayed = receivedDecayed * keep + receivedSinceRound;
        deliveredSinceRound = 0;
        receivedSinceRound = 0;
        double enough = (double) fragmentation.dimension() / fragmentation.fragmentCount();
        if (deliveredDecayed < enough || receivedDecayed < enough) {
            balance = 1;
        } else {
            balance = Math.clamp(deliveredDecayed / receivedDecayed, 1 / MAX_BALANCE, MAX_BALANCE);
        }
    }

    private void applyReceived(LocalModel local) {
        if (newestReceivedVersion < 0) {
            return;
        }
        float self = (float) config.weighting().weight(local.sampleCount(), 0);
        float b = (float) balance;
        float[] x = local.params();
        for (int k = 0; k < touchedCount; k++) {
            int i = touched[k];
            float received = weightSum[i];
            float total = self + received;
            if (b == 1f) {
                if (total > 0) {
                    x[i] = (self * x[i] + weightedSum[i]) / total;
                }
            } else if (received > 0) {
                // The share of the average that comes from the contributions, scaled by the balance (at most all).
                float share = Math.min(1f, b * received / total);
                x[i] += share * (weightedSum[i] / received - x[i]);
            }
            weightedSum[i] = 0;
            weightSum[i] = 0;
            contributions[i] = 0;
        }
        touchedCount = 0;
        local.setVersion(Math.max(local.version(), newestReceivedVersion));
        newestReceivedVersion = -1;
    }

    @Override
    public Outbound pollOutbound() {
        Outbound o = queue.pollFirst();
        if (o != null) {
            deliveredSinceRound += coordinates(o.message());
        }
        return o;
    }

    private static int coordinates(AveragingMessage message) {
        if (message instanceof ModelUpdate u && u.content() == ModelUpdate.Content.PARAMETERS) {
            return u.indices() == null ? u.values().length : u.indices().length;
        }
        return 0;
    }

    @Override
    public int pendingOutbound() {
        return queue.size();
    }

    /** Accumulates a fragment (or a whole model) for the next merge ({@link #mergeArrived}); allocates nothing. */
    @Override
    public Receipt receive(AveragingMessage message, LocalModel local, InstantSource clock) {
        if (!(message instanceof ModelUpdate update) || update.content() != ModelUpdate.Content.PARAMETERS) {
            return Receipt.ignored(
                    Receipt.Outcome.IGNORED_UNEXPECTED,
                    "fragmented gossip takes parameter fragments, got " + describe(message));
        }
        requireDimension(local);
        update.requireDimension(local.dimension());
        int[] idx = update.indices();
        if (idx != null && !fragmentation.isFragment(idx)) {
            // The seeded fragments decoded from the wire share this fragmentation's own arrays, distinct by
            // construction; explicit coordinates are checked.
            requireDistinct(update, idx);
        }
        long lag = Math.max(0, local.version() - update.version());
        float w = (float) config.weighting().weight(update.sampleCount(), lag);
        if (screening != null) {
            return screened(update, local, clock, w);
        }
        float[] v = update.valuesNear(local.params());
        if (idx == null) {
            for (int i = 0; i < v.length; i++) {
                weightedSum[i] += w * v[i];
                weightSum[i] += w;
                if (contributions[i]++ == 0) {
                    touched[touchedCount++] = i;
                }
            }
        } else {
            for (int k = 0; k < idx.length; k++) {
                int i = idx[k];
                weightedSum[i] += w * v[k];
                weightSum[i] += w;
                if (contributions[i]++ == 0) {
                    touched[touchedCount++] = i;
                }
            }
        }
        receivedSinceRound += idx == null ? v.length : idx.length;
        newestReceivedVersion = Math.max(newestReceivedVersion, update.version());
        return Receipt.buffered();
    }

    /**
     * Accumulates {@code x_i + s (v - x_i)} over the update's coordinates, with {@code s} the factor of
     * {@link SelfCenteredClipping#admit} (clipped to the radius for its share of the coordinates); nothing when the
     * sender is excluded, or the fragment is too far, points away from the local coordinates or repeats one the
     * sender sent before.
     */
    private Receipt screened(ModelUpdate update, LocalModel local, InstantSource clock, float w) {
        long now = clock.millis();
        if (screening.excluded(update.sender(), now)) {
            return Receipt.ignored(Receipt.Outcome.IGNORED_UNEXPECTED, screening.refuse(update.sender(), now));
        }
        int[] idx = update.indices();
        float[] x = local.params();
        // Screening judges the model as its sender sent it (a repeat is a repeat whatever the receiver holds); what
        // it admits is mixed as read near the receiver's own values.
        float[] v = update.values();
        int k = idx == null ? v.length : idx.length;
        double distance = idx == null ? SelfCenteredClipping.distance(x, v) : SelfCenteredClipping.distance(x, idx, v);
        double norm = idx == null ? SelfCenteredClipping.norm(x) : SelfCenteredClipping.norm(x, idx);
        double s = screening.admit(update.sender(), idx, v, distance, norm, x.length, now);
        if (s == 0) {
            return Receipt.ignored(Receipt.Outcome.IGNORED_UNEXPECTED, screening.lastDrop());
        }
        float[] near = update.valuesNear(x);
        for (int j = 0; j < k; j++) {
            int i = idx == null ? j : idx[j];
            // In double precision: two finite floats far apart can differ by more than the largest float.
            float clippedValue = (float) (x[i] + s * ((double) near[j] - x[i]));
            weightedSum[i] += w * clippedValue;
            weightSum[i] += w;
            if (contributions[i]++ == 0) {
                touched[touchedCount++] = i;
            }
        }
        receivedSinceRound += k;
        newestReceivedVersion = Math.max(newestReceivedVersion, update.version());
        return Receipt.buffered();
    }

    private void requireDistinct(ModelUpdate update, int[] idx) {
        if (++stamp == 0) {
            java.util.Arrays.fill(seenStamp, 0);
            stamp = 1;
        }
        for (int k = 0; k < idx.length; k++) {
            int i = idx[k];
            if (seenStamp[i] == stamp) {
                throw new InvalidUpdateException(
                        "update from " + update.sender() + ": coordinate " + i + " appears twice");
            }
            seenStamp[i] = stamp;
        }
    }

    private void requireDimension(LocalModel local) {
        if (local.dimension() != fragmentation.dimension()) {
            throw new IllegalArgumentException("strategy was built for " + fragmentation.dimension()
                    + " parameters, the local model has " + local.dimension());
        }
    }

    /**
     * Averages each coordinate over its own value and the contributions received for it since the last merge (the
     * class comment's rule, with the rate balance as of the last round); nothing when none arrived.
     */
    @Override
    public void mergeArrived(LocalModel local) {
        requireDimension(local);
        applyReceived(local);
    }

    private static String describe(AveragingMessage message) {
        return message instanceof PullRequest ? "a pull request" : String.valueOf(message);
    }

    @Override
    public void onFailure(DeliveryFailure failure, LocalModel local, InstantSource clock) {
        // Fragments are fire-and-forget: a lost one is simply not counted by its receiver, nor as delivered here.
        if (failure.message() != null) {
            deliveredSinceRound -= coordinates(failure.message());
        }
    }

    /**
     * The factor on the share of each average this node takes from what it received: its ratio of coordinates
     * delivered to coordinates received, as of the last round; always 1 without {@link Config#balanced()}.
     */
    public double balance() {
        return balance;
    }

    /** Contributions received for {@code coordinate} since the last merge. */
    public int contributions(int coordinate) {
        return contributions[coordinate];
    }

    /** Rounds started so far. */
    public long rounds() {
        return rounds;
    }

    /** Fragment sends dropped because they were still queued when a round began, over all rounds. */
    public long droppedSends() {
        return droppedTotal;
    }

    /** Fragment sends dropped when the current round began. */
    public int droppedLastRound() {
        return droppedLastRound;
    }

    /** Merges keep the newer of the two versions. */
    @Override
    public boolean keepsTheNewestVersion() {
        return true;
    }
}
