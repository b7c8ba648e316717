package dev.chorus.aggregation.async;

import dev.chorus.aggregation.AveragingMessage;
import dev.chorus.aggregation.AveragingStrategy;
import dev.chorus.aggregation.DeliveryFailure;
import dev.chorus.aggregation.LocalModel;
import dev.chorus.aggregation.ModelUpdate;
import dev.chorus.aggregation.Outbound;
import dev.chorus.aggregation.ParameterVectors;
import dev.chorus.aggregation.PullRequest;
import dev.chorus.aggregation.Receipt;
import dev.chorus.aggregation.SelfCenteredClipping;
import dev.chorus.aggregation.weighting.UpdateWeighting;
import java.time.Duration;
import java.time.InstantSource;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.random.RandomGenerator;

/**
 * Asynchronous gossip averaging: at each {@link #configure} the node picks one connected peer uniformly at
 * random and exchanges models with it; whoever receives a model mixes it into its own.
 *
 * <p>References: X. Lian, W. Zhang, C. Zhang, J. Liu, "Asynchronous Decentralized Parallel Stochastic Gradient
 * Descent" (AD-PSGD), ICML 2018, where an active node and a random neighbour average their models atomically
 * ({@link Mode#PUSH_PULL}); R. Ormándi, I. Hegedűs, M. Jelasity, "Gossip learning with linear models on fully
 * distributed data", Concurrency and Computation: Practice and Experience, 2013, where a node sends its model to a random peer that
 * merges it ({@link Mode#PUSH}).
 *
 * <p>Merge rule: {@code x += r (y - x)} with the pairwise rate {@code r} of
 * {@link UpdateWeighting#pairwiseRate}; with uniform weighting {@code r = 1/2}, the plain average. The local
 * version becomes the larger of the two (gossip learning's model age). In {@link Mode#PUSH_PULL} the responder
 * replies with its model from before the merge, so both sides compute the same average and, with constant
 * staleness, an exchange preserves the sample-weighted sum {@code sum_i n_i x_i} (the plain mean under uniform
 * weighting).
 *
 * <p>With {@link Config#screening()} each received model is first clipped around the local one
 * ({@link SelfCenteredClipping}): the rate is scaled so that the model moves towards it by at most the radius, and a
 * peer excluded for its hard-clipped models is not merged (its pull is still answered), nor is a model pointing away
 * from the local one or repeating one the same peer sent before. Each side screens with its own radius, so an
 * exchange in which either clips or drops no longer preserves the weighted sum: rare without attackers on even links,
 * not under stragglers and slow links
 * (docs/experiments/2026-12-04-clipped-gossip.md).
 *
 * <p>At most one pull is awaited at a time; it is given up on a {@link DeliveryFailure} from that peer, or once
 * it has taken {@link #patienceMillis() the patience}: {@link #PATIENCE_FACTOR} times the median of the node's
 * recent completed pulls (at least {@link #MIN_PATIENCE_MILLIS}, at most {@link Config#exchangeTimeout()}, which is
 * also the patience until a pull has completed), times {@link #PATIENCE_FACTOR} again for every pull given up since
 * the last one completed. So a dead peer never stalls the node, and neither does a live one behind a link far slower
 * than the others: the node goes on to another peer, and reports the pull it gave up through
 * {@link #pollAbandoned()}, so that the transport stops it and frees its in-flight slot instead of holding it until
 * its own timeout.
 *
 * <p>A given-up pull's reply is therefore not waited for: one that still arrives (it crossed the cancellation, or
 * the transport does not cancel) is merged like any other but not timed. What teaches the patience to a node whose
 * own link is slow is the run of give-ups: such a node gives up pull after pull, and each multiplies its patience
 * by {@link #PATIENCE_FACTOR} until its pulls complete within it, whose times then make up the median. A node with
 * some dead or stalled peers among live ones completes pulls in between, which ends each run, so its patience
 * stays at the pace of the live peers. (Counting a given-up pull's wait as a lower bound of its time would not
 * tell the two apart: with half of its peers dead, the median of the lower bounds climbs to the exchange timeout.)
 * A snapshot not yet sent at the next {@code configure} is replaced by a fresh one.
 */
