package dev.chorus.aggregation.sync;

import dev.chorus.aggregation.AveragingMessage;
import dev.chorus.aggregation.AveragingStrategy;
import dev.chorus.aggregation.DeliveryFailure;
import dev.chorus.aggregation.LocalModel;
import dev.chorus.aggregation.ModelUpdate;
import dev.chorus.aggregation.Outbound;
import dev.chorus.aggregation.Receipt;
import dev.chorus.aggregation.SeededPermutation;
import dev.chorus.aggregation.SelfCenteredClipping;
import dev.chorus.aggregation.robust.RobustAggregator;
import dev.chorus.aggregation.weighting.StalenessWeighting;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.ArrayDeque;
import java.util.Collections;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.TreeSet;
import java.util.random.RandomGenerator;

/**
 * Synchronous averaging with a deadline and partial participation. Each round has a cohort: a fraction {@code C}
 * of the participants, drawn from a seed shared by the consortium and the round number, so every node derives the
 * same cohort without talking. Cohort members send their model to every participant; every node (in the cohort
 * or not) closes the round when all cohort members that have not failed have contributed, or when the deadline
 * passes, and replaces its model by the average of what it holds, provided it holds at least
 * {@code minContributions} models; otherwise it keeps its model and moves on.
 *
 * <p>A contribution that arrives up to {@code maxLateRounds} rounds late is folded into the current round with
 * weight {@code s(lag)} (a {@link StalenessWeighting}), the way late secure-aggregation updates are folded into the next round.
 *
 * <p>Reference: B. McMahan, E. Moore, D. Ramage, S. Hampson, B. Agüera y Arcas, "Communication-Efficient Learning
 * of Deep Networks from Decentralized Data" (FedAvg), AISTATS 2017: client fraction {@code C} per round; K.
 * Bonawitz et al., "Towards Federated Learning at Scale: System Design", MLSys 2019: rounds with a reporting
 * deadline that close with the devices that reported in time.
 *
 * <p>Rounds close only when this object is called: the node calls {@link #configure} on a timer while
 * {@link #phase()} is {@link RoundPhase#WAITING}. The round opens at the first {@code configure} and, afterwards,
 * when the previous round closes; the deadline counts from the opening.
 */
public final class DeadlineAveraging implements AveragingStrategy {

    /**
     * How contributions that arrive after their round closed are treated.
     *
     * @param maxRounds how many rounds late a contribution may be and still count; 0 drops late ones
     * @param weighting the weight of a contribution {@code lag} rounds late
     */
    public record LateContributions(int maxRounds, StalenessWeighting weighting) {

        public LateContributions {
            if (maxRounds < 0) {
                throw new IllegalArgumentException("max late rounds must be >= 0, got " + maxRounds);
            }
            Objects.requireNonNull(weighting, "lateWeighting");
        }
    }

