package dev.chorus.aggregation.async;

import dev.chorus.aggregation.AveragingMessage;
import dev.chorus.aggregation.AveragingStrategy;
import dev.chorus.aggregation.DeliveryFailure;
import dev.chorus.aggregation.InvalidUpdateException;
import dev.chorus.aggregation.LocalModel;
import dev.chorus.aggregation.ModelUpdate;
import dev.chorus.aggregation.Outbound;
import dev.chorus.aggregation.PullRequest;
import dev.chorus.aggregation.Receipt;
import dev.chorus.aggregation.robust.RobustAggregator;
import dev.chorus.aggregation.weighting.StalenessWeighting;
import dev.chorus.aggregation.weighting.UpdateWeighting;
import java.time.Duration;
import java.time.InstantSource;
import java.util.ArrayDeque;
import java.util.List;
import java.util.Objects;
import java.util.random.RandomGenerator;

/**
 * Buffered asynchronous aggregation: an aggregator node keeps the shared model; contributors pull it, train,
 * and send back the delta; the aggregator adds each delta to a buffer, weighted by its staleness, and once
 * {@code K} deltas are buffered applies their average with a server learning rate and bumps the version.
 *
 * <pre>  x += eta_g * (sum_k s(tau_k) m_k delta_k) / (sum_k m_k)</pre>
 *
 * where {@code tau_k} is how many versions the model a delta was computed against lags the current one,
 * {@code s} the staleness function and {@code m_k} the sender's sample count when weighting by sample count,
 * else 1 (so the denominator is {@code K}, as in the paper).
 *
 * <p>Reference: J. Nguyen, K. Malik, H. Zhan, A. Yousefpour, M. Rabbat, M. Malek, D. Huba, "Federated Learning
 * with Buffered Asynchronous Aggregation" (FedBuff), AISTATS 2022.
 *
 * <p>Any node can hold the {@link Role#AGGREGATOR} role; the others are {@link Role#CONTRIBUTOR}s naming it. The
 * aggregator does not train: its {@link LocalModel#version()} counts applied buffers. A contributor queues, at a
 * {@link #configure} after at least one local step on a pulled model, its delta and a pull for the next model; it
 * keeps training meanwhile, and the pulled model replaces its parameters when it arrives. A pull unanswered after
 * {@link Config#pullTimeout()}, or a failure reported for the aggregator, is retried at the next configure.
 * The buffer is preallocated: buffering a delta allocates nothing.
 *
 * <p>With a {@linkplain Config#robust() robust rule} the aggregator keeps the {@code K} deltas apart, each scaled by
 * its staleness weight {@code s(tau_k)} (the rule ignores sample counts), and applies
 * {@code x += eta_g * rule(s(tau_1) delta_1, ..., s(tau_K) delta_K)}: a few contributors sending arbitrary deltas
 * move the model no further than the rule's bound allows, where one huge delta would drag the mean anywhere.
 */
public final class BufferedAsynchronousAggregation implements AveragingStrategy {

    /** The part a node plays. */
    public enum Role {
        AGGREGATOR,
        CONTRIBUTOR
    }

    /**
     * @param bufferSize {@code K}: deltas per applied step; default 10
     * @param serverLearningRate {@code eta_g > 0}: the step applied to the buffered average; default 1.0
     * @param weighting staleness function and sample-count weighting; default {@code 1/sqrt(1+tau)}
     *     (polynomial, exponent 0.5, as in the paper) without sample-count weighting
     * @param maxStaleness deltas lagging more versions than this are dropped; default {@link Long#MAX_VALUE}
     *     (none dropped)
     * @param pullTimeout how long a contributor waits for the model before pulling again; default 30 s
     * @param robust a robust rule applied to the buffered deltas instead of their weighted mean, or {@code null}
     *     (default); it must accept {@code bufferSize} inputs
     */
    public record Config(
            int bufferSize,
            double serverLearningRate,
            UpdateWeighting weighting,
            long maxStaleness,
            Duration pullTimeout,
            RobustAggregator robust) {

        public Config {
            if (bufferSize <= 0) {
                throw new IllegalArgumentException("buffer size K must be positive, got " + bufferSize);
            }
            if (!(serverLearningRate > 0) || Double.isInfinite(serverLearningRate)) {
                throw new IllegalArgumentException(
                        "server learning rate must be finite and > 0, got " + serverLearningRate);
            }
            Objects.requireNonNull(weighting, "weighting");
            if (maxStaleness < 0) {
                throw new IllegalArgumentException("max staleness must be >= 0, got " + maxStaleness);
            }
            Objects.requireNonNull(pullTimeout, "pullTimeout");
            if (pullTimeout.isNegative() || pullTimeout.isZero()) {
                throw new IllegalArgumentException("pull timeout must be positive, got " + pullTimeout);
            }
        }

        /** Without a robust rule: the weighted mean of the buffer, as in the paper. */
        public Config(
                int bufferSize,
                double serverLearningRate,
                UpdateWeighting weighting,
                long maxStaleness,
                Duration pullTimeout) {
            this(bufferSize, serverLearningRate, weighting, maxStaleness, pullTimeout, null);
        }

        public static Config defaults() {
            return new Config(
                    10,
                    1.0,
                    new UpdateWeighting(StalenessWeighting.polynomial(0.5), false),
                    Long.MAX_VALUE,
                    Duration.ofSeconds(30));
        }

        public Config withBufferSize(int bufferSize) {
            return new Config(bufferSize, serverLearningRate, weighting, maxStaleness, pullTimeout, robust);
        }

        public Config withRobust(RobustAggregator robust) {
            return new Config(bufferSize, serverLearningRate, weighting, maxStaleness, pullTimeout, robust);
        }
    }

