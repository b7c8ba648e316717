package dev.chorus.node.config;

import dev.chorus.node.averaging.AveragingDefaults;
import dev.chorus.node.averaging.AveragingKind;
import dev.chorus.node.averaging.StrategySettings;
import dev.chorus.node.logging.LogSettings;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Every key of {@code node.yaml}, in the order the docs and the starter file list them. This is the
 * one place a key is declared: the loader accepts exactly these keys, and {@code docs/config.md}
 * and {@code chorus init}'s starter file are generated from them.
 */
public final class ConfigSchema {

    public static final String CONSORTIUM = "consortium";
    public static final String DATA_DIR = "data_dir";
    public static final String KEY_FILE = "identity.key_file";
    public static final String LISTEN = "network.listen";
    public static final String BOOTSTRAP = "network.bootstrap";
    public static final String TARGET_PEERS = "network.target_peers";

    /** The most peers {@link #TARGET_PEERS} may ask for: each costs a connection and a share of every exchange. */
    public static final int MAX_TARGET_PEERS = 256;

    public static final String PSK_FILE = "network.psk_file";
    public static final String CRYPTO = "network.crypto";
    public static final String MDNS = "network.mdns";
    public static final String ADDED_DELAY_MS = "network.added_delay_ms";
    /** The longest added delay, in milliseconds. */
    public static final int MAX_ADDED_DELAY_MS = 60_000;

    public static final String MEMBERSHIP_ROSTER = "membership.roster";
    public static final String MEMBERSHIP_CERTIFICATE = "membership.certificate";
    public static final String MEMBERSHIP_CRL = "membership.crl";
    public static final String MEMBERSHIP_ENFORCE = "membership.enforce";
    public static final String DATA_PATH = "data.path";
    public static final String DATA_FORMAT = "data.format";
    public static final String DATA_LABEL = "data.label";
    public static final String DATA_POSITIVE = "data.positive";
    public static final String DATA_DROP = "data.drop";
    public static final String DATA_CATEGORICAL = "data.categorical";
    public static final String DATA_MISSING = "data.missing";
    public static final String DATA_IDX_PREFIX = "data.idx_prefix";
    public static final String DATA_VALIDATION_FRACTION = "data.validation_fraction";
    public static final String DATA_STANDARDIZE = "data.standardize";
    public static final String MODEL_SPEC = "model.spec";
    public static final String MODEL_OPTIMIZER = "model.optimizer";
    public static final String MODEL_BACKEND = "model.backend";
    public static final String MODEL_THREADS = "model.threads";
    public static final String TRAINING_BATCH = "training.batch";
    public static final String TRAINING_SEED = "training.seed";
    public static final String TRAINING_EPOCHS = "training.epochs";
    public static final String TRAINING_EVAL_EVERY = "training.eval_every_steps";
    public static final String TRAINING_EVAL_EVERY_SECONDS = "training.eval_every_seconds";
    public static final String TRAINING_EARLY_STOPPING = "training.early_stopping";
    public static final String TRAINING_EARLY_STOPPING_PATIENCE = "training.early_stopping_patience";
    public static final String TRAINING_PAUSE_MS = "training.pause_ms";
    public static final String TRAINING_LR_SCHEDULE = "training.lr_schedule";
    public static final String AVERAGING_STRATEGY = "averaging.strategy";
    public static final String AVERAGING_EVERY = "averaging.every_steps";
    public static final String AVERAGING_FRAGMENTS = "averaging.fragments";
    public static final String AVERAGING_FANOUT = "averaging.fanout";
    public static final String AVERAGING_FRAGMENT_BALANCE = "averaging.fragment_balance";
    public static final String AVERAGING_AGGREGATOR = "averaging.aggregator";
    public static final String AVERAGING_BUFFER_SIZE = "averaging.buffer_size";
    public static final String AVERAGING_PARTICIPANTS = "averaging.participants";
    public static final String AVERAGING_ANNOUNCE_EVERY = "averaging.announce_every_seconds";
    public static final String AVERAGING_MAX_VERSION_LEAD = "averaging.max_version_lead";
    public static final String AVERAGING_MAX_DRIFT = "averaging.max_drift_steps";
    public static final String AVERAGING_STRAGGLER_COMPENSATION = "averaging.straggler_compensation";
    public static final String AVERAGING_MAX_EXCHANGE_RATE = "averaging.max_exchanges_per_second_per_peer";
    public static final String AVERAGING_WEIGHTING = "averaging.weighting";
    public static final String AVERAGING_DTYPE = "averaging.dtype";
    public static final String AVERAGING_ROUND_TIMEOUT = "averaging.round_timeout_seconds";
    public static final String AVERAGING_ROUND_DEADLINE = "averaging.round_deadline_seconds";
    public static final String AVERAGING_ROBUST = "averaging.robust";
    public static final String AVERAGING_SCREENING = "averaging.screening";
    public static final String AVERAGING_CLIP_MULTIPLIER = "averaging.clip_multiplier";
    public static final String AVERAGING_GROUP_SIZE = "averaging.group_size";
    public static final String AVERAGING_SECURE_OFFER_WINDOW = "averaging.secure_offer_window_seconds";
    public static final String AVERAGING_SECURE_PHASE_TIMEOUT = "averaging.secure_phase_timeout_seconds";
    public static final String AVERAGING_SECURE_RANGE = "averaging.secure_range";
    public static final String AVERAGING_SECURE_THRESHOLD = "averaging.secure_threshold";
    public static final String AVERAGING_SECURE_DEGREE = "averaging.secure_degree";
    public static final String AVERAGING_SECURE_RELAY = "averaging.secure_relay";
    public static final String CHECKPOINT_EVERY = "checkpoint.every_steps";
    public static final String CHECKPOINT_EVERY_SECONDS = "checkpoint.every_seconds";
    public static final String CHECKPOINT_KEEP = "checkpoint.keep";
    public static final String CHECKPOINT_HOURLY_HOURS = "checkpoint.hourly_for_hours";
    public static final String CHECKPOINT_DAILY_DAYS = "checkpoint.daily_for_days";
    public static final String CHECKPOINT_REVERT_ON_COLLAPSE = "checkpoint.revert_on_collapse";
    public static final String AUDIT_RETENTION_DAYS = "audit.retention_days";
    public static final String AUDIT_MAX_MB = "audit.max_mb";
    public static final String API_ENABLED = "api.enabled";
    public static final String API_HOST = "api.host";
    public static final String API_PORT = "api.port";
    public static final String API_TOKEN_FILE = "api.token_file";
    public static final String API_REQUIRE_TOKEN = "api.require_token";
    public static final String API_ALLOWED_HOSTS = "api.allowed_hosts";
    public static final String API_MAX_CONNECTIONS = "api.max_connections";
    public static final String API_REQUEST_TIMEOUT = "api.request_timeout_seconds";
    public static final String API_IDLE_TIMEOUT = "api.idle_timeout_seconds";
    public static final String API_MAX_REQUESTS_PER_SECOND = "api.max_requests_per_second";
    public static final String LOG_LEVEL = "log.level";
    public static final String LOG_LEVELS = "log.levels";
    public static final String LOG_FORMAT = "log.format";
    public static final String LOG_FILE = "log.file";