public final class GossipAveraging implements AveragingStrategy {

    /** Who sends a model to whom in an exchange. */
    public enum Mode {
        /** Send the local model; the peer merges it (gossip learning). */
        PUSH,
        /** Ask the peer for its model and merge it. */
        PULL,
        /** Send the local model and get the peer's back; both merge (AD-PSGD's atomic pairwise average). */
        PUSH_PULL
    }

    /**
     * @param mode the exchange pattern; default {@link Mode#PUSH_PULL}
     * @param weighting the weight of each side in the pairwise average; default {@link UpdateWeighting#uniform()}
     * @param exchangeTimeout how long to wait for a reply before pulling from another peer; default 30 s
     * @param screening the clipping of received models around the local one ({@link SelfCenteredClipping}); null
     *     (the default) merges every finite model as it is
     */
    public record Config(
            Mode mode, UpdateWeighting weighting, Duration exchangeTimeout, SelfCenteredClipping.Config screening) {

        /** No screening. */
        public Config(Mode mode, UpdateWeighting weighting, Duration exchangeTimeout) {
            this(mode, weighting, exchangeTimeout, null);
        }

        public Config {
            Objects.requireNonNull(mode, "mode");
            Objects.requireNonNull(weighting, "weighting");
            Objects.requireNonNull(exchangeTimeout, "exchangeTimeout");
            if (exchangeTimeout.isNegative() || exchangeTimeout.isZero()) {
                throw new IllegalArgumentException("exchange timeout must be positive, got " + exchangeTimeout);
            }
        }

        public static Config defaults() {
            return new Config(Mode.PUSH_PULL, UpdateWeighting.uniform(), Duration.ofSeconds(30));
        }

        public Config withMode(Mode mode) {
            return new Config(mode, weighting, exchangeTimeout, screening);
        }

        public Config withWeighting(UpdateWeighting weighting) {
            return new Config(mode, weighting, exchangeTimeout, screening);
        }

        /** This configuration with received models clipped as {@code screening} says; null: none. */
        public Config withScreening(SelfCenteredClipping.Config screening) {
            return new Config(mode, weighting, exchangeTimeout, screening);
        }
    }

    /**
     * A pull is given up once it has taken this many times the median of the recent pulls, and this many times
     * longer again for each pull given up in a row before it.
     */
    public static final double PATIENCE_FACTOR = 4;
    /** The least patience, whatever the recent pulls took: scheduling and collection pauses are not slow links. */
    public static final long MIN_PATIENCE_MILLIS = 1_000;
    /** Completed pulls whose times make up the median. */
    private static final int RECENT = 9;
    /** Enough give-ups in a row to reach any exchange timeout from the least patience. */
    private static final int MAX_RUN = 32;

    private final Config config;
    /** Null when received models are merged unscreened. */
    private final SelfCenteredClipping screening;

    private Outbound queued;
    private String awaitedPeer;
    private long awaitedSinceMillis;
    /** The request of the awaited pull, and whether {@link #pollOutbound()} has handed it out. */
    private AveragingMessage awaitedRequest;

    private boolean awaitedSent;
    /** The request of the pull given up last, until {@link #pollAbandoned()} takes it. */
    private AveragingMessage abandoned;

    /** Pulls given up since the last one completed. */
    private int givenUpInARow;

    private final long[] recentMillis = new long[RECENT];
    private int recentCount;
    private int recentNext;
    private long merges;
    private long abandonedExchanges;

    public GossipAveraging(Config config) {
        this.config = Objects.requireNonNull(config, "config");
        this.screening = config.screening() == null ? null : new SelfCenteredClipping(config.screening());
    }

    public Config config() {
        return config;
    }

    @Override
    public Optional<SelfCenteredClipping> screening() {
        return Optional.ofNullable(screening);
    }

    /** True in push-pull mode: each exchange sends the local model and brings the peer's back. */
    @Override
    public boolean exchangesBothWays() {
        return config.mode() == Mode.PUSH_PULL;
    }