    private enum ContributorState {
        NEEDS_MODEL,
        AWAITING_MODEL,
        TRAINING
    }

    private final Config config;
    private final Role role;
    private final String aggregatorId;
    private final ArrayDeque<Outbound> queue = new ArrayDeque<>();

    // Aggregator state.
    private final float[] buffer;
    // With a robust rule: one row per buffered delta, scaled by its staleness weight.
    private final float[][] rows;
    private double bufferMass;
    private int buffered;
    private long appliedBuffers;

    // Contributor state.
    private final float[] base;
    private long baseVersion;
    private ContributorState state = ContributorState.NEEDS_MODEL;
    private long pullSentMillis;

    /**
     * @param config the parameters
     * @param role this node's role
     * @param aggregatorId the aggregator's node id (this node's own id for the aggregator)
     * @param dimension the model's parameter count
     */
    public BufferedAsynchronousAggregation(Config config, Role role, String aggregatorId, int dimension) {
        this.config = Objects.requireNonNull(config, "config");
        this.role = Objects.requireNonNull(role, "role");
        this.aggregatorId = Objects.requireNonNull(aggregatorId, "aggregatorId");
        if (dimension <= 0) {
            throw new IllegalArgumentException("dimension must be positive, got " + dimension);
        }
        this.buffer = role == Role.AGGREGATOR ? new float[dimension] : null;
        this.rows =
                role == Role.AGGREGATOR && config.robust() != null ? new float[config.bufferSize()][dimension] : null;
        this.base = role == Role.CONTRIBUTOR ? new float[dimension] : null;
    }

    public Config config() {
        return config;
    }

    public Role role() {
        return role;
    }

    @Override
    public void configure(LocalModel local, List<String> peers, RandomGenerator random, InstantSource clock) {
        if (role == Role.AGGREGATOR) {
            return;
        }
        requireDimension(local);
        long now = clock.millis();
        switch (state) {
            case NEEDS_MODEL -> pull(local, now);
            case AWAITING_MODEL -> {
                if (now - pullSentMillis >= config.pullTimeout().toMillis()) {
                    pull(local, now);
                }
            }
            case TRAINING -> {
                if (local.version() > baseVersion) {
                    float[] x = local.params();
                    float[] delta = new float[x.length];
                    for (int i = 0; i < x.length; i++) {
                        delta[i] = x[i] - base[i];
                    }
                    queue.add(new Outbound(
                            aggregatorId, ModelUpdate.delta(local.id(), baseVersion, local.sampleCount(), delta)));
                    pull(local, now);
                }
            }
        }
    }

    private void pull(LocalModel local, long now) {
        queue.add(new Outbound(aggregatorId, new PullRequest(local.id(), local.version(), null)));
        state = ContributorState.AWAITING_MODEL;
        pullSentMillis = now;
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
        requireDimension(local);
        return role == Role.AGGREGATOR ? receiveAsAggregator(message, local) : receiveAsContributor(message, local);
    }