    /** The default port of the HTTP API. */
    public static final int DEFAULT_API_PORT = 7465;

    private static final List<ConfigKey> KEYS = List.of(
            required(
                    CONSORTIUM,
                    ConfigType.STRING,
                    "Name of the consortium this node belongs to; nodes train together"
                            + " only with nodes of the same consortium."),
            key(
                    DATA_DIR,
                    ConfigType.PATH,
                    ".",
                    "The data directory: identity key, checkpoints/, audit/, logs/."
                            + " Relative to the directory of the config file."),
            key(
                    KEY_FILE,
                    ConfigType.PATH,
                    "identity.key",
                    "The node's Ed25519 identity key (mode 0600; `chorus init`"
                            + " creates it). Relative to data_dir."),
            key(
                    LISTEN,
                    ConfigType.MULTIADDR_LIST,
                    List.of("/ip4/0.0.0.0/tcp/4001"),
                    "TCP multiaddrs to listen on for" + " other nodes of the consortium; `/tcp/0` picks a free port."),
            key(
                    BOOTSTRAP,
                    ConfigType.MULTIADDR_LIST,
                    List.of(),
                    "Peers dialed at start, each a TCP multiaddr ending in"
                            + " `/p2p/<peer id>` (the peer id is verified in the handshake). They are kept"
                            + " connected: a lost connection or a failed dial is redialed with exponential backoff"
                            + " (1 s doubling to 5 min, with jitter)."),
            number(
                    TARGET_PEERS,
                    ConfigType.INT,
                    8L,
                    0.0,
                    "How many peers the node keeps connected to. Below it, peers learnt since the start (the listen"
                            + " addresses they announced through identify) are redialed with the same backoff, best"
                            + " first and at most 4 dials at a time; the bootstrap peers are kept connected"
                            + " regardless. 0: only the bootstrap peers are redialed. At most "
                            + MAX_TARGET_PEERS + "."),
            key(
                    PSK_FILE,
                    ConfigType.PATH,
                    null,
                    "A libp2p private network's pre-shared key file (`/key/swarm/psk/1.0.0/`, mode 0600; `chorus"
                            + " p2p psk --out FILE` writes one). Every connection is then encrypted with the key"
                            + " before anything else is sent, so nodes without it do not even reach the Noise"
                            + " handshake. It is not membership: any node with the key gets in. Unset: no private"
                            + " network. Relative to the directory of the config file."),
            choice(
                    CRYPTO,
                    "auto",
                    List.of("auto", "jdk", "openssl"),
                    "The implementation of ChaCha20-Poly1305, the cipher of every connection's Noise transport,"
                            + " and of Ed25519, the signature of every gossipsub message and record."
                            + " `auto`: OpenSSL's libcrypto (libcrypto.so.3, called through Java's foreign function"
                            + " API) when it loads and passes the known-answer tests at start (RFC 8439, RFC 8032),"
                            + " else the JDK's cipher and Bouncy Castle's Ed25519; `jdk`: always those; `openssl`:"
                            + " libcrypto or the node does not start. Both give the same bytes, so peers need not"
                            + " agree. The choice is logged at start and shown by `GET /api/status` and `chorus"
                            + " status`."),
            key(
                    MDNS,
                    ConfigType.STRING,
                    "off",
                    "Find the consortium's other nodes on the local network by mDNS (`_p2p._udp.local`, IPv4"
                            + " multicast 224.0.0.251:5353, as go-libp2p and js-libp2p do): `off`; `on`, on the"
                            + " interface of the first listen address that names one, else the first interface that"
                            + " is up, multicast-capable, not loopback and has an IPv4 address; or an interface's name"
                            + " (`eth0`). The node answers queries with its listen addresses on that interface, and"
                            + " dials the peers it finds and redials them like the peers learnt through identify."
                            + " Membership still decides who is admitted. It tells anyone on the link that a Chorus"
                            + " node runs here, hence off by default."),
            number(
                    ADDED_DELAY_MS,
                    ConfigType.INT,
                    0L,
                    0.0,
                    "For experiments: every byte this node receives waits this many milliseconds before the node"
                            + " reads it, as over a long link, so that every round trip with a peer is that much"
                            + " longer (`chorus testnet faults --scenario loss` uses it where the kernel cannot"
                            + " delay packets). 0: none. At most 60000."),
            key(
                    MEMBERSHIP_ROSTER,
                    ConfigType.STRING_LIST,
                    List.of(),
                    "The consortium's roster: PEM files of the institutions' CA certificates"
                            + " (`chorus consortium ca init` writes one). With a roster, only peers holding a member"
                            + " certificate from one of these CAs connect, exchange models and publish. Relative to"
                            + " the directory of the config file."),
            key(
                    MEMBERSHIP_CERTIFICATE,
                    ConfigType.PATH,
                    null,
                    "This node's member certificate, issued for its peer ID by its institution's CA (`chorus"
                            + " consortium issue`). Required with a roster. Relative to the directory of the config"
                            + " file."),
            key(
                    MEMBERSHIP_CRL,
                    ConfigType.STRING_LIST,
                    List.of(),
                    "Revocation lists: CRL files, or directories whose *.crl and *.pem files are read. Read again"
                            + " every 2 s; a newer CRL is also spread to the other members. Relative to the"
                            + " directory of the config file."),
            key(
                    MEMBERSHIP_ENFORCE,
                    ConfigType.BOOLEAN,
                    true,
                    "With a roster, admit only verified members. Set false only to run a roster-holding node"
                            + " open to everyone, e.g. while a consortium migrates."),
            required(
                    DATA_PATH,
                    ConfigType.PATH,
                    "The local data set: a CSV file, or a directory of IDX files. Read"
                            + " only; the node never writes next to it. Relative to the directory of the config file."),
            choice(
                    DATA_FORMAT,
                    "auto",
                    List.of("auto", "csv", "idx"),
                    "Format of data.path; auto means idx for a" + " directory, csv otherwise."),
            key(DATA_LABEL, ConfigType.STRING, null, "The label column of a CSV file (required for CSV)."),
            key(
                    DATA_POSITIVE,
                    ConfigType.STRING,
                    null,
                    "The positive class of a binary task; every other label value"
                            + " is negative. This node's rows may hold one class only (its share of a skewed"
                            + " split): it trains on them and learns the other class from its peers, with a"
                            + " warning at start. Without it the sorted distinct label values are the classes."),
            key(DATA_DROP, ConfigType.STRING_LIST, List.of(), "CSV columns left out of the features."),
            key(
                    DATA_CATEGORICAL,
                    ConfigType.STRING_LIST,
                    List.of(),
                    "CSV columns to one-hot encode (non-numeric" + " columns are detected anyway)."),
            choice(
                    DATA_MISSING,
                    "drop",
                    List.of("drop", "impute"),
                    "Rows with a missing feature are dropped, or" + " the value is imputed from this node's own data."),
            key(
                    DATA_IDX_PREFIX,
                    ConfigType.STRING,
                    "train",
                    "The IDX file pair to read (e.g. `node-003` for a" + " shard written by `chorus partition`)."),
            number(
                    DATA_VALIDATION_FRACTION,
                    ConfigType.DOUBLE,
                    0.2,
                    0.0,
                    "Share of the local rows held out"
                            + " (stratified, seeded) to evaluate on; strictly between 0 and 1."),
            key(
                    DATA_STANDARDIZE,
                    ConfigType.BOOLEAN,
                    true,
                    "Z-score CSV features with statistics of the local" + " training split only."),
            key(
                    MODEL_SPEC,
                    ConfigType.STRING,
                    "logreg",
                    "`logreg`, `mlp:H[,H...][:relu|tanh|sigmoid]` or `cnn`;"
                            + " every node of a consortium must use the same."),
            key(
                    MODEL_OPTIMIZER,
                    ConfigType.STRING,
                    "sgd:lr=0.01,momentum=0.9",
                    "`sgd[:lr=,momentum=,nesterov=,"
                            + "weight_decay=]` or `adam[:lr=,beta1=,beta2=,eps=,weight_decay=]`."),
            key(
                    MODEL_BACKEND,
                    ConfigType.STRING,
                    "auto",
                    "Tensor backend: `auto`, `cpu`, `nd4j`, `reference`, or" + " `cuda` where available."),
            number(
                    MODEL_THREADS,
                    ConfigType.INT,
                    0L,
                    0.0,
                    "Threads inside each tensor operation; 0 means one per" + " core."),
            number(TRAINING_BATCH, ConfigType.INT, 32L, 1.0, "Mini-batch size."),
            key(
                    TRAINING_SEED,
                    ConfigType.LONG,
                    42L,
                    "Seed of the validation split, the initialization and the" + " shuffling."),
            number(
                    TRAINING_EPOCHS,
                    ConfigType.INT,
                    0L,
                    0.0,
                    "Passes over the local training split before the node"
                            + " stops training (it keeps serving); 0 trains until the node is stopped."),
            number(
                    TRAINING_EVAL_EVERY,
                    ConfigType.INT,
                    200L,
                    1.0,
                    "Evaluate on the validation split once this many steps have passed since the last"
                            + " evaluation and training.eval_every_seconds too (whichever comes later)."),
            number(
                    TRAINING_EVAL_EVERY_SECONDS,
                    ConfigType.DOUBLE,
                    30.0,
                    0.0,
                    "The least time between two evaluations, in seconds: a small model takes thousands of steps"
                            + " a second, and an evaluation per few hundred steps would fill the history with"
                            + " seconds of it. 0: by steps only."),
            choice(
                    TRAINING_EARLY_STOPPING,
                    "auto",
                    List.of("auto", "warn", "stop", "off"),
                    "What the node does once the validation loss has not improved on its best for"
                            + " training.early_stopping_patience evaluations (overfitting): `warn` logs it once and"
                            + " shows it in /api/status and /metrics; `stop` also ends local training with the best"
                            + " model restored and checkpointed (the node keeps serving its model); `off`: nothing."
                            + " `auto`: `warn` on a node that averages (averaging.strategy other than `none`), whose"
                            + " validation split is its own shard only, while its model is meant for the pooled data"
                            + " of every member; on a node that trains alone, `stop` when the training split has fewer"
                            + " than 10000 rows, `warn` otherwise: a node takes thousands of steps a second, so a small"
                            + " data set is seen thousands of times within minutes and training past its best only"
                            + " fits its noise, while on a large one a plateau is more often a pause before further"
                            + " progress."),
            number(
                    TRAINING_EARLY_STOPPING_PATIENCE,
                    ConfigType.INT,
                    20L,
                    1.0,
                    "Evaluations in a row without a new best validation loss before training.early_stopping"
                            + " acts: 20 at the default training.eval_every_seconds is 10 minutes."),
            key(
                    TRAINING_LR_SCHEDULE,
                    ConfigType.STRING,
                    "auto",
                    "The learning rate over training: `constant` (the optimizer's `lr` throughout),"
                            + " `cosine[:FLOOR]`, annealed along a cosine from `lr` down to FLOOR times `lr` (default"
                            + " 0.05) over the steps of training.epochs, which must then be set, or `auto`: cosine"
                            + " when training.epochs is set, constant when the node trains until stopped. Annealing"
                            + " lets nodes on skewed shards settle near their consensus."),
            number(
                    TRAINING_PAUSE_MS,
                    ConfigType.INT,
                    0L,
                    0.0,
                    "Pause after each step, in milliseconds, to leave" + " CPU to other work on the machine."),
            choice(
                    AVERAGING_STRATEGY,
                    AveragingKind.DEFAULT.configName(),
                    AveragingKind.configNames(),
                    "How the model is averaged with peers: `async` push-pull gossip with one random"
                            + " connected peer (AD-PSGD); `fragmented` sends model fragments to several peers"
                            + " (DivShare); `fedbuff` buffered asynchronous aggregation at the node named by"
                            + " averaging.aggregator (FedBuff); `sync` the FedAvg baseline with a barrier over"
                            + " averaging.participants; `secure` secure aggregation in groups of"
                            + " averaging.group_size, where no peer sees the model in the clear"
                            + " (docs/privacy.md); `none` trains alone."),
            number(
                    AVERAGING_EVERY,
                    ConfigType.INT,
                    (long) AveragingDefaults.EXCHANGE_EVERY_STEPS,
                    1.0,
                    "Hand a snapshot of the parameters to the averaging engine every this many steps: one"
                            + " exchange (or round) per this many local steps."),
            number(
                    AVERAGING_FRAGMENTS,
                    ConfigType.INT,
                    0L,
                    0.0,
                    "`fragmented`: fragments the model is cut into each round (a permutation seeded with"
                            + " training.seed, shared by every node). 0: 10, or fewer so that a fragment holds at"
                            + " least 4096 parameters, since each fragment costs a message."),
            number(
                    AVERAGING_FANOUT,
                    ConfigType.INT,
                    3L,
                    1.0,
                    "`fragmented`: distinct peers each fragment is sent to (fewer when fewer are connected)."),
            key(
                    AVERAGING_FRAGMENT_BALANCE,
                    ConfigType.BOOLEAN,
                    true,
                    "`fragmented`: scale the share of each average taken from what the node received by its"
                            + " ratio of coordinates delivered to received, so that a node behind a slow link"
                            + " keeps its share of the consensus (docs/aggregation.md); false: DivShare as"
                            + " published."),
            key(
                    AVERAGING_AGGREGATOR,
                    ConfigType.STRING,
                    null,
                    "`fedbuff` (required): peer id of the aggregator; that node buffers the others'"
                            + " deltas, the others contribute."),
            number(
                    AVERAGING_BUFFER_SIZE,
                    ConfigType.INT,
                    10L,
                    1.0,
                    "`fedbuff`: deltas the aggregator buffers before it applies their average (K)."),
            key(
                    AVERAGING_PARTICIPANTS,
                    ConfigType.STRING_LIST,
                    List.of(),
                    "`sync` (required): peer ids of every node of the round, this one included; a round"
                            + " waits for all of them."),
            number(
                    AVERAGING_GROUP_SIZE,
                    ConfigType.INT,
                    8L,
                    3.0,
                    "`secure`: the largest group of a round. Each round the members that can take part are"
                            + " split into groups of at most this many (the whole consortium when it is smaller),"
                            + " drawn from training.seed and the round's number; a group needs at least 3."),
            number(
                    AVERAGING_SECURE_OFFER_WINDOW,
                    ConfigType.DOUBLE,
                    0.5,
                    0.01,
                    "`secure`: the length of a round's window of the wall clock: a relay collects offers until"
                            + " its round's window ends (or all of its group offered). When a round ends within its"
                            + " window, its members go on at once to the window's next round, in groups drawn afresh."
                            + " The members' clocks must agree to well within a window."),
            number(
                    AVERAGING_SECURE_PHASE_TIMEOUT,
                    ConfigType.DOUBLE,
                    5.0,
                    0.01,
                    "`secure`: seconds each of a round's five phases may last; a phase ends as soon as every"
                            + " member has answered, and a member silent past it is a dropout."),
            number(
                    AVERAGING_SECURE_RANGE,
                    ConfigType.DOUBLE,
                    64.0,
                    1e-6,
                    "`secure`: the largest clipping range R of a round: every parameter is clipped to"
                            + " [-R, R], or to the smaller power of two that holds every member's parameters, and"
                            + " quantized to fixed point (16-bit words when averaging.dtype is narrower than f32,"
                            + " else 32-bit) before it is masked; the step is 2R * group size / (2^bits - 1)."),
            number(
                    AVERAGING_SECURE_THRESHOLD,
                    ConfigType.DOUBLE,
                    0.6,
                    0.5,
                    "`secure`: the Shamir threshold t as a fraction of the communication graph's degree k"
                            + " (t is at least k/2 + 1): a round needs t members in every phase, and fewer than t"
                            + " colluding members learn nothing but the sum."),
            number(
                    AVERAGING_SECURE_DEGREE,
                    ConfigType.INT,
                    0L,
                    0.0,
                    "`secure`: neighbours of each member in the round's communication graph (SecAgg+);"
                            + " 0: the smallest even number at least 3 log2 n, at most n - 1."),
            choice(
                    AVERAGING_SECURE_RELAY,
                    "auto",
                    List.of("auto", "true", "false"),
                    "`secure`: whether this node takes its turn as the relay of its groups. A relay receives"
                            + " every member's masked model and sends the sum back to each, so it carries about"
                            + " (group size - 1) models each way a round, and a relay behind a thin link makes its"
                            + " whole group wait on that link. `auto`: it relays until the rounds it relays take"
                            + " more than twice as long as those others relay for it (twice in a row, and at least"
                            + " 50 ms longer; or once more than 4 times, and at least 250 ms longer), then declines"
                            + " for 60 s and measures again, declining twice as long each time its link is still"
                            + " the slower (at most 8 min); it logs each decline."
                            + " `true`: always; `false`: never (a node behind a link known to be thin). A node that"
                            + " declines still relays a group in which no member takes the role."),
            number(
                    AVERAGING_ANNOUNCE_EVERY,
                    ConfigType.DOUBLE,
                    10.0,
                    0.1,
                    "Seconds between two signed announcements of this node's model (version, sample"
                            + " count, digest, latest accuracy and loss) on the consortium's gossipsub topic."),
            choice(
                    AVERAGING_WEIGHTING,
                    AveragingDefaults.WEIGHT_BY_SAMPLES ? "samples" : "uniform",
                    List.of("uniform", "samples"),
                    "How `async` and `fragmented` weight a received model against the local one: uniformly,"
                            + " or by each node's training examples (FedAvg's n_k/n, which keeps the average that"
                            + " of the pooled data when shards differ in size)."),
            choice(
                    AVERAGING_SCREENING,
                    AveragingDefaults.SCREENING.configName(),
                    StrategySettings.Screening.Mode.configNames(),
                    "How `async`, `fragmented` and `sync` screen each received model before merging it: `clip`"
                            + " shortens its difference from the local model to a radius that adapts to the"
                            + " recently merged ones (self-centred clipping, ClippedGossip), drops a model more than"
                            + " twice the radius away, one pointing away from the local model (a negative inner"
                            + " product) and one that repeats, value for value, a model its sender sent before,"
                            + " weights down a peer whose models keep being far and then excludes it for a"
                            + " cool-down (docs/aggregation.md); `clip-all` merges the far and opposed ones too,"
                            + " clipped; `off` merges every finite model as it is. In `sync` a dropped model counts as the node's"
                            + " own and the rest are averaged (or go to `averaging.robust`) clipped. Off by default: models from"
                            + " stragglers and slow links are stale and look far, and screening them cost accuracy"
                            + " without any attacker; turn `clip` on when a member may send crafted models."),
            number(
                    AVERAGING_CLIP_MULTIPLIER,
                    ConfigType.DOUBLE,
                    AveragingDefaults.SCREENING.multiplier(),
                    1.0,
                    "`clip`: the clipping radius as a multiple of the median distance of the last merged"
                            + " models from the local one."),
            choice(
                    AVERAGING_DTYPE,
                    "f32",
                    List.of("f32", "f16", "bf16", "int8"),
                    "How this node encodes the models it sends (and asks for in pulls): f32, or quantized to"
                            + " f16, bf16 or int8 with one scale per chunk (docs/protocol.md). Fewer bytes per"
                            + " exchange, so more exchanges on a slow link; the digest covers the decoded values."),
            number(
                    AVERAGING_ROUND_TIMEOUT,
                    ConfigType.DOUBLE,
                    120.0,
                    0.1,
                    "`sync`: how long training waits at a round's barrier for the other participants'"
                            + " models. Past it the node logs who is missing and trains on; the round still"
                            + " completes when their models arrive."),
            number(
                    AVERAGING_ROUND_DEADLINE,
                    ConfigType.DOUBLE,
                    0.0,
                    0.0,
                    "`sync`: close each round this many seconds after it opens with the models at hand"
                            + " (DeadlineAveraging), so that a participant that is gone or slow delays a round"
                            + " instead of blocking it; a round with fewer models than averaging.robust needs keeps"
                            + " the local model. 0: the barrier waits for every participant."),
            key(
                    AVERAGING_ROBUST,
                    ConfigType.STRING,
                    "none",
                    "`sync`, `fedbuff`: the rule that replaces the weighted mean of a round's models"
                            + " (`fedbuff`: of the buffered deltas), so that a few members sending arbitrary"
                            + " models cannot drag the others' anywhere: `none`, `median`, `trimmed:B` (drop B"
                            + " values at each end of every coordinate), `clip:TAU` (scale each input to norm at"
                            + " most TAU), `centered-clip:TAU`, `krum:F` (tolerates F faulty, needs n >= 2F + 3),"
                            + " `multikrum:F,M` (the mean of the M best by Krum's score, M <= n - F). n is"
                            + " the number of participants (`sync`) or averaging.buffer_size (`fedbuff`); checked"
                            + " at start. Refused for `async` and `fragmented`, which merge one model at a time,"
                            + " and for `secure`, whose relay learns only a group's sum (docs/aggregation.md)."),
            number(
                    AVERAGING_MAX_DRIFT,
                    ConfigType.INT,
                    (long) AveragingDefaults.MAX_DRIFT_STEPS,
                    0.0,
                    "`async`, `fragmented`, `fedbuff`: the most local steps past the last completed exchange"
                            + " while one of this node's exchanges is in flight; then training waits for its own"
                            + " link (at most 2 s a step), never for another node's training. It keeps a node whose"
                            + " steps are far cheaper than its exchanges from drifting on its own shard between"
                            + " merges. 0: training never waits for the network."),
            number(
                    AVERAGING_STRAGGLER_COMPENSATION,
                    ConfigType.DOUBLE,
                    AveragingDefaults.STRAGGLER_COMPENSATION,
                    1.0,
                    "`async`, `fragmented`: the largest factor by which a node that trains slower than the"
                            + " consortium scales what it learns between two merges, by the ratio of the"
                            + " consortium's pace to its own (read from how fast its model's version grows), so"
                            + " that a slow node's shard keeps its share of the consensus. Without it, a node at a"
                            + " fifth of the others' pace moves the consensus a fifth as much. 1: off."),
            number(
                    AVERAGING_MAX_EXCHANGE_RATE,
                    ConfigType.DOUBLE,
                    2.0,
                    0.0,
                    "`async`, `fragmented`, `fedbuff`: the most exchanges per second this node starts with one"
                            + " peer (a token bucket per peer holding one second's worth); a round that finds no peer"
                            + " with a token is skipped and training goes on. A small model takes thousands of steps"
                            + " a second, and unbounded its exchanges would use every link flat out and grow the"
                            + " egress audit log by gigabytes a day. 0: no bound (the testnet's setting)."),
            number(
                    AVERAGING_MAX_VERSION_LEAD,
                    ConfigType.LONG,
                    100_000L,
                    1.0,
                    "The most versions a received model may be ahead of the local one; a peer that claims"
                            + " more is taken at the local version plus this many (version inflation is"
                            + " bounded; a node far behind catches up over several exchanges)."),
            number(
                    CHECKPOINT_EVERY,
                    ConfigType.INT,
                    500L,
                    1.0,
                    "Write a checkpoint once this many steps have passed since the last one and"
                            + " checkpoint.every_seconds too (whichever comes later), and on shutdown."),
            number(
                    CHECKPOINT_EVERY_SECONDS,
                    ConfigType.DOUBLE,
                    300.0,
                    0.0,
                    "The least time between two checkpoints, in seconds, so that a fast node does not write"
                            + " several a second. 0: by steps only."),
            number(CHECKPOINT_KEEP, ConfigType.INT, 5L, 1.0, "How many of the newest checkpoints are kept."),
            number(
                    CHECKPOINT_HOURLY_HOURS,
                    ConfigType.INT,
                    24L,
                    0.0,
                    "Besides the newest checkpoint.keep, keep the first checkpoint of each hour for this many"
                            + " hours, so that a poisoning noticed late has a model from before it. 0: none."),
            number(
                    CHECKPOINT_DAILY_DAYS,
                    ConfigType.INT,
                    7L,
                    0.0,
                    "Besides those, keep the first checkpoint of each day (UTC) for this many days. 0: none."),
            key(
                    CHECKPOINT_REVERT_ON_COLLAPSE,
                    ConfigType.BOOLEAN,
                    true,
                    "When the validation loss or the parameter norm jumps far outside its recent range, or turns"
                            + " non-finite (a poisoned merge, a diverging step), revert the model and optimizer to"
                            + " the newest checkpoint written before the collapse. A collapse is logged and counted"
                            + " either way."),
            number(
                    AUDIT_RETENTION_DAYS,
                    ConfigType.INT,
                    90L,
                    1.0,
                    "Days the egress audit log (data_dir/audit/) keeps a day's file after that day ends."),
            number(
                    AUDIT_MAX_MB,
                    ConfigType.INT,
                    1024L,
                    1.0,
                    "Cap on the egress audit log's files together, in MiB; past it the oldest files are deleted"
                            + " early, each with a warning in the node's log."),
            key(API_ENABLED, ConfigType.BOOLEAN, true, "Serve the HTTP API (status, health, Prometheus metrics)."),
            key(
                    API_HOST,
                    ConfigType.STRING,
                    "127.0.0.1",
                    "Address the HTTP API binds to. On loopback it is open to this machine's users; on any"
                            + " other address every request but /health and /ready needs the token of"
                            + " api.token_file."),
            number(
                    API_PORT,
                    ConfigType.INT,
                    (long) DEFAULT_API_PORT,
                    0.0,
                    "Port of the HTTP API; 0 picks a free" + " one."),
            key(
                    API_TOKEN_FILE,
                    ConfigType.PATH,
                    "api.token",
                    "The API's bearer token (mode 0600; `chorus init` creates it, and the node creates it at start"
                            + " when it is needed and missing). When api.host is not a loopback address, or"
                            + " api.require_token is true, every request but /health and /ready must carry"
                            + " `Authorization: Bearer TOKEN`. Relative to data_dir."),
            key(
                    API_REQUIRE_TOKEN,
                    ConfigType.BOOLEAN,
                    false,
                    "Require the bearer token on a loopback api.host too (it is always required on any other"
                            + " address)."),
            key(
                    API_ALLOWED_HOSTS,
                    ConfigType.STRING_LIST,
                    List.of(),
                    "Names a request's Host header may carry (port left out), besides localhost, 127.0.0.1,"
                            + " [::1] and api.host itself when it is not a wildcard. Any other Host gets 421: a web"
                            + " page cannot read the API by pointing its own name at this address (DNS rebinding)."),
            number(
                    API_MAX_CONNECTIONS,
                    ConfigType.INT,
                    64L,
                    1.0,
                    "Most API connections open at once; one past it is closed at once (counted in"
                            + " chorus_api_connections_refused_total), so API clients can never take the file"
                            + " descriptors the node's checkpoints, logs and peers need."),
            number(
                    API_REQUEST_TIMEOUT,
                    ConfigType.DOUBLE,
                    10.0,
                    0.001,
                    "Seconds a client has to send a whole request, from the connection's accept or the end of"
                            + " its previous response; the connection is closed past it (a slow sender cannot hold"
                            + " it open)."),
            number(
                    API_IDLE_TIMEOUT,
                    ConfigType.DOUBLE,
                    30.0,
                    0.001,
                    "Seconds an API connection may carry no bytes either way before it is closed."),
            number(
                    API_MAX_REQUESTS_PER_SECOND,
                    ConfigType.INT,
                    50L,
                    1.0,
                    "Most API requests answered per second, all clients together (a burst of as many is"
                            + " allowed); more get 429. /health and /ready are not counted, so probes always"
                            + " answer. Bounds the CPU the API can take from training."),
            choice(
                    LOG_LEVEL,
                    "info",
                    LogSettings.LEVELS,
                    "Level of every logger without its own in log.levels (standard error and the log file)."),
            key(
                    LOG_LEVELS,
                    ConfigType.LOGGER_LEVEL_LIST,
                    List.of(),
                    "Levels of single loggers or packages, each `name=level` (e.g. `[dev.chorus.gossip=debug,"
                            + " io.netty=info]`); by default org.bytedeco logs at error and org.nd4j, io.netty and"
                            + " io.vertx at warn."),
            choice(
                    LOG_FORMAT,
                    "text",
                    List.of("text", "json", "auto"),
                    "`text`: readable lines; `json`: one JSON object per line, for a log collector; `auto`:"
                            + " text on a terminal, JSON otherwise. The command-line option --log-format wins."),
            key(
                    LOG_FILE,
                    ConfigType.BOOLEAN,
                    true,
                    "Also write the log to logs/chorus.log in data_dir, rolled at 10 MiB with 5 files kept."));

