package dev.chorus.node.config;

import dev.chorus.gossip.identity.KeyFile;
import dev.chorus.gossip.identity.KeyFileException;
import dev.chorus.gossip.identity.PeerId;
import dev.chorus.gossip.libcrypto.CryptoMode;
import dev.chorus.gossip.multiaddr.Multiaddr;
import dev.chorus.gossip.pnet.PreSharedKey;
import dev.chorus.gossip.pnet.PreSharedKeyException;
import dev.chorus.learning.model.ModelSpec;
import dev.chorus.learning.optim.LearningRateSchedule;
import dev.chorus.learning.optim.OptimizerSpec;
import dev.chorus.node.api.ApiLimits;
import dev.chorus.node.averaging.AveragingKind;
import dev.chorus.node.averaging.RobustRule;
import dev.chorus.node.averaging.StrategySettings;
import dev.chorus.node.protocol.Dtype;
import dev.chorus.node.secagg.RelayRole;
import dev.chorus.node.secagg.SecAggSettings;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * A node's validated, immutable configuration (see {@link ConfigSchema} for every key). Built only
 * by {@link ConfigLoader}, which checks every value once: types, ranges, multiaddrs, that the data
 * set exists and is readable, that the identity key loads, and that the model and optimizer specs
 * parse.
 */
