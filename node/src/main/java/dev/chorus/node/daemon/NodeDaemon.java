package dev.chorus.node.daemon;

import dev.chorus.aggregation.AveragingStrategy;
import dev.chorus.aggregation.Barrier;
import dev.chorus.gossip.discovery.BootstrapDialer;
import dev.chorus.gossip.host.ConnectionRefusedException;
import dev.chorus.gossip.host.Host;
import dev.chorus.gossip.host.HostConfig;
import dev.chorus.gossip.identity.Ed25519Engines;
import dev.chorus.gossip.identity.KeyFile;
import dev.chorus.gossip.identity.PeerId;
import dev.chorus.gossip.identity.PrivateKey;
import dev.chorus.gossip.libcrypto.CryptoMode;
import dev.chorus.gossip.libcrypto.LibCryptoUnavailableException;
import dev.chorus.gossip.multiaddr.Multiaddr;
import dev.chorus.gossip.noise.NoiseCiphers;
import dev.chorus.gossip.pubsub.Pubsub;
import dev.chorus.gossip.pubsub.PubsubConfig;
import dev.chorus.gossip.pubsub.TopicScoreParams;
import dev.chorus.learning.data.DataException;
import dev.chorus.learning.model.Sequential;
import dev.chorus.learning.optim.Optimizer;
import dev.chorus.learning.tensor.BackendUnavailableException;
import dev.chorus.learning.tensor.TensorBackend;
import dev.chorus.learning.tensor.TensorBackends;
import dev.chorus.learning.train.StepListener;
import dev.chorus.node.DataAdvice;
import dev.chorus.node.announce.ConsortiumMembers;
import dev.chorus.node.announce.GossipsubAnnouncements;
import dev.chorus.node.announce.ModelAnnouncement;
import dev.chorus.node.api.ApiAccess;
import dev.chorus.node.api.ApiServer;
import dev.chorus.node.api.ApiToken;
import dev.chorus.node.api.AuditGrowth;
import dev.chorus.node.api.AveragingCounters;
import dev.chorus.node.api.NodeMetrics;
import dev.chorus.node.api.NodeView;
import dev.chorus.node.api.PeerInfo;
import dev.chorus.node.averaging.AveragingEngine;
import dev.chorus.node.averaging.RoundBarrier;
import dev.chorus.node.averaging.SnapshotBuffer;
import dev.chorus.node.checkpoint.Checkpoint;
import dev.chorus.node.checkpoint.CheckpointStore;
import dev.chorus.node.config.ConfigException;
import dev.chorus.node.config.ConfigSchema;
import dev.chorus.node.config.NodeConfig;
import dev.chorus.node.logging.PeriodicSummary;
import dev.chorus.node.membership.Membership;
import dev.chorus.node.protocol.ArchitectureHash;
import dev.chorus.node.protocol.ModelExchange;
import dev.chorus.node.secagg.SecureGroupService;
import dev.chorus.privacy.audit.AuditLogException;
import dev.chorus.privacy.audit.EgressAuditLog;
import dev.chorus.privacy.audit.EgressRecorder;
import dev.chorus.privacy.files.OwnerOnlyFiles;
import dev.chorus.privacy.membership.MemberCertificate;
import dev.chorus.privacy.membership.MembershipException;
import java.io.Closeable;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A running node. {@link #start} brings it up in order (data directory, egress audit log, data set, backend and
 * model, checkpoint restore, libp2p host, averaging engine, bootstrap dials, HTTP API, training thread); {@link
 * #close} takes it down in reverse: training finishes its step and checkpoints, then the API and
 * the host close. Bad input found while starting is a {@link ConfigException} (unusable data included: it names
 * the config file and the {@code data.*} key), and everything already started is stopped again.
 */
public final class NodeDaemon implements AutoCloseable, NodeView {

    private static final Logger log = LoggerFactory.getLogger(NodeDaemon.class);

    /** What a start does when checkpoints are present but none can be resumed from. */
    public enum UnusableCheckpoints {
        /** Refuse to start, naming the files: an operator decides whether the trained model is lost. */
        REFUSE,
        /**
         * Start a new model at version 0 ({@code chorus node run --fresh}); the unusable files are moved, not deleted,
         * into {@code checkpoints/unusable-<UTC time>/}.
         */
        START_FRESH
    }

    /** Where {@code --fresh} moves unusable checkpoints: {@code checkpoints/unusable-<UTC time>/}. */
    static final String UNUSABLE_PREFIX = "unusable-";

    /** The lock file in the data directory that one node at a time holds. */
    static final String LOCK_FILE = "node.lock";

    private final NodeConfig config;
    private final UnusableCheckpoints onUnusable;
    private final NodeMetrics metrics;
    private final Instant startedAt;
    private final List<AutoCloseable> resources = new ArrayList<>();
    private final ConnectedPeers connectedPeers = new ConnectedPeers();
    private final ConsortiumMembers members;
    private volatile Host host;
    /** Keeps the bootstrap and learnt peers connected; null until the host is up. */
    private volatile BootstrapDialer dialer;
    /** mDNS ({@code network.mdns}); null when off. */
    private volatile dev.chorus.gossip.discovery.MdnsService mdns;
    /** The failed dials not yet logged in a summary. */
    private volatile PeriodicSummary dialFailures;

    private volatile Pubsub pubsub;
    private volatile GossipsubAnnouncements announcements;
    /** The consortium membership this node enforces; null when it admits everyone (no roster). */
    private volatile Membership membership;

    private volatile ScheduledExecutorService announcer;
    private volatile AveragingEngine engine;
    /** The barrier of a strategy with one (sync), which the training loop waits at; null for the others. */
    private Barrier roundStrategy;

    private volatile RoundBarrier roundBarrier;

    /** The averaging engine with the exchange it uses and the snapshot it serves; null without averaging. */
    private volatile NodeAveraging averaging;

    private volatile ApiServer api;
    private volatile TrainingLoop loop;
    private volatile Thread trainingThread;
    /** For {@code sync}: what the node does once its epochs are done (takes part in the others' rounds). */
    private Runnable afterTraining;
    /** The thread of {@link #afterTraining}, once started. */
    private volatile Thread roundsThread;

    private volatile TensorBackend backend;
    private volatile EgressAuditLog audit;
    private volatile String failure;
    private volatile boolean closed;

    private NodeDaemon(NodeConfig config, UnusableCheckpoints onUnusable, InstantSource clock) {
        this.config = config;
        this.onUnusable = onUnusable;
        this.metrics = new NodeMetrics(clock);
        this.startedAt = clock.instant();
        Duration announceEvery = config.averaging().announceEvery();
        // A member that missed six announcements in a row (and at least a minute) is no longer listed.
        Duration expiry = announceEvery.multipliedBy(6).compareTo(Duration.ofMinutes(1)) > 0
                ? announceEvery.multipliedBy(6)
                : Duration.ofMinutes(1);
        this.members = new ConsortiumMembers(MAX_MEMBERS, expiry, clock);
    }

    /** The most consortium members remembered from announcements. */
    static final int MAX_MEMBERS = 4096;

    /** Starts a node that averages as {@code averaging.strategy} says. */
    public static NodeDaemon start(NodeConfig config) {
        return start(config, List.of());
    }

    /**
     * Starts a node.
     *
     * @param averaging step listeners run after every local step, after the averaging engine
     */
    public static NodeDaemon start(NodeConfig config, List<StepListener> averaging) {
        return start(config, averaging, UnusableCheckpoints.REFUSE);
    }

    /**
     * Starts a node.
     *
     * @param averaging step listeners run after every local step, after the averaging engine
     * @param onUnusable what to do when checkpoints are present but none can be resumed from
     */
    public static NodeDaemon start(NodeConfig config, List<StepListener> averaging, UnusableCheckpoints onUnusable) {
        NodeDaemon d = new NodeDaemon(config, onUnusable, InstantSource.system());
        try {
            d.startAll(averaging);
            return d;
        } catch (RuntimeException | Error e) {
            d.close();
            throw e;
        }
    }

    /**
     * Brings the node up phase by phase, in this order: each phase adds what it opens to {@link #resources} or a
     * field, so that {@link #close} after a failure stops exactly what was started.
     */
    private void startAll(List<StepListener> averaging) {
        openDataDirectory();
        lockIdentity();
        PrivateKey key = KeyFile.load(config.node().keyFile());
        LocalData data = loadData();
        Sequential model = buildModel(data);
        Optimizer optimizer = config.model().optimizer().create();
        resources.add(optimizer);
        NodeConfig.Checkpoints kept = config.operations().checkpoints();
        CheckpointStore store = new CheckpointStore(
                config.checkpointDir(),
                new CheckpointStore.Retention(kept.keep(), kept.hourlyForHours(), kept.dailyForDays()),
                InstantSource.system());
        TrainingLoop.Progress progress = restoreCheckpoint(store, model, optimizer);
        loadMembership(key);
        startHost(key);
        if (config.averaging().enabled()) {
            engine = startAveraging(model, data, progress.version());
            startAnnouncing(ArchitectureHash.of(model));
        }
        startDialer();
        try {
            mdns = LocalDiscovery.start(config.network().mdns(), host, dialer).orElse(null);
        } catch (java.io.IOException e) {
            throw new ConfigException(
                    config.configFile() + ": " + ConfigSchema.MDNS + ": cannot start mDNS on "
                            + config.network().mdns() + ": " + e.getMessage(),
                    e);
        }
        startApi();
        TrainingLoop trainingLoop =
                new TrainingLoop(model, optimizer, data, config, store, metrics, InstantSource.system(), progress);
        startTraining(trainingLoop, model, averaging);
    }

    /** Creates the data directory's layout, locks it for this node and opens the egress audit log in it. */
    private void openDataDirectory() {
        DataDirectory.prepare(config);
        resources.add(lockDataDirectory(config, "stop it, or give this node a data_dir of its own"));
        try {
            audit = EgressAuditLog.open(
                    config.auditDir(),
                    EgressAuditLog.Options.defaults()
                            .withRetention(
                                    config.operations().audit().retentionDays(),
                                    config.operations().audit().maxBytes())
                            .withWarnings(log::warn));
        } catch (AuditLogException e) {
            throw new ConfigException(config.configFile() + ": " + ConfigSchema.DATA_DIR + ": " + e.getMessage(), e);
        }
        resources.add(audit); // closed last, after the host: every payload sent is recorded before it closes
        metrics.bindEgressAudit(audit::written, audit::dropped);
        metrics.bindAuditGrowth(new AuditGrowth(
                audit::bytesWritten,
                audit::sizeOnDisk,
                config.operations().audit().maxBytes(),
                InstantSource.system()));
    }

    /**
     * Locks {@code config}'s data directory ({@code node.lock}) until the lock is closed: a node holds it while it
     * runs, and a command that changes the directory offline (a rollback) takes it too, so that neither runs under the
     * other.
     *
     * @param advice what to do about a holder, the end of the one-line refusal
     * @throws ConfigException naming data_dir and the holder's PID when another node holds the lock, or why the lock
     *     cannot be taken
     */
    public static Closeable lockDataDirectory(NodeConfig config, String advice) {
        Path dataDir = config.node().dataDir();
        try {
            return ProcessLock.acquire(dataDir.resolve(LOCK_FILE));
        } catch (ProcessLock.HeldException e) {
            throw new ConfigException(config.configFile() + ": " + ConfigSchema.DATA_DIR + ": " + dataDir
                    + " is in use by another node" + holder(e) + "; " + advice);
        } catch (IOException e) {
            throw new ConfigException(
                    config.configFile() + ": " + ConfigSchema.DATA_DIR + ": cannot lock " + dataDir.resolve(LOCK_FILE)
                            + ": " + e.getMessage(),
                    e);
        }
    }

    /**
     * Locks the identity key (a lock file next to it), so that a second node with the same key on this machine is
     * refused: two nodes with one peer id break each other's connections. A key in a directory this node cannot write
     * to is not checked, with a warning.
     */
    private void lockIdentity() {
        Path keyFile = config.node().keyFile();
        Path lockFile = keyFile.resolveSibling(keyFile.getFileName() + ".lock");
        try {
            resources.add(ProcessLock.acquire(lockFile));
        } catch (ProcessLock.HeldException e) {
            throw new ConfigException(config.configFile() + ": " + ConfigSchema.KEY_FILE + ": " + keyFile
                    + " is in use by another node on this machine" + holder(e)
                    + "; every node needs an identity of its own (chorus init creates one)");
        } catch (IOException e) {
            log.warn(
                    "cannot lock the identity key with {} ({}): a second node with this key is not detected",
                    lockFile,
                    e.getMessage());
        }
    }

    private static String holder(ProcessLock.HeldException e) {
        return e.holder().map(pid -> " (pid " + pid + ")").orElse("");
    }

    private LocalData loadData() {
        LocalData data;
        try {
            data = LocalData.load(config);
        } catch (DataException e) {
            // Named as the other config errors are: the file, then the key that chose what failed; where a schema
            // change would get past it, the advice names the config keys that make it.
            throw new ConfigException(
                    config.configFile() + ": " + dataKey(e) + ": "
                            + DataAdvice.CONFIG.message(e, config.data().csv().drop()),
                    e);
        }
        log.info(
                "data {}: {} training rows, {} validation rows, {} features, {} classes",
                config.data().path(),
                data.train().rows(),
                data.validation().rows(),
                data.train().cols(),
                data.train().classes());
        data.warnings().forEach(w -> log.warn("data {}: {}", config.data().path(), w));
        return data;
    }

    /** Creates the tensor backend and the model on it, shaped by the data. */
    private Sequential buildModel(LocalData data) {
        try {
            backend = TensorBackends.create(
                    config.model().backend(), config.model().threads());
        } catch (BackendUnavailableException e) {
            throw new ConfigException(
                    config.configFile() + ": " + ConfigSchema.MODEL_BACKEND + ": " + e.getMessage(), e);
        }
        resources.add(backend);
        Sequential model;
        try {
            model = config.model()
                    .spec()
                    .build(
                            backend,
                            data.train().cols(),
                            data.train().classes(),
                            config.training().seed());
        } catch (IllegalArgumentException e) {
            throw new ConfigException(config.configFile() + ": " + ConfigSchema.MODEL_SPEC + ": " + e.getMessage(), e);
        }
        resources.add(model);
        return model;
    }

    /**
     * Loads the newest usable checkpoint into the model (and the optimizer, when it is the same one) and returns where
     * training resumes; a fresh start when the directory holds none. Unusable files (corrupt, non-finite values,
     * another model's shape) are skipped with a line each; when there are checkpoints but none is usable, the start
     * is refused unless {@link UnusableCheckpoints#START_FRESH}: version 0 would silently discard the trained model.
     */
    private TrainingLoop.Progress restoreCheckpoint(CheckpointStore store, Sequential model, Optimizer optimizer) {
        int expected = model.parameterCount();
        CheckpointStore.Restore restore = store.restoreLatest(c -> c.parameters().length == expected
                ? null
                : c.parameters().length + " parameters (model " + c.model() + "), the configured model has "
                        + expected);
        if (restore.checkpoint().isEmpty()) {
            return noUsableCheckpoint(store, restore.skipped());
        }
        Checkpoint c = restore.checkpoint().get();
        model.setParameters(c.parameters());
        if (c.optimizer().equals(config.model().optimizer().toString())) {
            try {
                optimizer.restore(c.optimizerState(), model.parameters());
            } catch (IllegalArgumentException e) {
                optimizer.reset();
                log.warn(
                        "optimizer state of checkpoint version {} does not fit ({}): it starts afresh",
                        c.version(),
                        e.getMessage());
            }
        } else {
            log.warn("optimizer changed from {} to {}: its state starts afresh", c.optimizer(), optimizer);
        }
        metrics.resumeFrom(c.version(), c.steps(), c.createdMillis());
        log.info("resumed from checkpoint version {} ({} steps)", c.version(), c.steps());
        return new TrainingLoop.Progress(c.version(), c.steps());
    }

    private TrainingLoop.Progress noUsableCheckpoint(CheckpointStore store, List<CheckpointStore.Skipped> skipped) {
        if (skipped.isEmpty()) {
            return TrainingLoop.Progress.FRESH;
        }
        if (onUnusable == UnusableCheckpoints.START_FRESH) {
            Path aside;
            try {
                aside = store.moveAside(
                        skipped.stream().map(CheckpointStore.Skipped::file).toList(), UNUSABLE_PREFIX);
            } catch (IOException e) {
                throw new ConfigException(
                        "cannot move the unusable checkpoints in " + store.directory() + " aside: " + e.getMessage(),
                        e);
            }
            // Moved, so that they neither count against the retention of the new model's checkpoints nor are
            // skipped again at every start.
            log.warn(
                    "none of the {} checkpoints in {} is usable: starting a new model at version 0 (--fresh);"
                            + " they were moved to {}",
                    skipped.size(),
                    store.directory(),
                    aside);
            return TrainingLoop.Progress.FRESH;
        }
        List<String> files = skipped.stream()
                .map(k -> k.file().getFileName() + " (" + k.reason() + ")")
                .toList();
        throw new ConfigException("no usable checkpoint in " + store.directory() + ": " + String.join(", ", files)
                + "; move them away, or run with --fresh to start a new model at version 0 (it moves them into "
                + UNUSABLE_PREFIX + "<time>/)");
    }

    /**
     * Loads the roster, this node's certificate and the revocation lists when the config sets a roster: a
     * certificate that is not valid for this node (another peer's, expired, revoked, from a CA outside the roster)
     * stops the start with one line.
     */
    private void loadMembership(PrivateKey key) {
        NodeConfig.Membership files = config.network().membership();
        if (files == null) {
            return;
        }
        try {
            membership = Membership.load(
                    files.roster(),
                    files.certificate(),
                    files.crls(),
                    key.peerId().toBase58(),
                    Set.of(ModelExchange.PROTOCOL, SecureGroupService.PROTOCOL),
                    InstantSource.system(),
                    egressRecorder());
        } catch (MembershipException e) {
            throw new ConfigException(
                    config.configFile() + ": " + ConfigSchema.MEMBERSHIP_CERTIFICATE + ": " + e.getMessage(), e);
        }
        MemberCertificate own = membership.certificate();
        log.info(
                "membership enforced: {} institutions on the roster; this node is a {} of {} until {}",
                membership.roster().authorities().size(),
                own.role().id(),
                own.organisation(),
                own.notAfter());
    }

    /** Starts the libp2p host on the configured addresses, then gossipsub, and joins the consortium's topic. */
    private void startHost(PrivateKey key) {
        HostConfig hc = HostConfig.defaults(key)
                .withListenAddrs(config.network().listen())
                .withPrivateNetwork(config.network().privateNetwork())
                .withCrypto(config.network().crypto())
                .withInboundDelay(config.network().addedDelay());
        if (config.network().addedDelay().isPositive()) {
            log.warn(
                    "{}: every read waits {} ms (an experiment's setting: every round trip with a peer is that much"
                            + " longer)",
                    ConfigSchema.ADDED_DELAY_MS,
                    config.network().addedDelay().toMillis());
        }
        try {
            NoiseCiphers.select(config.network().crypto());
            Ed25519Engines.use(CryptoMode.parse(config.network().crypto().id()));
        } catch (LibCryptoUnavailableException e) {
            throw new ConfigException(config.configFile() + ": " + ConfigSchema.CRYPTO + ": " + e.getMessage(), e);
        }
        try {
            host = Host.start(hc, membership == null ? null : membership.gate()).get(30, TimeUnit.SECONDS);
        } catch (Exception e) {
            Throwable cause = e instanceof java.util.concurrent.ExecutionException ? e.getCause() : e;
            throw new ConfigException(
                    config.configFile() + ": " + ConfigSchema.LISTEN + ": cannot listen on "
                            + config.network().listen() + ": " + dev.chorus.gossip.transport.TcpTransport.reason(cause),
                    cause);
        }
        log.info("peer {} listening on {}", host.peerId(), host.listenAddrs());
        if (config.network().privateNetwork() != null) {
            log.info(
                    "private network: only peers with the key of fingerprint {} connect",
                    config.network().privateNetwork().fingerprint());
        }
        host.addConnectionListener(connectedPeers);
        pubsub = Pubsub.start(host, pubsubConfig());
        // Members a peer names when it prunes this node from a mesh, with their signed records: redialed like the
        // peers learnt through identify, so a node that lost its bootstrap peers still finds the consortium.
        pubsub.onPeerExchange((peer, addrs) -> {
            BootstrapDialer d = dialer;
            if (d != null) {
                d.learn(peer, addrs);
            }
        });
        Membership m = membership;
        if (m != null) {
            m.attach(pubsub, config.node().consortium());
        }
        announcements = new GossipsubAnnouncements(
                pubsub,
                config.node().consortium(),
                key,
                egressRecorder(),
                m == null ? peer -> java.util.Optional.empty() : m::publishRefusal);
        announcements.subscribe(members);
        log.info("joined {}", announcements.topic());
    }

    /**
     * Gossipsub with the consortium's topics scored: a message the topic validator rejects (an announcement that is
     * not its author's, or whose author is not a verified member, such as an observer's; a forged certificate or
     * CRL) counts against the peer that forwarded it (P4, invalid message deliveries, squared). The weights keep
     * that penalty above the rewards (time in the mesh, P1, at most 36; first deliveries, P2, at most 20): four
     * rejected messages put a peer below the graylist threshold, while one that an honest member relayed before it knew the author's certificate
     * costs 10 and decays by a tenth a second. The mesh delivery penalties (P3, P3b) are off, since both topics
     * carry a message every few seconds at most.
     */
    private PubsubConfig pubsubConfig() {
        PubsubConfig defaults = PubsubConfig.defaults();
        TopicScoreParams base = TopicScoreParams.defaults().withoutMeshDeliveryPenalty();
        TopicScoreParams scored = new TopicScoreParams(
                1,
                new TopicScoreParams.TimeInMesh(0.01, Duration.ofSeconds(1), 3600),
                new TopicScoreParams.FirstMessageDeliveries(1, 0.5, 20),
                base.p3(),
                base.p3b(),
                new TopicScoreParams.InvalidMessageDeliveries(-10, 0.9));
        String consortium = config.node().consortium();
        return defaults.withScore(
                        defaults.scoreParams()
                                .withTopics(Map.of(
                                        GossipsubAnnouncements.topic(consortium),
                                        scored,
                                        dev.chorus.node.membership.MembershipTopic.topic(consortium),
                                        scored)),
                        defaults.thresholds())
                // Peer exchange in PRUNEs: the members a pruned peer can turn to (their signed records).
                .withParams(defaults.params().toBuilder().doPX(true).build());
    }

    /** The node's gossipsub, for tests. */
    Pubsub pubsub() {
        return pubsub;
    }

    /**
     * Keeps the node connected without waiting for it: the bootstrap peers always, and peers learnt since (their
     * identify listen addresses) while fewer than {@code network.target_peers} are connected, each redialed with
     * exponential backoff after a lost connection or a failed dial. An unreachable peer never fails the start. A
     * reconnection is logged at INFO; failing dials at WARN, one summary a minute at most, so that a peer that is
     * down for hours does not fill the log.
     */
    private void startDialer() {
        PeriodicSummary failures = PeriodicSummary.perMinute(s -> log.warn(
                "dials failing{}: {}",
                s.period().isZero() ? "" : " in the last " + s.period().toSeconds() + " s",
                s.describe("peer")));
        BootstrapDialer.Events events = new BootstrapDialer.Events() {
            @Override
            public void reconnected(PeerId peer) {
                log.info("reconnected to peer {} after its connection was lost", peer);
            }

            @Override
            public void dialFailed(Multiaddr target, Throwable cause, int attempts) {
                if (failures.record(dialFailureKind(cause), target.toString())) {
                    log.info(
                            "peer {} unreachable, redialing with backoff: {}",
                            target,
                            cause.getMessage() == null ? cause.toString() : cause.getMessage());
                }
            }
        };
        BootstrapDialer.Config dialing = BootstrapDialer.Config.defaults()
                .withTargetPeers(config.network().targetPeers());
        dialFailures = failures;
        dialer = BootstrapDialer.start(host, config.network().bootstrap(), dialing, events);
    }

    /**
     * A dial failure's kind for the summary: the gate's reason for a refusal, else the socket's reason up to its first
     * colon ("connection refused"), so that one kind does not split per address.
     */
    static String dialFailureKind(Throwable cause) {
        if (cause instanceof ConnectionRefusedException r) {
            return "refused (" + r.reason() + ")";
        }
        if (cause instanceof dev.chorus.gossip.host.DialBackoffException) {
            return "in dial backoff";
        }
        String reason = dev.chorus.gossip.transport.TcpTransport.reason(cause);
        int colon = reason.indexOf(':');
        String kind = colon > 0 ? reason.substring(0, colon) : reason;
        return kind.length() > 60 ? kind.substring(0, 60) : kind;
    }

    private void startApi() {
        NodeConfig.Api settings = config.operations().api();
        if (!settings.enabled()) {
            return;
        }
        ApiAccess access = new ApiAccess(settings.allowedHosts(), settings.tokenRequired() ? apiToken(settings) : null);
        try {
            api = ApiServer.start(settings.host(), settings.port(), settings.limits(), access, this, metrics);
        } catch (UncheckedIOException e) {
            throw new ConfigException(
                    config.configFile() + ": " + ConfigSchema.API_PORT + ": "
                            + e.getCause().getMessage(),
                    e);
        }
        log.info("HTTP API and dashboard on http://{}:{}/", settings.host(), api.port());
        if (access.token() != null) {
            log.info("the API needs the bearer token in {} (the dashboard: open /#token=TOKEN)", settings.tokenFile());
        }
    }

    /**
     * The API's token, read from api.token_file; a missing file is created (mode 0600, a new token) so that a node
     * moved off loopback is never left open. One that cannot be created or read stops the node.
     */
    private ApiToken apiToken(NodeConfig.Api settings) {
        try {
            return ApiToken.loadOrCreate(settings.tokenFile());
        } catch (IOException | RuntimeException e) {
            throw new ConfigException(
                    config.configFile() + ": " + ConfigSchema.API_TOKEN_FILE + ": the API on " + settings.host()
                            + " needs a bearer token, and " + settings.tokenFile() + " gives none: "
                            + (e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage()),
                    e);
        }
    }

    /**
     * Hooks the averaging engine (and, for {@code sync}, the round barrier) and then {@code averaging} into the
     * loop, and starts the training thread.
     */
    private void startTraining(TrainingLoop trainingLoop, Sequential model, List<StepListener> averaging) {
        loop = trainingLoop;
        AveragingEngine e = engine;
        if (e != null) {
            loop.addStepListener(e);
            loop.followVersion(() -> e.localModel().version());
            if (roundStrategy != null) {
                RoundBarrier barrier = new RoundBarrier(
                        roundStrategy,
                        timeout -> e.awaitArrivals(model, timeout),
                        config.averaging().sync().roundTimeout(),
                        loop::stopRequested,
                        System::nanoTime);
                roundBarrier = barrier;
                loop.addStepListener(barrier);
                Barrier sync = roundStrategy;
                afterTraining = () -> serveRounds(sync, e, model);
            }
        }
        for (StepListener l : averaging) {
            loop.addStepListener(l);
        }
        Thread t = new Thread(this::train, "chorus-training");
        trainingThread = t;
        t.start();
    }

    /**
     * The config key most to blame for {@code e}: the one that named a column the file lacks, {@code data.path}
     * (the file itself) for everything else.
     */
    private static String dataKey(DataException e) {
        return switch (e.unknownColumnRole().orElse("")) {
            case "label" -> ConfigSchema.DATA_LABEL;
            case "drop" -> ConfigSchema.DATA_DROP;
            case "categorical" -> ConfigSchema.DATA_CATEGORICAL;
            default -> ConfigSchema.DATA_PATH;
        };
    }

    /**
     * Serves {@code /chorus/model/1.0.0} and builds the averaging engine around the configured strategy, assembled as
     * the testnet assembles it ({@link NodeAveraging}). The engine takes the peers to exchange with from the host's
     * open connections at each round (those whose identify lists the protocol), so connects and disconnects take
     * effect at the next round.
     */
    private AveragingEngine startAveraging(Sequential model, LocalData data, long version) {
        String self = host.peerId().toBase58();
        AveragingStrategy strategy = AveragingStrategies.create(config, self, model.parameterCount());
        roundStrategy = strategy.barrier().orElse(null);
        // Each node draws its own peer sequence: the shared training seed mixed with the node's id.
        long seed = config.training().seed() * 0x9E3779B97F4A7C15L + self.hashCode();
        AveragingEngine.Config engineConfig = AveragingEngine.Config.defaults(seed)
                .withExchangeEvery(config.averaging().pacing().everySteps())
                .withMaxVersionLead(config.averaging().pacing().maxVersionLead())
                .withMaxDriftSteps(config.averaging().pacing().maxDriftSteps())
                .withMaxStepScale(config.averaging().pacing().stragglerCompensation())
                .withMaxExchangesPerSecondPerPeer(config.averaging().pacing().maxExchangesPerSecondPerPeer());
        ModelExchange.Config exchangeConfig =
                ModelExchange.Config.defaults().withDtype(config.averaging().dtype());
        NodeAveraging a = NodeAveraging.start(
                host,
                model,
                version,
                data.train().rows(),
                new MeteredStrategy(strategy, metrics),
                new NodeAveraging.Settings(
                        engineConfig,
                        exchangeConfig,
                        audit,
                        config.averaging().secure(),
                        config.averaging().secureRelay()));
        averaging = a;
        AveragingEngine e = a.engine();
        ModelExchange x = a.exchange();
        metrics.bindBytes(ModelExchange.PROTOCOL, x::bytesReceived, x::bytesSent);
        metrics.bindAveraging(() -> {
            AveragingEngine.Stats st = e.stats();
            RoundBarrier barrier = roundBarrier;
            return new AveragingCounters(
                    st.rounds(),
                    new AveragingCounters.Exchanges(
                            st.outgoing().sent(),
                            st.outgoing().sendFailures(),
                            st.outgoing().abandoned(),
                            st.outgoing().throttledRounds()),
                    new AveragingCounters.Updates(
                            st.incoming().received(),
                            st.incoming().accepted(),
                            st.incoming().ignored(),
                            st.incoming().refused(),
                            st.incoming().versionsClamped()),
                    new AveragingCounters.Waits(
                            st.driftWaitNanos() / 1e9,
                            barrier == null ? 0 : barrier.waited().toNanos() / 1e9,
                            barrier == null ? 0 : barrier.timeouts()),
                    e.stepScale());
        });
        log.info(
                "averaging: {} every {} steps, {} parameters, {} training rows",
                config.averaging().strategy(),
                config.averaging().pacing().everySteps(),
                model.parameterCount(),
                data.train().rows());
        return e;
    }

    /**
     * Publishes a signed announcement of the model the network serves (its latest snapshot) every {@code
     * averaging.announce_every_seconds}, on a thread of its own: the digest is computed off the training thread.
     */
    private void startAnnouncing(byte[] architecture) {
        String self = host.peerId().toBase58();
        ScheduledExecutorService s = Executors.newSingleThreadScheduledExecutor(
                r -> Thread.ofPlatform().daemon().name("chorus-announcer").unstarted(r));
        announcer = s;
        long every = config.averaging().announceEvery().toMillis();
        s.scheduleWithFixedDelay(
                () -> announce(self, architecture), Math.min(every, 1000), every, TimeUnit.MILLISECONDS);
    }

    private void announce(String self, byte[] architecture) {
        try (SnapshotBuffer.Lease l = averaging.snapshots().acquire()) {
            if (l == null) {
                return;
            }
            Map<String, Double> m = new LinkedHashMap<>();
            putFinite(m, "accuracy", metrics.accuracy());
            putFinite(m, "loss", metrics.validationLoss());
            putFinite(m, "train_loss", metrics.trainLoss());
            announcements.publish(new ModelAnnouncement(
                    self,
                    architecture,
                    l.version(),
                    l.sampleCount(),
                    ModelAnnouncement.parameterDigest(l.values()),
                    System.currentTimeMillis(),
                    m));
        } catch (RuntimeException e) {
            log.warn("announcement not published: {}", e.toString());
        }
    }

    private static void putFinite(Map<String, Double> m, String name, double value) {
        if (Double.isFinite(value)) {
            m.put(name, value);
        }
    }

    /**
     * Where every payload this node sends must be recorded: the egress audit log in {@code data_dir/audit/}. Each
     * protocol that sends calls it with the peer, its protocol id, a kind and the bytes as sent.
     */
    public EgressRecorder egressRecorder() {
        EgressAuditLog a = audit;
        return a == null ? EgressRecorder.NONE : a;
    }

    /** The averaging engine, or null when {@code averaging.strategy} is {@code none}. */
    public AveragingEngine averagingEngine() {
        return engine;
    }

    private void train() {
        try {
            loop.run();
        } catch (RuntimeException e) {
            failure = "training stopped: " + e.getMessage();
            log.error(failure, e);
            return;
        }
        if (loop.stopRequested()) {
            return;
        }
        Runnable after = afterTraining;
        AveragingEngine e = engine;
        if (after != null) {
            roundsThread = Thread.ofPlatform().name("chorus-rounds").start(after);
        } else if (e != null) {
            e.retire();
            log.info(
                    "training done at step {}: serving the model to peers with a sample count of 0, so that those"
                            + " weighting by samples no longer move towards it",
                    metrics.steps());
        }
    }

    /**
     * After this node's epochs, with {@code sync}: the other participants (with more rows, more steps to go) would
     * wait at every barrier for a contribution that never comes. The node stays in the rounds instead: whenever
     * another participant begins one, it contributes its model with a sample count of 0, so the average is the
     * training nodes' and the round completes, and it adopts the result. Until the node is stopped.
     */
    private void serveRounds(Barrier sync, AveragingEngine e, Sequential model) {
        sync.retire();
        log.info(
                "training done at step {}: contributing with weight 0 to the rounds the other participants begin,"
                        + " until stopped",
                metrics.steps());
        try {
            while (!loop.stopRequested()) {
                e.awaitArrivals(model, RoundBarrier.POLL);
                if (sync.peerBeganRound()) {
                    e.beginRound(model);
                }
            }
        } catch (RuntimeException ex) {
            log.warn("taking part in rounds after training stopped: {}", ex.toString());
        }
    }

    /** The port of the HTTP API, or -1 when it is off. */
    public int apiPort() {
        ApiServer a = api;
        return a == null ? -1 : a.port();
    }

    public NodeMetrics metrics() {
        return metrics;
    }

    public NodeConfig config() {
        return config;
    }

    /** Waits until the training thread has ended (after {@link #close} or the configured epochs). */
    public void awaitTraining() throws InterruptedException {
        Thread t = trainingThread;
        if (t != null) {
            t.join();
        }
    }

    /** Waits up to {@code timeout} for the training thread to end; true when it has. */
    public boolean awaitTraining(java.time.Duration timeout) throws InterruptedException {
        Thread t = trainingThread;
        return t == null || t.join(timeout);
    }

    /**
     * Stops training after the current step, writes a checkpoint, closes the API and the host's
     * connections. Idempotent.
     */
    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        TrainingLoop l = loop;
        Thread t = trainingThread;
        if (l != null) {
            l.requestStop();
        }
        if (t != null) {
            try {
                t.join();
                Thread r = roundsThread;
                if (r != null) {
                    r.join();
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        if (announcer != null) {
            announcer.shutdownNow();
        }
        if (averaging != null) {
            averaging.close(); // the engine, then the exchange
        }
        if (api != null) {
            api.close();
        }
        if (announcements != null) {
            announcements.close();
        }
        if (membership != null) {
            membership.close();
        }
        if (pubsub != null) {
            pubsub.close();
        }
        if (mdns != null) {
            mdns.close();
        }
        if (dialer != null) {
            dialer.close();
            dialFailures.flush();
        }
        if (host != null) {
            host.close();
        }
        for (int i = resources.size() - 1; i >= 0; i--) {
            try {
                resources.get(i).close();
            } catch (Exception e) {
                log.debug("closing {}: {}", resources.get(i), e.toString());
            }
        }
        log.info("node stopped at model version {}", metrics.version());
    }

    // NodeView

    @Override
    public Membership membership() {
        return membership;
    }

    @Override
    public String peerId() {
        Host h = host;
        return h == null ? "" : h.peerId().toString();
    }

    @Override
    public List<String> listenAddrs() {
        Host h = host;
        return h == null
                ? List.of()
                : h.listenAddrs().stream().map(Multiaddr::toString).toList();
    }

    @Override
    public String consortium() {
        return config.node().consortium();
    }

    @Override
    public String strategy() {
        return config.averaging().strategy().configName();
    }

    @Override
    public NoiseCiphers.Selection cipher() {
        Host h = host;
        return h == null ? null : h.cipher();
    }

    @Override
    public String backend() {
        TensorBackend b = backend;
        return b == null ? "" : b.name();
    }

    @Override
    public String model() {
        return config.model().spec().toString();
    }

    @Override
    public Instant startedAt() {
        return startedAt;
    }

    @Override
    public List<PeerInfo> peers() {
        return connectedPeers.peers();
    }

    @Override
    public List<ConsortiumMembers.Member> members() {
        return members.members();
    }

    @Override
    public Map<String, AveragingEngine.PeerTiming> peerTimings() {
        AveragingEngine e = engine;
        return e == null
                ? Map.of()
                : e.timings(peers().stream().map(PeerInfo::peerId).toList());
    }

    @Override
    public int knownDisconnectedPeers() {
        BootstrapDialer d = dialer;
        return d == null ? 0 : d.disconnectedPeers();
    }

    @Override
    public dev.chorus.node.secagg.SecAggCounters secureAggregation() {
        NodeAveraging a = averaging;
        return a == null ? null : a.secure().map(SecureGroupService::counters).orElse(null);
    }

    @Override
    public long redials() {
        BootstrapDialer d = dialer;
        return d == null ? 0 : d.redials();
    }

    @Override
    public long peerBans() {
        NodeAveraging a = averaging;
        return a == null ? 0 : a.exchange().standing().bans();
    }

    @Override
    public long announcementsRejected() {
        GossipsubAnnouncements a = announcements;
        return (a == null ? 0 : a.rejected()) + members.ignored();
    }

    @Override
    public boolean ready() {
        TrainingLoop l = loop;
        return host != null && l != null && l.started() && failure == null && !closed;
    }

    @Override
    public String failure() {
        return failure;
    }

    /** The data directory's layout: created on start, the key file checked by the config. */
    static final class DataDirectory {
        private DataDirectory() {}

        static void prepare(NodeConfig config) {
            List<Path> dirs =
                    List.of(config.node().dataDir(), config.checkpointDir(), config.auditDir(), config.logDir());
            for (Path dir : dirs) {
                try {
                    OwnerOnlyFiles.createDirectories(dir);
                } catch (IOException e) {
                    throw new ConfigException(
                            config.configFile() + ": " + ConfigSchema.DATA_DIR + ": cannot create " + dir + ": "
                                    + e.getMessage(),
                            e);
                }
            }
        }
    }
}