    @Override
    public void configure(LocalModel local, List<String> peers, RandomGenerator random, InstantSource clock) {
        long now = clock.millis();
        if (awaitedPeer != null) {
            if (now - awaitedSinceMillis < patienceMillis()) {
                return;
            }
            if (awaitedSent) {
                abandoned = awaitedRequest;
                givenUpInARow = Math.min(MAX_RUN, givenUpInARow + 1);
            }
            clearAwaited();
            abandonedExchanges++;
        }
        if (peers.isEmpty()) {
            queued = null;
            return;
        }
        String peer = peers.get(random.nextInt(peers.size()));
        AveragingMessage message =
                switch (config.mode()) {
                    case PUSH -> snapshotOf(local);
                    case PULL -> new PullRequest(local.id(), local.version(), null);
                    case PUSH_PULL -> new PullRequest(local.id(), local.version(), snapshotOf(local));
                };
        queued = new Outbound(peer, message);
        if (config.mode() != Mode.PUSH) {
            awaitedPeer = peer;
            awaitedSinceMillis = now;
            awaitedRequest = message;
            awaitedSent = false;
        }
    }

    private void clearAwaited() {
        awaitedPeer = null;
        awaitedRequest = null;
        awaitedSent = false;
    }

    /**
     * How long the awaited pull may take before the node pulls from another peer: {@link #PATIENCE_FACTOR} times
     * the median of the recent completed pulls' times, at least {@link #MIN_PATIENCE_MILLIS}, times
     * {@link #PATIENCE_FACTOR} for each pull given up since the last one completed; at most
     * {@link Config#exchangeTimeout()}, and that until a pull has completed.
     */
    public long patienceMillis() {
        long timeout = config.exchangeTimeout().toMillis();
        if (recentCount == 0) {
            return timeout;
        }
        long[] sorted = Arrays.copyOf(recentMillis, recentCount);
        Arrays.sort(sorted);
        long median = sorted[recentCount / 2];
        double base = Math.max(MIN_PATIENCE_MILLIS, Math.ceil(PATIENCE_FACTOR * median));
        return (long) Math.min(timeout, base * Math.pow(PATIENCE_FACTOR, givenUpInARow));
    }

    private void recordTime(long millis) {
        recentMillis[recentNext] = Math.max(0, millis);
        recentNext = (recentNext + 1) % RECENT;
        recentCount = Math.min(RECENT, recentCount + 1);
    }

    @Override
    public Outbound pollOutbound() {
        Outbound next = queued;
        queued = null;
        if (next != null && next.message() == awaitedRequest) {
            awaitedSent = true;
        }
        return next;
    }

    @Override
    public int pendingOutbound() {
        return queued == null ? 0 : 1;
    }

    /**
     * When the awaited pull will be given up: its start plus {@link #patienceMillis()}; {@link Long#MAX_VALUE} when
     * no pull is awaited, or the awaited one has not been handed out yet.
     */
    @Override
    public long patienceDeadlineMillis() {
        if (awaitedPeer == null || !awaitedSent) {
            return Long.MAX_VALUE;
        }
        long patience = patienceMillis();
        return awaitedSinceMillis > Long.MAX_VALUE - patience ? Long.MAX_VALUE : awaitedSinceMillis + patience;
    }

    /** The request of the pull given up last (by patience), once; {@code null} when there is none to report. */
    @Override
    public AveragingMessage pollAbandoned() {
        AveragingMessage a = abandoned;
        abandoned = null;
        return a;
    }

    /**
     * Merges a whole model; one from the peer whose reply is awaited is taken as that reply (the transport cannot
     * tell replies apart: see {@link #receiveUnsolicited}).
     */
    @Override
    public Receipt receive(AveragingMessage message, LocalModel local, InstantSource clock) {
        return receive(message, local, clock, true);
    }

    /** Merges a whole model that answers no pull of this node's; the awaited pull, if any, is still awaited. */
    @Override
    public Receipt receiveUnsolicited(AveragingMessage message, LocalModel local, InstantSource clock) {
        return receive(message, local, clock, false);
    }