public record NodeConfig(
        Path configFile,
        Node node,
        Network network,
        Data data,
        Model model,
        Training training,
        Averaging averaging,
        Operations operations) {

    /**
     * The node itself: the consortium it joins, where it keeps its state, and the key that identifies it.
     *
     * @param consortium the consortium it joins
     * @param dataDir the directory that holds its state (checkpoints, audit log, logs)
     * @param keyFile its identity key
     */
    public record Node(String consortium, Path dataDir, Path keyFile) {}

    /**
     * Where the node listens, whom it dials first, and whom it admits.
     *
     * @param targetPeers how many peers the node keeps connected to, redialing learnt peers while below it
     * @param membership the consortium's roster and this node's certificate, or null when the node admits everyone
     * @param privateNetwork the key of the libp2p private network every connection is encrypted with, or null when
     *     there is none
     * @param crypto how the Noise transport's ChaCha20-Poly1305 is chosen ({@code network.crypto})
     * @param mdns {@code off}, {@code on} or the name of the interface to run mDNS on ({@code network.mdns})
     * @param addedDelay how long every byte received waits before the node reads it ({@code network.added_delay_ms};
     *     zero: none)
     */
    public record Network(
            List<Multiaddr> listen,
            List<Multiaddr> bootstrap,
            int targetPeers,
            Membership membership,
            PreSharedKey privateNetwork,
            CryptoMode crypto,
            String mdns,
            java.time.Duration addedDelay) {}

    /**
     * The files of a node's consortium membership (see {@code dev.chorus.node.membership.Membership}).
     *
     * @param roster the institutions' CA certificates
     * @param certificate this node's member certificate
     * @param crls revocation list files or directories
     */
    public record Membership(List<Path> roster, Path certificate, List<Path> crls) {}

    /**
     * The local data set and how to read it.
     *
     * @param format {@code csv}, {@code idx} or {@code auto}
     * @param csv how a CSV data set's columns are read (unused for IDX)
     * @param idxPrefix the IDX file pair to read (unused for CSV)
     * @param validationFraction the share of the rows held out to validate on
     */
    public record Data(Path path, String format, Csv csv, String idxPrefix, double validationFraction) {

        /** Whether the data set is read as IDX files. */
        public boolean idx() {
            return format.equals("idx") || (format.equals("auto") && Files.isDirectory(path));
        }
    }

    /**
     * How a CSV data set's columns are read.
     *
     * @param label the label column (null when not set: an IDX data set needs none)
     * @param positive the label value that is the positive class (null: inferred)
     * @param drop columns that are not features
     * @param categorical columns read as categories
     * @param missing {@code drop} or {@code impute}
     * @param standardize whether features are z-scored with the local training split's statistics
     */
    public record Csv(
            String label,
            String positive,
            List<String> drop,
            List<String> categorical,
            String missing,
            boolean standardize) {}

    /** What is trained, and on which backend. */
    public record Model(ModelSpec spec, OptimizerSpec optimizer, String backend, int threads) {}

    /**
     * The local training loop.
     *
     * @param epochs passes over the local training split; 0 trains until the node is stopped
     * @param lrSchedule the learning rate over the steps of {@code epochs} (constant when {@code epochs} is 0)
     */
    public record Training(
            int batch,
            long seed,
            int epochs,
            Interval evaluation,
            int pauseMillis,
            LearningRateSchedule lrSchedule,
            EarlyStoppingPolicy earlyStopping) {

        /** Steps between two evaluations (the step half of {@link #evaluation}). */
        public int evalEverySteps() {
            return evaluation.steps();
        }
    }

    /**
     * What the node does when the validation loss stops improving.
     *
     * @param mode {@code auto}, {@code warn}, {@code stop} or {@code off}
     * @param patience evaluations in a row without a new best before it acts
     */
    public record EarlyStoppingPolicy(String mode, int patience) {

        /**
         * Below this many training rows {@code auto} means {@code stop} for a node that trains alone: at thousands of
         * steps a second such a data set is seen thousands of times within minutes, and training past the best
         * validation loss only fits its noise.
         */
        public static final int SMALL_DATA_ROWS = 10_000;

        /**
         * {@code warn}, {@code stop} or {@code off} for a training split of {@code trainRows} rows, on a node that
         * averages with peers ({@code averaging}) or trains alone. {@code auto} stops only a node that trains alone:
         * its validation split then measures what its model is for. Under averaging the model is meant to fit the
         * pooled data of every member, and the local split holds this member's shard only; on a label-skewed shard
         * its loss can rise while the model improves for the consortium, and a stop would restore a model fitted
         * to the shard as this member's final one and keep serving it to peers unchanged.
         */
        public String resolve(int trainRows, boolean averaging) {
            if (!mode.equals("auto")) {
                return mode;
            }
            return trainRows < SMALL_DATA_ROWS && !averaging ? "stop" : "warn";
        }
    }

    /**
     * When something periodic is due: once both {@code steps} steps and {@code time} have passed since it last ran
     * (whichever comes later). The time half keeps a fast node from evaluating or checkpointing several times a
     * second; the step half keeps a slow one from doing it while hardly anything changed.
     *
     * @param steps at least 1
     * @param time zero for steps only
     */
    public record Interval(int steps, java.time.Duration time) {
        public Interval {
            if (steps < 1 || time.isNegative()) {
                throw new IllegalArgumentException("an interval needs at least 1 step and no negative time");
            }
        }

        /** Whether it is due, {@code stepsSince} steps and {@code nanosSince} nanoseconds after it last ran. */
        public boolean due(long stepsSince, long nanosSince) {
            return stepsSince >= steps && nanosSince >= time.toNanos();
        }
    }

    /**
     * How the model is averaged with peers.
     *
     * @param strategy the averaging strategy, or {@link AveragingKind#NONE}
     * @param pacing when the engine exchanges, and how far it lets versions and training run ahead
     * @param strategies the settings of each strategy that has some of its own
     * @param announceEvery time between two announcements on the consortium topic
     * @param exchange how received models are weighted and screened, and sent models encoded
     * @param robustness the robust rule of {@code sync} and {@code fedbuff}, and {@code sync}'s round deadline
     */
    public record Averaging(
            AveragingKind strategy,
            Pacing pacing,
            Strategies strategies,
            java.time.Duration announceEvery,
            Exchange exchange,
            StrategySettings.Robustness robustness) {

        /** Whether the node exchanges with peers at all. */
        public boolean enabled() {
            return strategy.exchanges();
        }

        /**
         * The settings of the strategies that have some of their own.
         *
         * @param fragmented the settings of the {@code fragmented} strategy
         * @param fedBuff the settings of the {@code fedbuff} strategy
         * @param sync the settings of the {@code sync} strategy
         * @param secure the settings of the {@code secure} strategy's group rounds
         * @param secureRelay whether this node takes its turn as the relay of its groups: always, never, or as its
         *     own rounds show
         */
        public record Strategies(
                Fragmented fragmented,
                FedBuff fedBuff,
                Sync sync,
                SecAggSettings secure,
                RelayRole.Setting secureRelay) {}

        /** The {@code fragmented} strategy's settings. */
        public Fragmented fragmented() {
            return strategies.fragmented();
        }

        /** The {@code fedbuff} strategy's settings. */
        public FedBuff fedBuff() {
            return strategies.fedBuff();
        }

        /** The {@code sync} strategy's settings. */
        public Sync sync() {
            return strategies.sync();
        }

        /** The {@code secure} strategy's settings. */
        public SecAggSettings secure() {
            return strategies.secure();
        }

        /** Whether this node takes its turn as the relay of its groups ({@code averaging.secure_relay}). */
        public RelayRole.Setting secureRelay() {
            return strategies.secureRelay();
        }

        /**
         * What the node does with the models it exchanges.
         *
         * @param bySampleCount whether asynchronous strategies weight a received model by its node's sample count
         * @param dtype how sent models are encoded
         * @param screening how {@code async}, {@code fragmented} and {@code sync} screen received models
         */
        public record Exchange(boolean bySampleCount, Dtype dtype, StrategySettings.Screening screening) {}

        /** How {@code async} and {@code fragmented} screen received models. */
        public StrategySettings.Screening screening() {
            return exchange.screening();
        }

        /** Whether asynchronous strategies weight a received model by its node's sample count. */
        public boolean bySampleCount() {
            return exchange.bySampleCount();
        }

        /** How sent models are encoded. */
        public Dtype dtype() {
            return exchange.dtype();
        }

        /**
         * The averaging engine's pacing.
         *
         * @param everySteps local steps between two exchanges
         * @param maxVersionLead the most versions a received model is taken to be ahead of the local one
         * @param maxDriftSteps the most steps past the last completed exchange while one is in flight (0: no bound)
         * @param maxExchangesPerSecondPerPeer the most exchanges a second this node starts with one peer (0: no bound)
         * @param stragglerCompensation the largest factor by which a node slower than the consortium scales its own
         *     steps (1: off)
         */
        public record Pacing(
                int everySteps,
                long maxVersionLead,
                int maxDriftSteps,
                double maxExchangesPerSecondPerPeer,
                double stragglerCompensation) {}

        /**
         * The {@code fragmented} strategy's settings.
         *
         * @param fragments fragments per round; 0: {@code FragmentedGossip.defaultFragments} of the model's
         *     parameter count
         * @param fanout peers per fragment
         * @param fragmentBalance whether the share of each average taken from received fragments is scaled by the
         *     node's ratio of coordinates delivered to received
         */
        public record Fragmented(int fragments, int fanout, boolean fragmentBalance) {}

        /**
         * The {@code fedbuff} strategy's settings.
         *
         * @param aggregator the aggregator's peer id (null when not set)
         * @param bufferSize deltas per applied buffer
         */
        public record FedBuff(String aggregator, int bufferSize) {}

        /**
         * The {@code sync} strategy's settings.
         *
         * @param participants every node of a round (empty when not set)
         * @param roundTimeout how long training waits at a round's barrier before it trains on
         */
        public record Sync(List<String> participants, java.time.Duration roundTimeout) {}
    }

    /** What the node writes and serves for its operators: checkpoints, the egress audit log, the HTTP API, its log. */
    public record Operations(Checkpoints checkpoints, Audit audit, Api api, Log log) {}

    /**
     * When checkpoints are written, which are kept, and whether a collapse of the model reverts to one.
     *
     * @param keep the newest checkpoints kept
     * @param hourlyForHours hours for which the first checkpoint of each hour is kept too
     * @param dailyForDays days for which the first checkpoint of each day is kept too
     * @param revertOnCollapse whether a collapse restores the newest checkpoint from before it
     */
    public record Checkpoints(
            Interval every, int keep, int hourlyForHours, int dailyForDays, boolean revertOnCollapse) {

        /** Steps between two checkpoints (the step half of {@link #every}). */
        public int everySteps() {
            return every.steps();
        }
    }

    /** How long the egress audit log keeps records, and its size cap in bytes. */
    public record Audit(int retentionDays, long maxBytes) {}

    /**
     * The HTTP API.
     *
     * @param tokenFile the bearer token's file
     * @param tokenRequired whether every request but the probes must carry the token: always off loopback
     * @param allowedHosts the Host header names accepted (lower case, no port): the loopback names, {@code host}
     *     unless it is a wildcard, and {@code api.allowed_hosts}
     */
    public record Api(
            boolean enabled,
            String host,
            int port,
            Path tokenFile,
            boolean tokenRequired,
            List<String> allowedHosts,
            ApiLimits limits) {}

    /**
     * How the daemon logs.
     *
     * @param level the root level
     * @param levels logger name to level, in the order the config lists them
     * @param format {@code text}, {@code json} or {@code auto}
     * @param file whether the log is also written to {@link #logFile()}
     */
    public record Log(String level, Map<String, String> levels, String format, boolean file) {}

    /** The subdirectory of the data directory that holds checkpoints. */
    public Path checkpointDir() {
        return node.dataDir().resolve("checkpoints");
    }

    /** The subdirectory of the data directory that holds the egress audit log. */
    public Path auditDir() {
        return node.dataDir().resolve("audit");
    }

    public Path logDir() {
        return node.dataDir().resolve("logs");
    }

    /** The daemon's log file, {@code logs/chorus.log} in the data directory. */
    public Path logFile() {
        return logDir().resolve("chorus.log");
    }

    private static String labelListed(String label, String key) {
        return "lists " + label + ", the label column (" + ConfigSchema.DATA_LABEL + "): the label is never a feature;"
                + " take it out of " + key;
    }

    static NodeConfig from(Path configFile, ConfigValues v) {
        // With several bad keys the first one checked is reported, so the order of the sections is kept.
        String consortium = consortium(v);
        Path dataDir = dataDir(v);
        Path keyFile = keyFile(v, dataDir);
        Network network = network(v);
        Data data = data(v);
        Model model = model(v);
        Training training = training(v);
        Averaging averaging = averaging(v);
        Checkpoints checkpoints = new Checkpoints(
                new Interval(
                        v.integer(ConfigSchema.CHECKPOINT_EVERY), v.seconds(ConfigSchema.CHECKPOINT_EVERY_SECONDS)),
                v.integer(ConfigSchema.CHECKPOINT_KEEP),
                v.integer(ConfigSchema.CHECKPOINT_HOURLY_HOURS),
                v.integer(ConfigSchema.CHECKPOINT_DAILY_DAYS),
                v.bool(ConfigSchema.CHECKPOINT_REVERT_ON_COLLAPSE));
        Audit audit = new Audit(
                v.integer(ConfigSchema.AUDIT_RETENTION_DAYS), (long) v.integer(ConfigSchema.AUDIT_MAX_MB) << 20);
        Api api = ApiConfig.api(v, dataDir);
        Log log = log(v);
        return new NodeConfig(
                configFile,
                new Node(consortium, dataDir, keyFile),
                network,
                data,
                model,
                training,
                averaging,
                new Operations(checkpoints, audit, api, log));
    }

    private static String consortium(ConfigValues v) {
        String consortium = v.string(ConfigSchema.CONSORTIUM);
        if (consortium.isBlank() || !consortium.matches("[A-Za-z0-9._-]{1,64}")) {
            throw v.error(
                    ConfigSchema.CONSORTIUM,
                    "expected 1 to 64 letters, digits, '.', '_' or '-', got '" + consortium + "'");
        }
        return consortium;
    }

    private static Path dataDir(ConfigValues v) {
        Path dataDir = v.path(ConfigSchema.DATA_DIR, null);
        if (Files.exists(dataDir) && !Files.isDirectory(dataDir)) {
            throw v.error(ConfigSchema.DATA_DIR, dataDir + " is not a directory");
        }
        return dataDir;
    }

    /** The identity key file, relative to {@code dataDir}; it must exist and load. */
    private static Path keyFile(ConfigValues v, Path dataDir) {
        Path keyFile = v.path(ConfigSchema.KEY_FILE, dataDir);
        if (!Files.exists(keyFile)) {
            throw v.error(
                    ConfigSchema.KEY_FILE,
                    "key file " + keyFile + " does not exist (chorus init --dir DATA_DIR creates one)");
        }
        try {
            KeyFile.load(keyFile);
        } catch (KeyFileException e) {
            throw v.error(ConfigSchema.KEY_FILE, e.getMessage());
        }
        return keyFile;
    }

    private static Network network(ConfigValues v) {
        List<Multiaddr> listen = multiaddrs(v, ConfigSchema.LISTEN);
        if (listen.isEmpty()) {
            throw v.error(ConfigSchema.LISTEN, "at least one listen address is required");
        }
        for (int i = 0; i < listen.size(); i++) {
            try {
                listen.get(i).withoutPeerId().toTcpSocketAddress();
            } catch (RuntimeException e) {
                throw v.error(ConfigSchema.LISTEN, "[" + i + "] " + listen.get(i) + ": " + e.getMessage());
            }
        }
        List<Multiaddr> bootstrap = multiaddrs(v, ConfigSchema.BOOTSTRAP);
        for (int i = 0; i < bootstrap.size(); i++) {
            if (bootstrap.get(i).peerId().isEmpty()) {
                throw v.error(
                        ConfigSchema.BOOTSTRAP,
                        "[" + i + "] " + bootstrap.get(i) + ": must end in /p2p/<peer id> so the peer can be verified");
            }
        }
        int targetPeers = v.integer(ConfigSchema.TARGET_PEERS);
        if (targetPeers > ConfigSchema.MAX_TARGET_PEERS) {
            throw v.error(
                    ConfigSchema.TARGET_PEERS,
                    "must be at most " + ConfigSchema.MAX_TARGET_PEERS + ", got " + targetPeers);
        }
        CryptoMode crypto;
        try {
            crypto = CryptoMode.parse(v.string(ConfigSchema.CRYPTO));
        } catch (IllegalArgumentException e) {
            throw v.error(ConfigSchema.CRYPTO, e.getMessage());
        }
        int delay = v.integer(ConfigSchema.ADDED_DELAY_MS);
        if (delay > ConfigSchema.MAX_ADDED_DELAY_MS) {
            throw v.error(
                    ConfigSchema.ADDED_DELAY_MS,
                    "must be at most " + ConfigSchema.MAX_ADDED_DELAY_MS + ", got " + delay);
        }
        return new Network(
                listen,
                bootstrap,
                targetPeers,
                membership(v),
                privateNetwork(v),
                crypto,
                mdns(v),
                java.time.Duration.ofMillis(delay));
    }

    /** {@code off}, {@code on}, or the name of a network interface of this machine. */
    private static String mdns(ConfigValues v) {
        String mdns = v.string(ConfigSchema.MDNS).strip();
        switch (mdns.toLowerCase(java.util.Locale.ROOT)) {
            case "off", "false", "no" -> {
                return "off";
            }
            case "on", "true", "yes" -> {
                return "on";
            }
            default -> {
                // an interface's name
            }
        }
        try {
            if (java.net.NetworkInterface.getByName(mdns) != null) {
                return mdns;
            }
            List<String> names = java.net.NetworkInterface.networkInterfaces()
                    .map(java.net.NetworkInterface::getName)
                    .sorted()
                    .toList();
            throw v.error(
                    ConfigSchema.MDNS,
                    "expected off, on or a network interface's name; this machine has no interface \"" + mdns
                            + "\" (it has " + String.join(", ", names) + ")");
        } catch (java.net.SocketException e) {
            throw v.error(ConfigSchema.MDNS, "cannot list the network interfaces: " + e.getMessage());
        }
    }

    /** The private network's key, which must load; null when no key file is set. */
    private static PreSharedKey privateNetwork(ConfigValues v) {
        if (!v.isSet(ConfigSchema.PSK_FILE)) {
            return null;
        }
        try {
            return PreSharedKey.load(v.path(ConfigSchema.PSK_FILE, null));
        } catch (PreSharedKeyException e) {
            throw v.error(ConfigSchema.PSK_FILE, e.getMessage());
        }
    }

    /** The membership files, which must exist; null without a roster or with enforcement off. */
    private static Membership membership(ConfigValues v) {
        List<Path> roster = paths(v, ConfigSchema.MEMBERSHIP_ROSTER);
        List<Path> crls = paths(v, ConfigSchema.MEMBERSHIP_CRL);
        if (roster.isEmpty()) {
            if (v.isSet(ConfigSchema.MEMBERSHIP_CERTIFICATE)) {
                throw v.error(
                        ConfigSchema.MEMBERSHIP_CERTIFICATE,
                        "a certificate without " + ConfigSchema.MEMBERSHIP_ROSTER + " admits nobody; set the roster");
            }
            return null;
        }
        if (!v.bool(ConfigSchema.MEMBERSHIP_ENFORCE)) {
            return null;
        }
        if (!v.isSet(ConfigSchema.MEMBERSHIP_CERTIFICATE)) {
            throw v.error(
                    ConfigSchema.MEMBERSHIP_CERTIFICATE,
                    "required with " + ConfigSchema.MEMBERSHIP_ROSTER + ": this node's member certificate"
                            + " (chorus consortium issue --peer-id <this node's peer ID> ...)");
        }
        Path certificate = v.path(ConfigSchema.MEMBERSHIP_CERTIFICATE, null);
        if (!Files.isReadable(certificate)) {
            throw v.error(ConfigSchema.MEMBERSHIP_CERTIFICATE, "cannot read " + certificate);
        }
        return new Membership(roster, certificate, crls);
    }

    private static List<Path> paths(ConfigValues v, String key) {
        List<Path> out = new java.util.ArrayList<>();
        List<String> raw = v.list(key);
        for (int i = 0; i < raw.size(); i++) {
            Path p = v.resolve(key, raw.get(i));
            if (!Files.exists(p)) {
                throw v.error(key, "[" + i + "] " + p + " does not exist");
            }
            out.add(p);
        }
        return out;
    }

    private static Data data(ConfigValues v) {
        Path dataPath = v.path(ConfigSchema.DATA_PATH, null);
        if (!Files.exists(dataPath)) {
            throw v.error(ConfigSchema.DATA_PATH, "data file not found: " + dataPath);
        }
        if (!Files.isReadable(dataPath)) {
            throw v.error(ConfigSchema.DATA_PATH, "data file not readable: " + dataPath);
        }
        double fraction = v.number(ConfigSchema.DATA_VALIDATION_FRACTION);
        if (!(fraction > 0 && fraction < 1)) {
            throw v.error(ConfigSchema.DATA_VALIDATION_FRACTION, "must lie strictly between 0 and 1, got " + fraction);
        }
        Csv csv = new Csv(
                v.isSet(ConfigSchema.DATA_LABEL) ? v.string(ConfigSchema.DATA_LABEL) : null,
                v.isSet(ConfigSchema.DATA_POSITIVE) ? v.string(ConfigSchema.DATA_POSITIVE) : null,
                v.list(ConfigSchema.DATA_DROP),
                v.list(ConfigSchema.DATA_CATEGORICAL),
                v.string(ConfigSchema.DATA_MISSING),
                v.bool(ConfigSchema.DATA_STANDARDIZE));
        Data data = new Data(
                dataPath, v.string(ConfigSchema.DATA_FORMAT), csv, v.string(ConfigSchema.DATA_IDX_PREFIX), fraction);
        if (data.idx() && !Files.isDirectory(dataPath)) {
            throw v.error(ConfigSchema.DATA_FORMAT, "idx needs a directory, but data.path is the file " + dataPath);
        }
        if (!data.idx() && Files.isDirectory(dataPath)) {
            throw v.error(ConfigSchema.DATA_FORMAT, "csv needs a file, but data.path is the directory " + dataPath);
        }
        if (!data.idx() && csv.label() == null) {
            throw v.error(ConfigSchema.DATA_LABEL, "required for a CSV data set: name the column that holds the label");
        }
        // The schema builder refuses these too, but names neither the file nor the key.
        if (!data.idx() && csv.drop().contains(csv.label())) {
            throw v.error(ConfigSchema.DATA_DROP, labelListed(csv.label(), ConfigSchema.DATA_DROP));
        }
        if (!data.idx() && csv.categorical().contains(csv.label())) {
            throw v.error(ConfigSchema.DATA_CATEGORICAL, labelListed(csv.label(), ConfigSchema.DATA_CATEGORICAL));
        }
        return data;
    }

    /** The model and optimizer specs, parsed (and the optimizer built once) so that a bad spec fails here. */
    private static Model model(ConfigValues v) {
        ModelSpec spec;
        try {
            spec = ModelSpec.parse(v.string(ConfigSchema.MODEL_SPEC));
        } catch (IllegalArgumentException e) {
            throw v.error(ConfigSchema.MODEL_SPEC, e.getMessage());
        }
        OptimizerSpec optimizer;
        try {
            optimizer = OptimizerSpec.parse(v.string(ConfigSchema.MODEL_OPTIMIZER));
            optimizer.create().close();
        } catch (IllegalArgumentException e) {
            throw v.error(ConfigSchema.MODEL_OPTIMIZER, e.getMessage());
        }
        return new Model(spec, optimizer, v.string(ConfigSchema.MODEL_BACKEND), v.integer(ConfigSchema.MODEL_THREADS));
    }

    private static Training training(ConfigValues v) {
        int epochs = v.integer(ConfigSchema.TRAINING_EPOCHS);
        LearningRateSchedule schedule;
        try {
            String spec = v.string(ConfigSchema.TRAINING_LR_SCHEDULE);
            // auto: anneal when training has an end to anneal towards; a node that trains until stopped has none.
            schedule = spec.strip().equals("auto")
                    ? (epochs > 0
                            ? LearningRateSchedule.cosine(LearningRateSchedule.DEFAULT_FLOOR)
                            : LearningRateSchedule.CONSTANT)
                    : LearningRateSchedule.parse(spec);
        } catch (IllegalArgumentException e) {
            // The schedule's own parser knows nothing of auto, which only a node's configuration has.
            String known = e.getMessage().contains("is not one of") ? ", or auto" : "";
            throw v.error(ConfigSchema.TRAINING_LR_SCHEDULE, e.getMessage() + known);
        }
        if (schedule.cosine() && epochs == 0) {
            throw v.error(
                    ConfigSchema.TRAINING_LR_SCHEDULE,
                    schedule.spec() + " anneals over training.epochs, which is 0 (train until stopped):"
                            + " set training.epochs, or keep the schedule constant");
        }
        return new Training(
                v.integer(ConfigSchema.TRAINING_BATCH),
                v.longValue(ConfigSchema.TRAINING_SEED),
                epochs,
                new Interval(
                        v.integer(ConfigSchema.TRAINING_EVAL_EVERY),
                        v.seconds(ConfigSchema.TRAINING_EVAL_EVERY_SECONDS)),
                v.integer(ConfigSchema.TRAINING_PAUSE_MS),
                schedule,
                new EarlyStoppingPolicy(
                        v.string(ConfigSchema.TRAINING_EARLY_STOPPING),
                        v.integer(ConfigSchema.TRAINING_EARLY_STOPPING_PATIENCE)));
    }

    private static Averaging averaging(ConfigValues v) {
        AveragingKind strategy = AveragingKind.parse(v.string(ConfigSchema.AVERAGING_STRATEGY));
        String aggregator = null;
        if (v.isSet(ConfigSchema.AVERAGING_AGGREGATOR)) {
            aggregator = peerId(v, ConfigSchema.AVERAGING_AGGREGATOR, v.string(ConfigSchema.AVERAGING_AGGREGATOR));
        } else if (strategy == AveragingKind.FEDBUFF) {
            throw v.error(
                    ConfigSchema.AVERAGING_AGGREGATOR,
                    "required by averaging.strategy " + strategy + ": name the aggregator's peer id");
        }
        java.util.Set<String> participants = new java.util.LinkedHashSet<>();
        for (String p : v.list(ConfigSchema.AVERAGING_PARTICIPANTS)) {
            participants.add(peerId(v, ConfigSchema.AVERAGING_PARTICIPANTS, p));
        }
        if (strategy == AveragingKind.SYNC && participants.size() < 2) {
            throw v.error(
                    ConfigSchema.AVERAGING_PARTICIPANTS,
                    "required by averaging.strategy " + strategy + ": list the peer"
                            + " ids of every node of the round (at least 2), this one included");
        }
        return new Averaging(
                strategy,
                new Averaging.Pacing(
                        v.integer(ConfigSchema.AVERAGING_EVERY),
                        v.longValue(ConfigSchema.AVERAGING_MAX_VERSION_LEAD),
                        v.integer(ConfigSchema.AVERAGING_MAX_DRIFT),
                        v.number(ConfigSchema.AVERAGING_MAX_EXCHANGE_RATE),
                        v.number(ConfigSchema.AVERAGING_STRAGGLER_COMPENSATION)),
                new Averaging.Strategies(
                        new Averaging.Fragmented(
                                v.integer(ConfigSchema.AVERAGING_FRAGMENTS),
                                v.integer(ConfigSchema.AVERAGING_FANOUT),
                                v.bool(ConfigSchema.AVERAGING_FRAGMENT_BALANCE)),
                        new Averaging.FedBuff(aggregator, v.integer(ConfigSchema.AVERAGING_BUFFER_SIZE)),
                        new Averaging.Sync(
                                List.copyOf(participants),
                                java.time.Duration.ofMillis(
                                        Math.round(1000 * v.number(ConfigSchema.AVERAGING_ROUND_TIMEOUT)))),
                        secure(v),
                        RelayRole.Setting.parse(v.string(ConfigSchema.AVERAGING_SECURE_RELAY))),
                java.time.Duration.ofMillis(Math.round(1000 * v.number(ConfigSchema.AVERAGING_ANNOUNCE_EVERY))),
                new Averaging.Exchange(
                        v.string(ConfigSchema.AVERAGING_WEIGHTING).equals("samples"),
                        Dtype.valueOf(v.string(ConfigSchema.AVERAGING_DTYPE).toUpperCase(java.util.Locale.ROOT)),
                        new StrategySettings.Screening(
                                StrategySettings.Screening.Mode.parse(v.string(ConfigSchema.AVERAGING_SCREENING)),
                                v.number(ConfigSchema.AVERAGING_CLIP_MULTIPLIER))),
                robustness(v, strategy, participants.size()));
    }

    /** The {@code averaging.group_size} and {@code averaging.secure_*} keys, each checked against its range. */
    private static SecAggSettings secure(ConfigValues v) {
        double threshold = v.number(ConfigSchema.AVERAGING_SECURE_THRESHOLD);
        if (!(threshold > 0.5 && threshold <= 1)) {
            throw v.error(
                    ConfigSchema.AVERAGING_SECURE_THRESHOLD,
                    threshold + " is outside (0.5, 1]: t must exceed half the degree (docs/privacy.md)");
        }
        return new SecAggSettings(
                v.integer(ConfigSchema.AVERAGING_GROUP_SIZE),
                java.time.Duration.ofMillis(Math.round(1000 * v.number(ConfigSchema.AVERAGING_SECURE_OFFER_WINDOW))),
                java.time.Duration.ofMillis(Math.round(1000 * v.number(ConfigSchema.AVERAGING_SECURE_PHASE_TIMEOUT))),
                v.number(ConfigSchema.AVERAGING_SECURE_RANGE),
                threshold,
                v.integer(ConfigSchema.AVERAGING_SECURE_DEGREE),
                v.longValue(ConfigSchema.TRAINING_SEED),
                v.string(ConfigSchema.AVERAGING_WEIGHTING).equals("samples"));
    }

    /**
     * {@code averaging.robust} and {@code averaging.round_deadline_seconds}: the rule must parse, apply to the
     * strategy, and have enough models per aggregation for its bound (the participants, or the buffer's size).
     */
    private static StrategySettings.Robustness robustness(ConfigValues v, AveragingKind strategy, int participants) {
        String key = ConfigSchema.AVERAGING_ROBUST;
        RobustRule rule;
        try {
            rule = RobustRule.parse(v.string(key));
        } catch (IllegalArgumentException e) {
            throw v.error(key, e.getMessage());
        }
        if (!rule.isNone() && strategy.exchanges()) {
            if (!strategy.aggregatesSeveral()) {
                throw v.error(
                        key, rule.text() + " with averaging.strategy " + strategy + ": " + strategy.robustRefusal());
            }
            Optional<String> problem = strategy == AveragingKind.SYNC
                    ? rule.problemWith(participants, ConfigSchema.AVERAGING_PARTICIPANTS + " lists " + participants)
                    : rule.problemWith(
                            v.integer(ConfigSchema.AVERAGING_BUFFER_SIZE),
                            ConfigSchema.AVERAGING_BUFFER_SIZE + " is "
                                    + v.integer(ConfigSchema.AVERAGING_BUFFER_SIZE));
            if (problem.isPresent()) {
                throw v.error(key, problem.get());
            }
        }
        java.time.Duration deadline =
                java.time.Duration.ofMillis(Math.round(1000 * v.number(ConfigSchema.AVERAGING_ROUND_DEADLINE)));
        return new StrategySettings.Robustness(rule, deadline);
    }

    private static Log log(ConfigValues v) {
        Map<String, String> levels = new LinkedHashMap<>();
        for (String item : v.list(ConfigSchema.LOG_LEVELS)) { // each checked by the loader
            int eq = item.indexOf('=');
            levels.put(item.substring(0, eq).strip(), item.substring(eq + 1).strip());
        }
        return new Log(
                v.string(ConfigSchema.LOG_LEVEL),
                Collections.unmodifiableMap(levels),
                v.string(ConfigSchema.LOG_FORMAT),
                v.bool(ConfigSchema.LOG_FILE));
    }

    /** The peer id in its base58 form, as the exchange names peers. */
    private static String peerId(ConfigValues v, String key, String text) {
        try {
            return PeerId.parse(text).toBase58();
        } catch (IllegalArgumentException e) {
            throw v.error(key, "'" + text + "' is not a peer id: " + e.getMessage());
        }
    }

    private static List<Multiaddr> multiaddrs(ConfigValues v, String key) {
        List<Multiaddr> out = new ArrayList<>();
        for (String s : v.list(key)) {
            out.add(Multiaddr.parse(s)); // already checked by the loader
        }
        return List.copyOf(out);
    }
}
