package dev.chorus.node.daemon;

import dev.chorus.aggregation.AveragingMessage;
import dev.chorus.aggregation.AveragingStrategy;
import dev.chorus.aggregation.Barrier;
import dev.chorus.aggregation.DeliveryFailure;
import dev.chorus.aggregation.LocalModel;
import dev.chorus.aggregation.ModelFragmentation;
import dev.chorus.aggregation.ModelUpdate;
import dev.chorus.aggregation.Outbound;
import dev.chorus.aggregation.Receipt;
import dev.chorus.aggregation.SelfCenteredClipping;
import dev.chorus.node.api.NodeMetrics;
import java.time.InstantSource;
import java.util.List;
import java.util.Optional;
import java.util.random.RandomGenerator;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * An {@link AveragingStrategy} that records what passes through it in {@link NodeMetrics}: per peer, what was
 * addressed to it, what from it was merged and which exchanges with it failed; and the staleness of each merged
 * update; and, where the strategy screens what it receives, what it clipped and whom it excluded, each change of a
 * peer's standing logged with its reason. It only observes: every call goes to the wrapped strategy unchanged, on the
 * training thread.
 */
final class MeteredStrategy implements AveragingStrategy {

    private static final Logger log = LoggerFactory.getLogger(MeteredStrategy.class);

    private final AveragingStrategy strategy;
    private final NodeMetrics metrics;
    private final boolean observeStaleness;

    MeteredStrategy(AveragingStrategy strategy, NodeMetrics metrics) {
        this.strategy = strategy;
        this.metrics = metrics;
        this.observeStaleness = strategy.versionsComparable();
    }

    AveragingStrategy strategy() {
        return strategy;
    }

    @Override
    public void configure(LocalModel local, List<String> peers, RandomGenerator random, InstantSource clock) {
        strategy.configure(local, peers, random, clock);
    }

    @Override
    public Outbound pollOutbound() {
        Outbound o = strategy.pollOutbound();
        if (o != null) {
            metrics.recordExchangeQueued(o.recipient());
        }
        return o;
    }

    @Override
    public int pendingOutbound() {
        return strategy.pendingOutbound();
    }

    @Override
    public AveragingMessage pollAbandoned() {
        return strategy.pollAbandoned();
    }

    @Override
    public long patienceDeadlineMillis() {
        return strategy.patienceDeadlineMillis();
    }

    @Override
    public boolean exchangesBothWays() {
        return strategy.exchangesBothWays();
    }

    @Override
    public boolean awaitsEveryRecipient() {
        return strategy.awaitsEveryRecipient();
    }

    @Override
    public boolean joinsGroupRounds() {
        return strategy.joinsGroupRounds();
    }

    @Override
    public void attachGroupRounds(dev.chorus.aggregation.GroupRounds rounds) {
        strategy.attachGroupRounds(rounds);
    }

    @Override
    public boolean versionsComparable() {
        return strategy.versionsComparable();
    }

    @Override
    public boolean keepsTheNewestVersion() {
        return strategy.keepsTheNewestVersion();
    }

    @Override
    public Optional<Barrier> barrier() {
        return strategy.barrier();
    }

    @Override
    public Optional<ModelFragmentation> fragmentation() {
        return strategy.fragmentation();
    }

    @Override
    public Optional<SelfCenteredClipping> screening() {
        return strategy.screening();
    }

    @Override
    public Receipt receive(AveragingMessage message, LocalModel local, InstantSource clock) {
        long localVersion = local.version();
        return metered(message, localVersion, strategy.receive(message, local, clock), clock);
    }

    @Override
    public Receipt receiveUnsolicited(AveragingMessage message, LocalModel local, InstantSource clock) {
        long localVersion = local.version();
        return metered(message, localVersion, strategy.receiveUnsolicited(message, local, clock), clock);
    }

    private Receipt metered(AveragingMessage message, long localVersion, Receipt r, InstantSource clock) {
        strategy.screening().ifPresent(s -> screened(s, clock));
        if (r.accepted() && message instanceof ModelUpdate u) {
            metrics.recordMerge(u.sender(), u.version());
            if (observeStaleness) {
                metrics.observeStaleness(localVersion - u.version());
            }
        }
        for (Outbound o : r.replies()) {
            metrics.recordExchangeQueued(o.recipient());
        }
        return r;
    }

    /** Publishes the screening's counters and logs each change of a peer's standing. */
    private void screened(SelfCenteredClipping screening, InstantSource clock) {
        for (SelfCenteredClipping.PeerEvent e = screening.pollEvent(); e != null; e = screening.pollEvent()) {
            switch (e.standing()) {
                case EXCLUDED -> log.warn("Averaging: excluding peer {}: {}", e.peer(), e.reason());
                case SUSPECT -> log.warn("Averaging: weighting down peer {}: {}", e.peer(), e.reason());
                case TRUSTED -> log.info("Averaging: peer {} trusted again: {}", e.peer(), e.reason());
            }
        }
        metrics.recordScreening(
                screening.clipped(),
                screening.refused() + screening.dropped(),
                screening.excludedPeers(clock.millis()));
    }

    @Override
    public void onFailure(DeliveryFailure failure, LocalModel local, InstantSource clock) {
        metrics.recordExchangeFailure(failure.peer());
        strategy.onFailure(failure, local, clock);
    }

    @Override
    public void mergeArrived(LocalModel local) {
        strategy.mergeArrived(local);
    }
}
