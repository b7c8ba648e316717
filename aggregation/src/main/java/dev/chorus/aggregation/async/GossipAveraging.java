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
import dev.chorus.aggregation.weighting.UpdateWeighting;
import java.time.Duration;
import java.time.InstantSource;
import java.util.List;
import java.util.Objects;
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
 * <p>At most one pull is outstanding; it is abandoned after {@link Config#exchangeTimeout()} or on a
 * {@link DeliveryFailure} from that peer, so a dead peer never stalls the node. A snapshot not yet sent at the
 * next {@code configure} is replaced by a fresh one.
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
     */
    public record Config(Mode mode, UpdateWeighting weighting, Duration exchangeTimeout) {

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
            return new Config(mode, weighting, exchangeTimeout);
        }

        public Config withWeighting(UpdateWeighting weighting) {
            return new Config(mode, weighting, exchangeTimeout);
        }
    }

    private final Config config;
    private Outbound queued;
    private String awaitedPeer;
    private long awaitedSinceMillis;
    private long merges;
    private long abandonedExchanges;

    public GossipAveraging(Config config) {
        this.config = Objects.requireNonNull(config, "config");
    }

    public Config config() {
        return config;
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
            if (now - awaitedSinceMillis < config.exchangeTimeout().toMillis()) {
                return;
            }
            awaitedPeer = null;
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
        }
    }

    @Override
    public Outbound pollOutbound() {
        Outbound next = queued;
        queued = null;
        return next;
    }

    @Override
    public int pendingOutbound() {
        return queued == null ? 0 : 1;
    }

    @Override
    public Receipt receive(AveragingMessage message, LocalModel local, InstantSource clock) {
        return switch (message) {
            case PullRequest request -> answer(request, local);
            case ModelUpdate update -> {
                if (update.isFragment() || update.content() != ModelUpdate.Content.PARAMETERS) {
                    yield Receipt.ignored(
                            Receipt.Outcome.IGNORED_UNEXPECTED, "gossip averaging takes whole models, got " + update);
                }
                merge(update, local);
                if (update.sender().equals(awaitedPeer)) {
                    awaitedPeer = null;
                }
                yield Receipt.merged();
            }
        };
    }

    private Receipt answer(PullRequest request, LocalModel local) {
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
        merge(offer, local);
        return new Receipt(Receipt.Outcome.MERGED, "", List.of(reply));
    }

    private void merge(ModelUpdate update, LocalModel local) {
        update.requireDimension(local.dimension());
        double rate = config.weighting()
                .pairwiseRate(local.sampleCount(), local.version(), update.sampleCount(), update.version());
        ParameterVectors.mixInto(local.params(), update.values(), (float) rate);
        local.setVersion(Math.max(local.version(), update.version()));
        merges++;
    }

    private static ModelUpdate snapshotOf(LocalModel local) {
        return ModelUpdate.full(local.id(), local.version(), local.sampleCount(), local.snapshot());
    }

    @Override
    public void onFailure(DeliveryFailure failure, LocalModel local, InstantSource clock) {
        if (failure.peer().equals(awaitedPeer)) {
            awaitedPeer = null;
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

    /** Exchanges given up, by timeout or reported failure. */
    public long abandonedExchanges() {
        return abandonedExchanges;
    }
}
