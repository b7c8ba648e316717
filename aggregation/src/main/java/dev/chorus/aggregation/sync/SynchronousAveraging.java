package dev.chorus.aggregation.sync;

import dev.chorus.aggregation.AveragingMessage;
import dev.chorus.aggregation.AveragingStrategy;
import dev.chorus.aggregation.Barrier;
import dev.chorus.aggregation.DeliveryFailure;
import dev.chorus.aggregation.LocalModel;
import dev.chorus.aggregation.ModelUpdate;
import dev.chorus.aggregation.Outbound;
import dev.chorus.aggregation.Receipt;
import dev.chorus.aggregation.SelfCenteredClipping;
import dev.chorus.aggregation.robust.RobustAggregator;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.random.RandomGenerator;

/**
 * Synchronous averaging with a barrier, the baseline: in round {@code r} every participant sends its model to
 * every other one, waits until it holds all of them, and replaces its model by their average (weighted by sample
 * count, as FedAvg weights clients, or by a robust rule). Then round {@code r + 1} begins.
 *
 * <p>Reference: B. McMahan, E. Moore, D. Ramage, S. Hampson, B. Agüera y Arcas, "Communication-Efficient Learning
 * of Deep Networks from Decentralized Data" (FedAvg), AISTATS 2017, with the server's average computed by every
 * participant from an all-to-all exchange.
 *
 * <p>The barrier is explicit: {@link #phase()} is {@link RoundPhase#WAITING} from the node's {@link #configure}
 * (which sends its contribution) until the last contribution of the round arrives, and {@link #missing()} names
 * who is awaited. A contribution whose delivery failed is sent again to that peer, after 1 s, then 2, 4, up to
 * {@link #MAX_RETRY_DELAY} between attempts, for as long as the peer may still need it (its round or the one
 * before this node's): on a congested link a push can time out, and a barrier that never re-sent would wait for
 * good for a peer that waits in turn for this node. A participant that is gone blocks the round for good;
 * {@link #failedPeers()} shows it. This is the weakness the asynchronous strategies and {@link DeadlineAveraging}
 * remove. Contributions for the next round that arrive early are kept; older ones are ignored.
 */
public final class SynchronousAveraging implements AveragingStrategy, Barrier {

    /**
     * @param participants every node of the round, this one included
     * @param aggregation how a round's models are combined: weighted by sample count (FedAvg) by default, or by a
     *     robust rule, after an optional screening of each received model around this node's
     */
    public record Config(Set<String> participants, RoundAggregation aggregation) {

        public Config {
            participants = Collections.unmodifiableSet(new TreeSet<>(participants));
            if (participants.isEmpty()) {
                throw new IllegalArgumentException("no participants");
            }
            Objects.requireNonNull(aggregation, "aggregation");
        }

        /**
         * @param bySampleCount weight each model by its node's sample count (FedAvg)
         * @param robust a robust rule to use instead of the weighted mean, or {@code null}
         */
        public Config(Set<String> participants, boolean bySampleCount, RobustAggregator robust) {
            this(participants, new RoundAggregation(bySampleCount, robust, null));
        }

        public static Config of(Set<String> participants) {
            return new Config(participants, RoundAggregation.weightedMean());
        }

        public boolean bySampleCount() {
            return aggregation.bySampleCount();
        }

        public RobustAggregator robust() {
            return aggregation.robust();
        }
    }

    /** The first delay before a failed contribution is sent again; it doubles with each failure. */
    public static final Duration FIRST_RETRY_DELAY = Duration.ofSeconds(1);

    /** The longest delay between two attempts to deliver one contribution. */
    public static final Duration MAX_RETRY_DELAY = Duration.ofSeconds(8);

    /** A contribution to send again to {@code peer} once {@code due} has passed. */
    private record Retry(String peer, ModelUpdate contribution, Instant due) {}

    /** One contribution (by its round) to one peer. */
    private record Delivery(String peer, long round) {}