    /**
     * @param participants every node of the consortium, this one included
     * @param participation {@code C} in {@code (0, 1]}: the fraction of participants in each round's cohort (at
     *     least one); default 1.0
     * @param cohortSeed the consortium's shared seed for drawing cohorts
     * @param roundDeadline how long a round stays open; default 60 s
     * @param minContributions the fewest models a round needs to be averaged; default 1
     * @param late which late contributions still count, and how much; default none (0 rounds), weighted
     *     {@code (1 + lag)^-0.5} where rounds are allowed
     * @param aggregation how a round's models are combined: weighted by sample count by default, or by a robust rule
     *     (which ignores weights), after an optional screening of each received model around this node's
     */
    public record Config(
            Set<String> participants,
            double participation,
            long cohortSeed,
            Duration roundDeadline,
            int minContributions,
            LateContributions late,
            RoundAggregation aggregation) {

        public Config {
            participants = Collections.unmodifiableSet(new TreeSet<>(participants));
            if (participants.isEmpty()) {
                throw new IllegalArgumentException("no participants");
            }
            if (!(participation > 0 && participation <= 1)) {
                throw new IllegalArgumentException("participation must be in (0, 1], got " + participation);
            }
            Objects.requireNonNull(roundDeadline, "roundDeadline");
            if (roundDeadline.isNegative() || roundDeadline.isZero()) {
                throw new IllegalArgumentException("round deadline must be positive, got " + roundDeadline);
            }
            if (minContributions < 1) {
                throw new IllegalArgumentException("min contributions must be >= 1, got " + minContributions);
            }
            Objects.requireNonNull(late, "late");
            Objects.requireNonNull(aggregation, "aggregation");
        }

        public static Config defaults(Set<String> participants, long cohortSeed) {
            return new Config(
                    participants,
                    1.0,
                    cohortSeed,
                    Duration.ofSeconds(60),
                    1,
                    new LateContributions(0, StalenessWeighting.polynomial(0.5)),
                    RoundAggregation.weightedMean());
        }

        public boolean bySampleCount() {
            return aggregation.bySampleCount();
        }

        public RobustAggregator robust() {
            return aggregation.robust();
        }

        /** How many rounds late a contribution may be and still count ({@link LateContributions#maxRounds()}). */
        public int maxLateRounds() {
            return late.maxRounds();
        }

        /** The weight of a late contribution ({@link LateContributions#weighting()}). */
        public StalenessWeighting lateWeighting() {
            return late.weighting();
        }

        public Config withParticipation(double participation) {
            return new Config(
                    participants, participation, cohortSeed, roundDeadline, minContributions, late, aggregation);
        }

        public Config withRoundDeadline(Duration roundDeadline) {
            return new Config(
                    participants, participation, cohortSeed, roundDeadline, minContributions, late, aggregation);
        }

        public Config withMinContributions(int minContributions) {
            return new Config(
                    participants, participation, cohortSeed, roundDeadline, minContributions, late, aggregation);
        }

        public Config withLateRounds(int maxLateRounds, StalenessWeighting lateWeighting) {
            return new Config(
                    participants,
                    participation,
                    cohortSeed,
                    roundDeadline,
                    minContributions,
                    new LateContributions(maxLateRounds, lateWeighting),
                    aggregation);
        }

        public Config withAggregation(RoundAggregation aggregation) {
            return new Config(
                    participants, participation, cohortSeed, roundDeadline, minContributions, late, aggregation);
        }
    }

    /** How a round ended. */
    public enum RoundResult {
        /** Averaged after every cohort member that had not failed contributed. */
        COMPLETE,
        /** Averaged at the deadline with the contributions at hand. */
        DEADLINE,
        /** Too few contributions at the deadline: the local model was kept. */
        ABANDONED
    }

    /**
     * The highest round a contribution may name. Rounds come one per exchange, so no consortium reaches it, and a
     * node that joins a sender's round (catching up) can count on from there without overflow.
     */
    public static final long MAX_ROUND = 1L << 48;

    private final Config config;
    private final String self;
    private final SelfCenteredClipping screening;
    private final List<String> ordered;
    private final ArrayDeque<Outbound> queue = new ArrayDeque<>();
    private final RoundContributions current = new RoundContributions();
    private final RoundContributions next = new RoundContributions();
    private final RoundContributions late = new RoundContributions();
    private final Set<String> failed = new LinkedHashSet<>();
    private long round;
    private RoundPhase phase = RoundPhase.TRAINING;
    private long openedAtMillis = -1;
    private Set<String> cohort;
    private RoundResult lastResult;
    private long abandonedRounds;
    private long caughtUp;

    /**
     * @param config the parameters
     * @param self this node's id, one of the participants
     */
    public DeadlineAveraging(Config config, String self) {
        this.config = Objects.requireNonNull(config, "config");
        this.self = Objects.requireNonNull(self, "self");
        this.screening = config.aggregation().newScreening();
        if (!config.participants().contains(self)) {
            throw new IllegalArgumentException(self + " is not among the participants " + config.participants());
        }
        this.ordered = List.copyOf(config.participants());
        this.cohort = cohortOf(0);
    }

    public Config config() {
        return config;
    }

    /** The cohort of round {@code r}: the same on every node that shares the seed and the participant set. */
    public Set<String> cohortOf(long r) {
        int size = Math.max(1, (int) Math.ceil(config.participation() * ordered.size()));
        int[] p = SeededPermutation.of(ordered.size(), SeededPermutation.derive(config.cohortSeed(), r));
        Set<String> chosen = new TreeSet<>();
        for (int i = 0; i < size; i++) {
            chosen.add(ordered.get(p[i]));
        }
        return Collections.unmodifiableSet(chosen);
    }