    private Receipt receiveAsAggregator(AveragingMessage message, LocalModel local) {
        if (message instanceof PullRequest request) {
            ModelUpdate model = ModelUpdate.full(local.id(), local.version(), local.sampleCount(), local.snapshot());
            return new Receipt(Receipt.Outcome.ANSWERED, "", List.of(new Outbound(request.sender(), model)));
        }
        ModelUpdate update = (ModelUpdate) message;
        if (update.content() != ModelUpdate.Content.DELTA || update.isFragment()) {
            return Receipt.ignored(
                    Receipt.Outcome.IGNORED_UNEXPECTED, "the aggregator takes whole deltas, got " + update);
        }
        update.requireDimension(local.dimension());
        if (update.version() > local.version()) {
            throw new InvalidUpdateException("update from " + update.sender() + " is a delta against version "
                    + update.version() + ", but the model is only at version " + local.version());
        }
        long lag = local.version() - update.version();
        if (lag > config.maxStaleness()) {
            return Receipt.ignored(
                    Receipt.Outcome.IGNORED_STALE,
                    "delta from " + update.sender() + " lags " + lag + " versions, at most " + config.maxStaleness()
                            + " accepted");
        }
        UpdateWeighting weighting = config.weighting();
        float[] d = update.values();
        if (rows != null) {
            float w = (float) weighting.staleness().weight(lag);
            float[] row = rows[buffered];
            for (int i = 0; i < d.length; i++) {
                row[i] = w * d[i];
            }
        } else {
            float w = (float) weighting.weight(update.sampleCount(), lag);
            for (int i = 0; i < d.length; i++) {
                buffer[i] += w * d[i];
            }
        }
        bufferMass += weighting.bySampleCount() ? update.sampleCount() : 1;
        buffered++;
        if (buffered < config.bufferSize()) {
            return Receipt.buffered();
        }
        if (rows != null) {
            config.robust().aggregate(java.util.Arrays.asList(rows), buffer);
            float step = (float) config.serverLearningRate();
            float[] x = local.params();
            for (int i = 0; i < x.length; i++) {
                x[i] += step * buffer[i];
            }
        } else if (bufferMass > 0) {
            float step = (float) (config.serverLearningRate() / bufferMass);
            float[] x = local.params();
            for (int i = 0; i < x.length; i++) {
                x[i] += step * buffer[i];
            }
        }
        java.util.Arrays.fill(buffer, 0f);
        bufferMass = 0;
        buffered = 0;
        appliedBuffers++;
        local.setVersion(local.version() + 1);
        return Receipt.merged();
    }

    private Receipt receiveAsContributor(AveragingMessage message, LocalModel local) {
        if (!(message instanceof ModelUpdate update)
                || !update.sender().equals(aggregatorId)
                || update.content() != ModelUpdate.Content.PARAMETERS
                || update.isFragment()) {
            return Receipt.ignored(
                    Receipt.Outcome.IGNORED_UNEXPECTED, "a contributor takes only the model from " + aggregatorId);
        }
        update.requireDimension(local.dimension());
        if (state != ContributorState.AWAITING_MODEL) {
            return Receipt.ignored(Receipt.Outcome.IGNORED_UNEXPECTED, "no model was requested");
        }
        System.arraycopy(update.values(), 0, local.params(), 0, base.length);
        System.arraycopy(update.values(), 0, base, 0, base.length);
        local.setVersion(update.version());
        baseVersion = update.version();
        state = ContributorState.TRAINING;
        return Receipt.merged();
    }

    private void requireDimension(LocalModel local) {
        int expected = buffer != null ? buffer.length : base.length;
        if (local.dimension() != expected) {
            throw new IllegalArgumentException(
                    "strategy was built for " + expected + " parameters, the local model has " + local.dimension());
        }
    }

    /** The aggregator waits for contributions and each contributor for the aggregated model it asked for. */
    @Override
    public boolean awaitsEveryRecipient() {
        return true;
    }

    /**
     * True for the aggregator, whose version and the deltas' base versions count applied buffers alike; false for a
     * contributor, which receives the aggregator's versions while its own counts its steps.
     */
    @Override
    public boolean versionsComparable() {
        return role == Role.AGGREGATOR;
    }

    @Override
    public void onFailure(DeliveryFailure failure, LocalModel local, InstantSource clock) {
        if (role == Role.CONTRIBUTOR
                && failure.peer().equals(aggregatorId)
                && state == ContributorState.AWAITING_MODEL) {
            state = ContributorState.NEEDS_MODEL;
        }
    }

    /** Deltas in the buffer now (aggregator). */
    public int buffered() {
        return buffered;
    }

    /** Buffers applied so far (aggregator). */
    public long appliedBuffers() {
        return appliedBuffers;
    }

    /** Whether a contributor holds a pulled model to train on. */
    public boolean hasModel() {
        return state == ContributorState.TRAINING;
    }
}