    private final Config config;
    private final String self;
    private final SelfCenteredClipping screening;
    private final ArrayDeque<Outbound> queue = new ArrayDeque<>();
    private final List<Retry> retries = new ArrayList<>();
    private final Map<Delivery, Integer> failures = new HashMap<>();
    private ModelUpdate lastContribution;
    private InstantSource clock;
    private final RoundContributions current = new RoundContributions();
    private final RoundContributions next = new RoundContributions();
    private final Set<String> failed = new LinkedHashSet<>();
    private long round;
    private RoundPhase phase = RoundPhase.TRAINING;
    private boolean retired;

    /**
     * @param config the parameters
     * @param self this node's id, one of the participants
     */
    public SynchronousAveraging(Config config, String self) {
        this.config = Objects.requireNonNull(config, "config");
        this.self = Objects.requireNonNull(self, "self");
        this.screening = config.aggregation().newScreening();
        if (!config.participants().contains(self)) {
            throw new IllegalArgumentException(self + " is not among the participants " + config.participants());
        }
    }

    public Config config() {
        return config;
    }

    /** Sends this node's contribution to the current round, if not sent yet. The peer list is not used. */
    @Override
    public void configure(LocalModel local, List<String> peers, RandomGenerator random, InstantSource clock) {
        requireSelf(local);
        this.clock = clock;
        if (phase != RoundPhase.TRAINING) {
            return;
        }
        float[] snapshot = local.snapshot();
        long samples = retired ? 0 : local.sampleCount();
        current.add(self, snapshot, weight(samples));
        ModelUpdate contribution = ModelUpdate.full(self, round, samples, snapshot);
        lastContribution = contribution;
        for (String p : config.participants()) {
            if (!p.equals(self)) {
                queue.add(new Outbound(p, contribution));
            }
        }
        phase = RoundPhase.WAITING;
        completeIfReady(local, clock);
    }

    /** The next message to send: a new contribution, or a failed one whose retry delay has passed. */
    @Override
    public Outbound pollOutbound() {
        Outbound o = queue.pollFirst();
        if (o != null || retries.isEmpty() || clock == null) {
            return o;
        }
        Instant now = clock.instant();
        for (Iterator<Retry> it = retries.iterator(); it.hasNext(); ) {
            Retry r = it.next();
            if (!needs(r.peer(), r.contribution().version())) {
                it.remove();
            } else if (!r.due().isAfter(now)) {
                it.remove();
                return new Outbound(r.peer(), r.contribution());
            }
        }
        return null;
    }

    /**
     * Whether {@code peer} may still need this node's contribution to {@code contributionRound}: peers are at
     * most one round apart, and a peer whose contribution to the following round is here has finished that one.
     */
    private boolean needs(String peer, long contributionRound) {
        if (contributionRound == round - 1) {
            return !current.contains(peer);
        }
        return contributionRound == round && !next.contains(peer);
    }

    /** Messages queued to be sent, retries included (whether due or not). */
    @Override
    public int pendingOutbound() {
        return queue.size() + retries.size();
    }

    @Override
    public Receipt receive(AveragingMessage message, LocalModel local, InstantSource clock) {
        requireSelf(local);
        if (!(message instanceof ModelUpdate update)
                || update.content() != ModelUpdate.Content.PARAMETERS
                || update.isFragment()) {
            return Receipt.ignored(Receipt.Outcome.IGNORED_UNEXPECTED, "synchronous averaging takes whole models");
        }
        String sender = update.sender();
        if (!config.participants().contains(sender) || sender.equals(self)) {
            return Receipt.ignored(Receipt.Outcome.IGNORED_UNEXPECTED, sender + " is not another participant");
        }
        update.requireDimension(local.dimension());
        long v = update.version();
        if (v < round) {
            return Receipt.ignored(
                    Receipt.Outcome.IGNORED_STALE, "contribution of " + sender + " to round " + v + ", now " + round);
        }
        if (v > round + 1) {
            return Receipt.ignored(
                    Receipt.Outcome.IGNORED_UNEXPECTED,
                    sender + " sent round " + v + " while this node is at round " + round);
        }
        RoundContributions target = v == round ? current : next;
        if (target.contains(sender)) {
            return Receipt.ignored(Receipt.Outcome.IGNORED_DUPLICATE, sender + " already contributed to round " + v);
        }
        target.add(sender, update.values(), weight(update.sampleCount()));
        return completeIfReady(local, clock) ? Receipt.merged() : Receipt.buffered();
    }