    /**
     * Opens the first round if needed, sends this node's contribution when it is in the cohort, and closes the
     * round if it is complete or past its deadline. The peer list is not used.
     */
    @Override
    public void configure(LocalModel local, List<String> peers, RandomGenerator random, InstantSource clock) {
        requireSelf(local);
        long now = clock.millis();
        if (openedAtMillis < 0) {
            openedAtMillis = now;
        }
        if (phase == RoundPhase.TRAINING) {
            if (cohort.contains(self)) {
                float[] snapshot = local.snapshot();
                current.add(self, snapshot, weight(local.sampleCount()));
                ModelUpdate contribution = ModelUpdate.full(self, round, local.sampleCount(), snapshot);
                for (String p : ordered) {
                    if (!p.equals(self)) {
                        queue.add(new Outbound(p, contribution));
                    }
                }
            }
            phase = RoundPhase.WAITING;
        }
        closeIfDue(local, now);
    }

    @Override
    public Outbound pollOutbound() {
        return queue.pollFirst();
    }

    @Override
    public int pendingOutbound() {
        return queue.size();
    }

    @Override
    public Receipt receive(AveragingMessage message, LocalModel local, InstantSource clock) {
        requireSelf(local);
        if (!(message instanceof ModelUpdate update)
                || update.content() != ModelUpdate.Content.PARAMETERS
                || update.isFragment()) {
            return Receipt.ignored(Receipt.Outcome.IGNORED_UNEXPECTED, "deadline averaging takes whole models");
        }
        String sender = update.sender();
        if (!config.participants().contains(sender) || sender.equals(self)) {
            return Receipt.ignored(Receipt.Outcome.IGNORED_UNEXPECTED, sender + " is not another participant");
        }
        update.requireDimension(local.dimension());
        long v = update.version();
        if (v < 0 || v > MAX_ROUND) {
            // A sender names the round; one near Long.MAX_VALUE would make this node's round counter overflow.
            return Receipt.ignored(
                    Receipt.Outcome.IGNORED_UNEXPECTED, sender + " sent round " + v + ", outside 0.." + MAX_ROUND);
        }
        Set<String> cohortOfV = v == round ? cohort : cohortOf(v);
        if (!cohortOfV.contains(sender)) {
            return Receipt.ignored(Receipt.Outcome.IGNORED_UNEXPECTED, sender + " is not in the cohort of round " + v);
        }
        if (v > round + 1) {
            // Behind the sender: this node's rounds are closed as they stand and it joins the sender's round.
            boolean averaged = catchUp(local, v, clock.millis());
            current.add(sender, update.values(), weight(update.sampleCount()));
            return averaged ? Receipt.merged() : Receipt.buffered();
        }
        if (v == round + 1) {
            if (next.contains(sender)) {
                return Receipt.ignored(Receipt.Outcome.IGNORED_DUPLICATE, sender + " already sent round " + v);
            }
            next.add(sender, update.values(), weight(update.sampleCount()));
            return Receipt.buffered();
        }
        if (v == round) {
            if (current.contains(sender)) {
                return Receipt.ignored(Receipt.Outcome.IGNORED_DUPLICATE, sender + " already sent round " + v);
            }
            current.add(sender, update.values(), weight(update.sampleCount()));
        } else {
            long lag = round - v;
            if (lag > config.maxLateRounds()) {
                return Receipt.ignored(
                        Receipt.Outcome.IGNORED_STALE,
                        "contribution of " + sender + " is " + lag + " rounds late, at most " + config.maxLateRounds()
                                + " accepted");
            }
            String key = sender + "#" + v;
            if (late.contains(key)) {
                return Receipt.ignored(Receipt.Outcome.IGNORED_DUPLICATE, sender + " already sent round " + v);
            }
            late.add(
                    key,
                    update.values(),
                    weight(update.sampleCount()) * config.lateWeighting().weight(lag));
        }
        return closeIfDue(local, clock.millis()) ? Receipt.merged() : Receipt.buffered();
    }

    private boolean closeIfDue(LocalModel local, long now) {
        if (phase != RoundPhase.WAITING) {
            return false;
        }
        boolean complete = true;
        for (String member : cohort) {
            if (!current.contains(member) && !failed.contains(member)) {
                complete = false;
                break;
            }
        }
        if (!complete && now < openedAtMillis + config.roundDeadline().toMillis()) {
            return false;
        }
        boolean averaged = closeRound(local, complete, now);
        current.takeAll(next);
        round++;
        cohort = cohortOf(round);
        openedAtMillis = now;
        phase = RoundPhase.TRAINING;
        return averaged;
    }

