package dev.chorus.node.daemon;

import dev.chorus.aggregation.AveragingStrategy;
import dev.chorus.aggregation.LocalModel;
import dev.chorus.gossip.host.Host;
import dev.chorus.learning.model.Sequential;
import dev.chorus.node.averaging.AveragingEngine;
import dev.chorus.node.averaging.SnapshotBuffer;
import dev.chorus.node.protocol.ArchitectureHash;
import dev.chorus.node.protocol.FragmentCatalog;
import dev.chorus.node.protocol.ModelExchange;
import dev.chorus.node.secagg.RelayRole;
import dev.chorus.node.secagg.SecAggSettings;
import dev.chorus.node.secagg.SecureGroupService;
import dev.chorus.privacy.audit.EgressRecorder;
import java.security.SecureRandom;
import java.time.InstantSource;
import java.util.Objects;
import java.util.Optional;

/**
 * One node's averaging, assembled in one place for the daemon and the in-process testnet alike: the strategy's
 * fragmentation registered for the wire, the snapshot buffer, the model exchange {@code /chorus/model/1.0.0} served on
 * the host, and the {@link AveragingEngine} between the trainer and that exchange. The caller adds {@link #engine()}
 * as a step listener (after its own pacing, before a barrier). Closing it closes the engine, then stops serving the
 * protocol.
 */
public final class NodeAveraging implements AutoCloseable {

    /**
     * @param engine the engine's parameters; its bound per peer is capped at the exchange's ({@link
     *     AveragingEngine#perPeer})
     * @param exchange the protocol's parameters (limits, dtype of what is sent)
     * @param egress where every payload sent is recorded (the daemon's egress audit log, or {@link
     *     EgressRecorder#NONE})
     * @param secure the consortium's settings of the {@code secure} strategy's group rounds
     * @param secureRelay whether this node takes the relay's role in its groups ({@code averaging.secure_relay}):
     *     always, never, or as its own rounds show
     */
    public record Settings(
            AveragingEngine.Config engine,
            ModelExchange.Config exchange,
            EgressRecorder egress,
            SecAggSettings secure,
            RelayRole.Setting secureRelay) {
        public Settings {
            Objects.requireNonNull(engine, "engine");
            Objects.requireNonNull(exchange, "exchange");
            Objects.requireNonNull(egress, "egress");
            Objects.requireNonNull(secure, "secure");
            Objects.requireNonNull(secureRelay, "secureRelay");
        }

        /** With the default group rounds (seed 0), for a strategy other than {@code secure}. */
        public Settings(AveragingEngine.Config engine, ModelExchange.Config exchange, EgressRecorder egress) {
            this(engine, exchange, egress, SecAggSettings.defaults(0), RelayRole.Setting.AUTO);
        }
    }

    private final AveragingEngine engine;
    private final ModelExchange exchange;
    private final SnapshotBuffer snapshots;
    private final SecureGroupService secure;

    private NodeAveraging(
            AveragingEngine engine, ModelExchange exchange, SnapshotBuffer snapshots, SecureGroupService secure) {
        this.engine = engine;
        this.exchange = exchange;
        this.snapshots = snapshots;
        this.secure = secure;
    }

    /**
     * Starts serving the protocol on {@code host} and builds the engine around {@code strategy}. The architecture
     * hash and the initial vector come from {@code model}; the engine takes the peers to exchange with from the
     * host's connections at each round.
     *
     * @param version the local model's version (0, or a restored checkpoint's)
     * @param sampleCount this node's training examples (for sample-count weighting)
     * @param strategy the averaging algorithm, used on the training thread only
     */
    public static NodeAveraging start(
            Host host,
            Sequential model,
            long version,
            long sampleCount,
            AveragingStrategy strategy,
            Settings settings) {
        float[] params = new float[model.parameterCount()];
        model.copyParametersTo(params);
        LocalModel local = new LocalModel(host.peerId().toBase58(), params, version, sampleCount);
        FragmentCatalog catalog = new FragmentCatalog();
        strategy.fragmentation().ifPresent(catalog::register);
        SnapshotBuffer snapshots = new SnapshotBuffer();
        ModelExchange exchange = new ModelExchange(
                host,
                ArchitectureHash.of(model),
                params.length,
                settings.exchange(),
                snapshots,
                catalog,
                settings.egress());
        AveragingEngine.Config config = settings.engine();
        int perPeer =
                AveragingEngine.perPeer(config, settings.exchange().limits().maxConcurrentPerPeer());
        AveragingEngine engine = new AveragingEngine(
                local, strategy, exchange, snapshots, config.withMaxInFlightPerPeer(perPeer), InstantSource.system());
        SecureGroupService secure = null;
        if (strategy.joinsGroupRounds()) {
            secure = new SecureGroupService(
                    new SecureGroupService.Context(
                            host,
                            host.config().identity(),
                            settings.egress(),
                            exchange.standing(),
                            InstantSource.system(),
                            new SecureRandom()),
                    settings.secure(),
                    params.length,
                    settings.exchange().dtype(),
                    settings.secureRelay());
            strategy.attachGroupRounds(secure);
            secure.start();
        }
        if (!strategy.joinsGroupRounds()) {
            exchange.start(engine::offer);
        }
        return new NodeAveraging(engine, exchange, snapshots, secure);
    }

    /** The group rounds of the {@code secure} strategy; empty for the others. */
    public Optional<SecureGroupService> secure() {
        return Optional.ofNullable(secure);
    }

    public AveragingEngine engine() {
        return engine;
    }

    /** The protocol's side: its byte and refusal counters, and the peers' standing. */
    public ModelExchange exchange() {
        return exchange;
    }

    /** The snapshot the exchange serves, as of the engine's latest round. */
    public SnapshotBuffer snapshots() {
        return snapshots;
    }

    @Override
    public void close() {
        engine.close();
        if (secure != null) {
            secure.close();
        }
        exchange.close();
    }
}