    private static final Map<String, ConfigKey> BY_NAME = index();

    private ConfigSchema() {}

    /** Every key, in documentation order. */
    public static List<ConfigKey> keys() {
        return KEYS;
    }

    /** The key named {@code name}, or null. */
    public static ConfigKey key(String name) {
        return BY_NAME.get(name);
    }

    /** The sections, in documentation order ("" for the top level). */
    public static List<String> sections() {
        return KEYS.stream().map(ConfigKey::section).distinct().toList();
    }

    private static Map<String, ConfigKey> index() {
        Map<String, ConfigKey> m = new LinkedHashMap<>();
        for (ConfigKey k : KEYS) {
            if (m.put(k.name(), k) != null) {
                throw new IllegalStateException("config key declared twice: " + k.name());
            }
        }
        return m;
    }

    private static ConfigKey key(String name, ConfigType type, Object def, String description) {
        return new ConfigKey(name, type, def, false, null, List.of(), description);
    }

    private static ConfigKey required(String name, ConfigType type, String description) {
        return new ConfigKey(name, type, null, true, null, List.of(), description);
    }

    private static ConfigKey number(String name, ConfigType type, Object def, double min, String description) {
        return new ConfigKey(name, type, def, false, min, List.of(), description);
    }

    private static ConfigKey choice(String name, String def, List<String> choices, String description) {
        return new ConfigKey(name, ConfigType.CHOICE, def, false, null, choices, description);
    }
}