    /**
     * Closes the current round as it stands (and drops what was held for the next one) and opens round {@code
     * target}, in which this node has not contributed yet. Nodes whose rounds drifted apart (one started later, or
     * its peers were unreachable for a while and its rounds closed early) so meet at the furthest one's round
     * instead of ignoring each other's contributions as being from the wrong round.
     */
    private boolean catchUp(LocalModel local, long target, long now) {
        // Before this node contributed, what it holds is others' models without its own: not averaged, dropped.
        boolean averaged = phase == RoundPhase.WAITING && closeRound(local, false, now);
        current.clear();
        late.clear();
        next.clear();
        failed.clear();
        queue.clear(); // contributions to a round that is over, not sent yet
        round = target;
        cohort = cohortOf(round);
        openedAtMillis = now;
        phase = RoundPhase.TRAINING;
        caughtUp++;
        return averaged;
    }

    /** Averages the current round's contributions (late ones included) into the model when there are enough. */
    private boolean closeRound(LocalModel local, boolean complete, long now) {
        current.takeAll(late);
        boolean averaged = current.size() >= config.minContributions();
        if (averaged) {
            if (screening != null) {
                current.screen(self, local.params(), screening, now);
            }
            current.aggregateInto(local.params(), config.robust());
            lastResult = complete ? RoundResult.COMPLETE : RoundResult.DEADLINE;
        } else {
            lastResult = RoundResult.ABANDONED;
            abandonedRounds++;
        }
        current.clear();
        failed.clear();
        return averaged;
    }

    /** The screening of received models ({@link RoundAggregation#screening()}), when configured. */
    @Override
    public java.util.Optional<SelfCenteredClipping> screening() {
        return java.util.Optional.ofNullable(screening);
    }

    private double weight(long sampleCount) {
        return config.bySampleCount() ? sampleCount : 1.0;
    }

    private void requireSelf(LocalModel local) {
        if (!local.id().equals(self)) {
            throw new IllegalArgumentException("strategy of " + self + " called with the model of " + local.id());
        }
    }

    /** A member whose contribution is refused drops out of the round, so none is refused for being slow. */
    @Override
    public boolean awaitsEveryRecipient() {
        return true;
    }

    /** False: a contribution's version is its round number, not a step count. */
    @Override
    public boolean versionsComparable() {
        return false;
    }

    /** A failed cohort member is no longer awaited: the round may close without it before the deadline. */
    @Override
    public void onFailure(DeliveryFailure failure, LocalModel local, InstantSource clock) {
        requireSelf(local);
        if (config.participants().contains(failure.peer())) {
            failed.add(failure.peer());
            closeIfDue(local, clock.millis());
        }
    }

    /** How many times this node jumped ahead to a sender's later round. */
    public long caughtUp() {
        return caughtUp;
    }

    /** The current round, from 0. */
    public long round() {
        return round;
    }

    public RoundPhase phase() {
        return phase;
    }

    /** The current round's cohort. */
    public Set<String> cohort() {
        return cohort;
    }

    /** When the current round closes at the latest, or {@code null} before the first round opens. */
    public Instant deadline() {
        return openedAtMillis < 0
                ? null
                : Instant.ofEpochMilli(openedAtMillis + config.roundDeadline().toMillis());
    }

    /** Cohort members whose contribution to the current round is not here yet and who have not failed. */
    public Set<String> missing() {
        Set<String> missing = new TreeSet<>(cohort);
        missing.removeAll(current.senders());
        missing.removeAll(failed);
        return missing;
    }

    /** Contributions held for the current round, late ones included. */
    public int contributionsHeld() {
        return current.size() + late.size();
    }

    /** How the last closed round ended, or {@code null} if none has closed. */
    public RoundResult lastResult() {
        return lastResult;
    }

    /** Rounds closed with too few contributions. */
    public long abandonedRounds() {
        return abandonedRounds;
    }

    /** The members of the current cohort that the transport reported failed. */
    public Set<String> failedPeers() {
        return Collections.unmodifiableSet(new TreeSet<>(failed));
    }
}