    private boolean completeIfReady(LocalModel local, InstantSource clock) {
        if (phase != RoundPhase.WAITING
                || current.size() < config.participants().size()) {
            return false;
        }
        if (screening != null) {
            current.screen(self, local.params(), screening, clock.millis());
        }
        current.aggregateInto(local.params(), config.robust());
        current.clear();
        current.takeAll(next);
        failed.clear();
        round++;
        phase = RoundPhase.TRAINING;
        retries.removeIf(r -> !needs(r.peer(), r.contribution().version()));
        failures.keySet().removeIf(d -> !needs(d.peer(), d.round()));
        return true;
    }

    private double weight(long sampleCount) {
        return config.bySampleCount() ? sampleCount : 1.0;
    }

    private void requireSelf(LocalModel local) {
        if (!local.id().equals(self)) {
            throw new IllegalArgumentException("strategy of " + self + " called with the model of " + local.id());
        }
    }

    /** The screening of received models ({@link RoundAggregation#screening()}), when configured. */
    @Override
    public Optional<SelfCenteredClipping> screening() {
        return Optional.ofNullable(screening);
    }

    /** The barrier waits for every participant's contribution: a refused send only delays the round by a retry. */
    @Override
    public boolean awaitsEveryRecipient() {
        return true;
    }

    /** False: a contribution's version is its round number, not a step count. */
    @Override
    public boolean versionsComparable() {
        return false;
    }

    /** Always present: this strategy itself, whose rounds every participant ends together. */
    @Override
    public Optional<Barrier> barrier() {
        return Optional.of(this);
    }

    /**
     * Records the failure and schedules the contribution that failed (this node's latest one when the failure names
     * none) to be sent again, if the peer may still need it; the barrier still waits for that peer.
     */
    @Override
    public void onFailure(DeliveryFailure failure, LocalModel local, InstantSource clock) {
        this.clock = clock;
        String peer = failure.peer();
        if (!config.participants().contains(peer) || peer.equals(self)) {
            return;
        }
        failed.add(peer);
        ModelUpdate c = failure.message() instanceof ModelUpdate u && u.sender().equals(self) ? u : lastContribution;
        if (c == null || !needs(peer, c.version())) {
            return;
        }
        int n = failures.merge(new Delivery(peer, c.version()), 1, Integer::sum);
        Duration delay = FIRST_RETRY_DELAY.multipliedBy(1L << Math.min(n - 1, 16));
        if (delay.compareTo(MAX_RETRY_DELAY) > 0) {
            delay = MAX_RETRY_DELAY;
        }
        retries.removeIf(r -> r.peer().equals(peer) && r.contribution().version() == c.version());
        retries.add(new Retry(peer, c, clock.instant().plus(delay)));
    }

    /**
     * Marks this node as done training (e.g. at the end of its epochs, when nodes with fewer rows finish after fewer
     * rounds). From then on its contributions carry a sample count of 0: with sample-count weighting (the default)
     * they leave the average to the nodes still training, and still complete the rounds those nodes start, which
     * would otherwise wait for it. The node keeps adopting each round's average. With uniform weights or a robust
     * rule its model still counts as one of the inputs.
     */
    @Override
    public void retire() {
        retired = true;
    }

    /**
     * For a retired node: whether another participant has begun the current round (its contribution is here) and
     * this node has not contributed yet, so it should contribute now.
     */
    @Override
    public boolean peerBeganRound() {
        return phase == RoundPhase.TRAINING
                && missing().size() < config.participants().size();
    }

    /** The current round, from 0. */
    @Override
    public long round() {
        return round;
    }

    public RoundPhase phase() {
        return phase;
    }

    /** Whether the trainer must wait: this node's contribution is sent and the round is not complete. */
    @Override
    public boolean atBarrier() {
        return phase == RoundPhase.WAITING;
    }

    /** Participants whose contribution to the current round is not here yet (this node included until sent). */
    @Override
    public Set<String> missing() {
        Set<String> missing = new TreeSet<>(config.participants());
        missing.removeAll(current.senders());
        return missing;
    }

    /** Participants reported failed during the current round. */
    public Set<String> failedPeers() {
        return Collections.unmodifiableSet(failed);
    }
}