    private Receipt receive(AveragingMessage message, LocalModel local, InstantSource clock, boolean mayBeReply) {
        return switch (message) {
            case PullRequest request -> answer(request, local, clock);
            case ModelUpdate update -> {
                if (update.isFragment() || update.content() != ModelUpdate.Content.PARAMETERS) {
                    yield Receipt.ignored(
                            Receipt.Outcome.IGNORED_UNEXPECTED, "gossip averaging takes whole models, got " + update);
                }
                String refusal = merge(update, local, clock);
                if (mayBeReply && update.sender().equals(awaitedPeer)) {
                    recordTime(clock.millis() - awaitedSinceMillis);
                    givenUpInARow = 0;
                    clearAwaited();
                }
                yield refusal == null ? Receipt.merged() : Receipt.ignored(Receipt.Outcome.IGNORED_UNEXPECTED, refusal);
            }
        };
    }

    private Receipt answer(PullRequest request, LocalModel local, InstantSource clock) {
        ModelUpdate offer = request.offer();
        if (offer != null) {
            if (offer.isFragment() || offer.content() != ModelUpdate.Content.PARAMETERS) {
                return Receipt.ignored(
                        Receipt.Outcome.IGNORED_UNEXPECTED, "gossip averaging takes whole models, got " + offer);
            }
            offer.requireDimension(local.dimension());
        }
        // The reply is the model from before the merge: both sides then compute the same average.
        Outbound reply = new Outbound(request.sender(), snapshotOf(local));
        if (offer == null) {
            return new Receipt(Receipt.Outcome.ANSWERED, "", List.of(reply));
        }
        String refusal = merge(offer, local, clock);
        // An excluded peer still gets this node's model: refusing its offer must not stall its own exchange.
        return new Receipt(
                refusal == null ? Receipt.Outcome.MERGED : Receipt.Outcome.ANSWERED,
                refusal == null ? "" : refusal,
                List.of(reply));
    }

    /**
     * Merges {@code update} (clipped around the local model when screening is on); returns null, or why it was
     * refused: its sender is excluded, or the model is too far, points away from the local one or is a repeat.
     */
    private String merge(ModelUpdate update, LocalModel local, InstantSource clock) {
        update.requireDimension(local.dimension());
        double rate = config.weighting()
                .pairwiseRate(local.sampleCount(), local.version(), update.sampleCount(), update.version());
        if (screening != null) {
            long now = clock.millis();
            if (screening.excluded(update.sender(), now)) {
                return screening.refuse(update.sender(), now);
            }
            float[] x = local.params();
            double distance = SelfCenteredClipping.distance(x, update.values());
            double factor = screening.admit(
                    update.sender(), null, update.values(), distance, SelfCenteredClipping.norm(x), x.length, now);
            if (factor == 0) {
                return screening.lastDrop();
            }
            // In double precision: two finite floats far apart can differ by more than the largest float.
            double r = rate * factor;
            float[] y = update.valuesNear(x);
            for (int i = 0; i < x.length; i++) {
                x[i] = (float) (x[i] + r * ((double) y[i] - x[i]));
            }
        } else {
            float[] x = local.params();
            ParameterVectors.mixInto(x, update.valuesNear(x), (float) rate);
        }
        local.setVersion(Math.max(local.version(), update.version()));
        merges++;
        return null;
    }

    private static ModelUpdate snapshotOf(LocalModel local) {
        return ModelUpdate.full(local.id(), local.version(), local.sampleCount(), local.snapshot());
    }

    @Override
    public void onFailure(DeliveryFailure failure, LocalModel local, InstantSource clock) {
        // A failure that names another message concerns an earlier exchange with that peer, not the awaited one.
        if (failure.peer().equals(awaitedPeer) && (failure.message() == null || failure.message() == awaitedRequest)) {
            clearAwaited();
            abandonedExchanges++;
        }
    }

    /** The peer whose reply is awaited, or {@code null}. */
    public String awaitedPeer() {
        return awaitedPeer;
    }

    /** Models merged so far. */
    public long merges() {
        return merges;
    }

    /** Exchanges given up, by patience, timeout or reported failure. */
    public long abandonedExchanges() {
        return abandonedExchanges;
    }

    /** Merges keep the newer of the two versions. */
    @Override
    public boolean keepsTheNewestVersion() {
        return true;
    }
}
