package dev.chorus.cli;

import dev.chorus.gossip.identity.PeerId;
import dev.chorus.gossip.identity.PrivateKey;
import dev.chorus.learning.data.CsvData;
import dev.chorus.learning.data.CsvLoader;
import dev.chorus.learning.data.CsvSchema;
import dev.chorus.learning.data.CsvTable;
import dev.chorus.learning.data.DataException;
import dev.chorus.learning.data.MissingValuePolicy;
import dev.chorus.learning.partition.Partition;
import dev.chorus.learning.partition.PartitionSource;
import dev.chorus.learning.partition.Partitioner;
import dev.chorus.learning.partition.ShardManifest;
import dev.chorus.learning.partition.ShardWriter;
import dev.chorus.node.BundledData;
import dev.chorus.node.DataAdvice;
import dev.chorus.node.api.ApiToken;
import dev.chorus.node.averaging.AveragingKind;
import dev.chorus.node.config.ConfigLoader;
import dev.chorus.node.config.ConfigSchema;
import dev.chorus.node.config.NodeConfig;
import dev.chorus.node.setup.ConfigSettings;
import dev.chorus.node.setup.NodeDirectory;
import dev.chorus.node.setup.OutputDirectory;
import dev.chorus.node.setup.UserError;
import dev.chorus.testnet.localnet.LocalnetManifest;
import java.io.IOException;
import java.io.PrintWriter;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * What {@code testnet up} and {@code testnet compose} share, mixed in ({@code @Mixin}) by both: the data set
 * ({@link DataSourceOptions}) and how it is split ({@code --partition}, and {@link SeedOptions}, which also becomes
 * every node's {@code training.seed}), the consortium, the config keys every node gets, and the files written from
 * them: per-node CSV shards, the consortium's CAs and roster ({@link TestnetConsortium}), and a data directory per
 * node ({@code node.yaml} naming every other node as a bootstrap peer and the roster, an identity key, a member
 * certificate and an empty CRL directory). Every testnet enforces membership.
 *
 * <p>The nodes read their CSV shards with their own config, so the loader options of {@link DataOptions} ({@code
 * --format}, {@code --idx-prefix}, {@code --categorical}, {@code --missing}) are not taken here: {@code --set} gives
 * the nodes {@code data.categorical} or {@code data.missing} ({@code --set data.missing=impute}).
 */
public final class LocalnetOptions {

    /** Data errors in these options: there is no --missing, and the nodes impute when --set says so. */
    private static final DataAdvice ADVICE = DataAdvice.options("--set " + ConfigSchema.DATA_MISSING + "=impute");

    /** Keys the testnet writes into each node's config itself. */
    private static final Set<String> PER_NODE_KEYS = Set.of(
            ConfigSchema.MDNS,
            ConfigSchema.CONSORTIUM,
            ConfigSchema.LISTEN,
            ConfigSchema.BOOTSTRAP,
            ConfigSchema.DATA_PATH,
            ConfigSchema.API_PORT,
            ConfigSchema.DATA_DIR,
            ConfigSchema.KEY_FILE,
            ConfigSchema.MEMBERSHIP_ROSTER,
            ConfigSchema.MEMBERSHIP_CERTIFICATE,
            ConfigSchema.MEMBERSHIP_CRL,
            ConfigSchema.MEMBERSHIP_ENFORCE);

    @Mixin
    DataSourceOptions source = new DataSourceOptions();

    @Option(
            names = "--partition",
            paramLabel = "METHOD",
            description = "iid, dirichlet:ALPHA, column:NAME or size:ALPHA. Default: ${DEFAULT-VALUE}.")
    String partition = TestnetCommand.DEFAULT_PARTITION;

    @Mixin
    SeedOptions seedOptions = new SeedOptions();

    @Option(names = "--consortium", paramLabel = "NAME", description = "Consortium name. Default: ${DEFAULT-VALUE}.")
    String consortium = "localnet";

    @Option(
            names = "--institutions",
            paramLabel = "K",
            description = "Institutions of the consortium, each with its own CA; node i belongs to institution"
                    + " i mod K + 1. Default: one per node.")
    Integer institutions;

    /** Set by {@code up --discovery mdns}: no bootstrap lists, {@code network.mdns: on} instead. */
    boolean mdnsDiscovery;

    @Option(
            names = "--set",
            paramLabel = "KEY=VALUE",
            description = "A config key written to every node.yaml (repeatable), e.g. averaging.strategy=fragmented.")
    List<String> settings = new ArrayList<>();

    /**
     * Where node {@code i} listens, how the others dial it, and where its API binds.
     *
     * @param listen the multiaddr in {@code network.listen}, without {@code /p2p}
     * @param dialed the multiaddr the other nodes' bootstrap lists name, without {@code /p2p}
     * @param apiHost {@code api.host}
     * @param apiPort {@code api.port}
     */
    record Placement(String listen, String dialed, String apiHost, int apiPort) {}

    /**
     * A node directory as written.
     *
     * @param name {@code node-000}, ...
     * @param home its data directory
     * @param peerId its peer ID
     * @param dialed the multiaddr the other nodes dial, ending in {@code /p2p/ID}
     */
    record WrittenNode(String name, Path home, PeerId peerId, String dialed) {}

    /**
     * Checks the options that need no file access.
     *
     * @param nodes the testnet's node count, already checked
     * @param extra receives the {@code --set} values by key
     * @return the partitioner of {@code --partition}
     */
    Partitioner check(int nodes, Map<String, String> extra) {
        if (institutions != null && (institutions < 1 || institutions > nodes)) {
            throw new UserError("--institutions: expected 1 to " + nodes + " (the node count), got " + institutions);
        }
        extra.putAll(settings());
        Partitioner partitioner;
        try {
            partitioner = Partitioner.parse(partition);
        } catch (IllegalArgumentException | DataException e) {
            throw new UserError("--partition: " + e.getMessage());
        }
        Path data = source.data;
        if (data != null) {
            if (source.label == null) {
                throw new UserError("--label is required with --data: name the column that holds the label");
            }
            if (!Files.isRegularFile(data) || !Files.isReadable(data)) {
                throw new UserError("--data: not a readable CSV file: " + data);
            }
        }
        return partitioner;
    }

    /**
     * Refuses a {@code dir} that already holds a testnet (one of {@code files}, or a node directory) or a copy of
     * the bundled data.
     *
     * @param stop how to stop the testnet found there, e.g. {@code 'testnet down'}
     */
    void requireFresh(Path dir, String stop, String... files) {
        boolean taken = Files.exists(dir.resolve(nodeName(0))) || Files.exists(dir.resolve(TestnetConsortium.DIR));
        for (String file : files) {
            taken |= Files.exists(dir.resolve(file));
        }
        if (taken) {
            throw new UserError(dir + " already holds a testnet; stop it with " + stop + " and pick a new --dir");
        }
        if (source.bundled() && Files.exists(dir.resolve("wdbc.csv"))) {
            throw new UserError("--dir " + dir + " already has a wdbc.csv, which the testnet would overwrite with"
                    + " the bundled data; pick a new --dir");
        }
    }

    /**
     * Partitions the data into {@code dir/shards}, creates the consortium in {@code dir/consortium}, then writes
     * {@code dir/node-XXX} for each placement. On a data error nothing of what this call created is left; the error
     * names the remedy in these options.
     *
     * @param dirExisted whether {@code dir} existed before the command (if not, it is removed on failure)
     * @param paths how a node's config names a file of the testnet (its shard, the roster) given the node's home
     * @param extra config keys for every node (from {@link #check}, completed with the strategies' peers here)
     */
    List<WrittenNode> write(
            Path dir,
            boolean dirExisted,
            Partitioner partitioner,
            List<Placement> placements,
            PathRule paths,
            Map<String, String> extra,
            PrintWriter err)
            throws IOException {
        int nodes = placements.size();
        Path shardDir = dir.resolve("shards");
        ShardManifest shards = writeShardsOrClean(dir, dirExisted, partitioner, nodes, extra);
        err.printf(
                Locale.ROOT,
                "partitioned %d rows into %d shards by %s, seed %d: %s%n",
                shards.rows(),
                nodes,
                shards.method(),
                seedOptions.seed,
                shards.shards().stream()
                        .map(s -> s.node() + ":" + s.labelCounts().values())
                        .toList());

        TestnetConsortium members = createConsortium(dir, nodes, err);
        List<PrivateKey> keys = new ArrayList<>();
        List<PeerId> peers = new ArrayList<>();
        for (int i = 0; i < nodes; i++) {
            keys.add(PrivateKey.generate());
            peers.add(keys.get(i).peerId());
        }
        strategyPeers(extra, peers);
        List<String> dialed = new ArrayList<>();
        for (int i = 0; i < nodes; i++) {
            dialed.add(placements.get(i).dialed() + "/p2p/" + peers.get(i));
        }
        List<WrittenNode> written = new ArrayList<>();
        for (int i = 0; i < nodes; i++) {
            Placement p = placements.get(i);
            List<String> others = new ArrayList<>(dialed);
            others.remove(i);
            Path home = dir.resolve(nodeName(i)).toAbsolutePath();
            Map<String, String> values = new LinkedHashMap<>();
            values.put(ConfigSchema.CONSORTIUM, consortium);
            values.put(ConfigSchema.LISTEN, "[" + p.listen() + "]");
            putDiscovery(values, others);
            putData(
                    values,
                    paths.path(shardDir.resolve(ShardWriter.csvShardName(i)).toAbsolutePath(), home));
            values.put(ConfigSchema.TRAINING_SEED, Long.toString(seedOptions.seed));
            values.put(ConfigSchema.API_HOST, p.apiHost());
            values.put(ConfigSchema.API_PORT, Integer.toString(p.apiPort()));
            values.put(
                    ConfigSchema.MEMBERSHIP_ROSTER,
                    flowList(members.rosterFiles().stream()
                            .map(f -> paths.path(f, home))
                            .toList()));
            values.put(ConfigSchema.MEMBERSHIP_CERTIFICATE, TestnetConsortium.CERTIFICATE_FILE);
            values.put(ConfigSchema.MEMBERSHIP_CRL, "[" + TestnetConsortium.CRL_DIR + "]");
            values.put(ConfigSchema.MEMBERSHIP_ENFORCE, "true");
            values.putAll(extra);
            watchedDefaults(values);
            // Nodes of one testnet run on one machine: split its cores between them.
            values.putIfAbsent(
                    ConfigSchema.MODEL_THREADS,
                    Integer.toString(Math.max(1, Runtime.getRuntime().availableProcessors() / nodes)));
            NodeDirectory.create(home, values, keys.get(i));
            members.admit(i, keys.get(i), home);
            written.add(new WrittenNode(nodeName(i), home, peers.get(i), dialed.get(i)));
        }
        return written;
    }

    /** How the node finds the others: a bootstrap list naming them all, or mDNS alone ({@code --discovery mdns}). */
    private void putDiscovery(Map<String, String> values, List<String> others) {
        if (mdnsDiscovery) {
            values.put(ConfigSchema.BOOTSTRAP, "[]");
            values.put(ConfigSchema.MDNS, "on");
        } else {
            values.put(ConfigSchema.BOOTSTRAP, "[" + String.join(", ", others) + "]");
        }
    }

    /** The node's shard at {@code shard} (as its config names it) and the data options it is read with. */
    private void putData(Map<String, String> values, String shard) {
        values.put(ConfigSchema.DATA_PATH, quoted(shard));
        values.put(ConfigSchema.DATA_LABEL, quoted(effectiveLabel()));
        if (effectivePositive() != null) {
            values.put(ConfigSchema.DATA_POSITIVE, quoted(effectivePositive()));
        }
        if (!effectiveDrop().isEmpty()) {
            values.put(ConfigSchema.DATA_DROP, flowList(effectiveDrop()));
        }
    }

    /**
     * What a testnet sets unless {@code --set} did: it is watched while it runs, for minutes, so its accuracy is worth
     * a point a second (a deployment's default is one per 30 s); and its shards of the bundled data are small, where
     * early stopping would end training by default, while a testnet is there to show averaging at work, so it warns.
     */
    private static void watchedDefaults(Map<String, String> values) {
        values.putIfAbsent(ConfigSchema.TRAINING_EVAL_EVERY_SECONDS, "1");
        values.putIfAbsent(ConfigSchema.TRAINING_EARLY_STOPPING, "warn");
    }

    /** Creates the testnet's CAs and roster in {@code dir/consortium} and says so. */
    private TestnetConsortium createConsortium(Path dir, int nodes, PrintWriter err) {
        TestnetConsortium members = TestnetConsortium.create(dir, institutions == null ? nodes : institutions);
        err.printf(
                Locale.ROOT,
                "membership enforced: %d institution%s%s; their CAs (each with its key's passphrase file) and the"
                        + " roster are in %s%n",
                members.institutions(),
                members.institutions() == 1 ? "" : "s",
                members.institutions() == nodes
                        ? ", one per node"
                        : " (node i belongs to institution i mod " + members.institutions() + " + 1)",
                members.dir());
        err.flush();
        return members;
    }

    /**
     * How a node's config names a file of the testnet outside its own directory (its shard, the roster's CA
     * certificates): absolute, or as the node will see it.
     */
    @FunctionalInterface
    interface PathRule {
        String path(Path file, Path home);
    }

    /** {@code --set} values by key, checked against the schema. */
    private Map<String, String> settings() {
        return ConfigSettings.parse(settings, PER_NODE_KEYS, "set per node by the testnet");
    }

    /**
     * The strategies that name peers get them from the testnet unless {@code --set} gave them: {@code sync} waits
     * for every node, {@code fedbuff} aggregates at node 0.
     */
    private static void strategyPeers(Map<String, String> extra, List<PeerId> peers) {
        AveragingKind strategy = AveragingKind.parse(
                extra.getOrDefault(ConfigSchema.AVERAGING_STRATEGY, AveragingKind.DEFAULT.configName()));
        if (strategy == AveragingKind.SYNC) {
            extra.putIfAbsent(
                    ConfigSchema.AVERAGING_PARTICIPANTS,
                    flowList(peers.stream().map(PeerId::toString).toList()));
        } else if (strategy == AveragingKind.FEDBUFF) {
            extra.putIfAbsent(
                    ConfigSchema.AVERAGING_AGGREGATOR, peers.getFirst().toString());
        }
    }

    private ShardManifest writeShardsOrClean(
            Path dir, boolean dirExisted, Partitioner partitioner, int nodes, Map<String, String> extra)
            throws IOException {
        Path shardDir = dir.resolve("shards");
        Path bundledCopy = dir.resolve("wdbc.csv");
        boolean shardsExisted = Files.exists(shardDir);
        boolean copyExisted = Files.exists(bundledCopy);
        try {
            return writeShards(dir, partitioner, nodes, shardDir, extra);
        } catch (RuntimeException | IOException e) {
            // Nothing runs yet: remove what this command created, and only that.
            if (!dirExisted) {
                OutputDirectory.removeTree(dir);
            } else {
                Files.deleteIfExists(dir.resolve(LocalnetManifest.FILE));
                if (!shardsExisted) {
                    OutputDirectory.removeTree(shardDir);
                }
                if (source.bundled() && !copyExisted) {
                    OutputDirectory.removeTree(bundledCopy);
                }
            }
            if (e instanceof DataException de) {
                String message = ADVICE.message(de, effectiveDrop());
                // The copy is gone: name the bundled data set rather than a file that no longer exists.
                throw new UserError(source.bundled() ? BundledData.named(message, bundledCopy) : message, e);
            }
            throw e;
        }
    }

    private ShardManifest writeShards(
            Path dir, Partitioner partitioner, int nodes, Path shardDir, Map<String, String> extra) throws IOException {
        Path file = source.data;
        if (file == null) {
            file = dir.resolve("wdbc.csv");
            BundledData.copyTo(file);
        }
        CsvTable table = CsvTable.read(file);
        if (nodesDropRows(extra)) {
            // Every shard's rows that survive dropping are among the whole file's: when dropping leaves the file
            // one class or none, every node would exit at start. Say so now, in this command's options.
            CsvLoader.load(table, schema(MissingValuePolicy.DROP_ROW));
        }
        // Rows are copied verbatim; each node decides on its own.
        CsvData csv = CsvLoader.load(table, schema(MissingValuePolicy.IMPUTE));
        Partition parts = partitioner.partition(PartitionSource.of(csv), nodes, seedOptions.seed);
        return ShardWriter.writeCsv(csv, parts, shardDir);
    }

    private CsvSchema schema(MissingValuePolicy missing) {
        CsvSchema.Builder schema =
                CsvSchema.builder(effectiveLabel()).drop(effectiveDrop()).missing(missing);
        if (effectivePositive() != null) {
            schema.positiveClass(effectivePositive());
        }
        return schema.build();
    }

    /**
     * Whether the nodes will read their shards as these options say and drop rows with a missing value: {@code
     * data.missing} is not set to {@code impute}, and no other {@code --set} changes how the CSV is read.
     */
    private static boolean nodesDropRows(Map<String, String> extra) {
        for (String key : List.of(
                ConfigSchema.DATA_LABEL,
                ConfigSchema.DATA_POSITIVE,
                ConfigSchema.DATA_DROP,
                ConfigSchema.DATA_CATEGORICAL,
                ConfigSchema.DATA_FORMAT)) {
            if (extra.containsKey(key)) {
                return false;
            }
        }
        String missing = extra.getOrDefault(ConfigSchema.DATA_MISSING, "drop");
        return missing.replace("\"", "").replace("'", "").strip().equals("drop");
    }

    private String effectiveLabel() {
        return source.bundled() && source.label == null ? BundledData.LABEL : source.label;
    }

    private String effectivePositive() {
        return source.bundled() && source.label == null && source.positive == null
                ? BundledData.POSITIVE
                : source.positive;
    }

    private List<String> effectiveDrop() {
        return source.bundled() && source.label == null && source.drop.isEmpty()
                ? List.of(BundledData.ID)
                : source.drop;
    }

    /** Refuses a TCP port on loopback that something else holds, naming the option that chose it. */
    static void requireFree(int port, String option) {
        try (ServerSocket s = new ServerSocket(port, 1, InetAddress.getLoopbackAddress())) {
            s.setReuseAddress(true);
        } catch (IOException e) {
            throw new UserError(option + ": port " + port + " on 127.0.0.1 is in use; pick another " + option);
        }
    }

    /**
     * A node's API token as its printed URLs and hints use it.
     *
     * @param file the node's {@code api.token_file}
     * @param token the token in it
     */
    record NodeToken(Path file, String token) {

        /** The dashboard at {@code api} ({@code http://host:port/}), which reads the token from the fragment. */
        String dashboard(String api) {
            return api + "#token=" + token;
        }

        /** How to ask the node's status from the command line. */
        String statusHint(String api) {
            return "chorus status --api " + api + " --token-file " + file;
        }
    }

    /**
     * The bearer token node {@code w}'s API requires (its api.host is off loopback, or api.require_token is set),
     * from its api.token_file, which is created (mode 0600) if missing, so that what is printed is what the node
     * will accept; null when its API requires no token.
     */
    static NodeToken apiToken(WrittenNode w) throws IOException {
        NodeConfig.Api api = ConfigLoader.load(w.home().resolve("node.yaml"), List.of())
                .operations()
                .api();
        if (!api.tokenRequired()) {
            return null;
        }
        ApiToken.loadOrCreate(api.tokenFile());
        return new NodeToken(api.tokenFile(), Files.readString(api.tokenFile()).strip());
    }

    static String nodeName(int i) {
        return String.format(Locale.ROOT, "node-%03d", i);
    }

    static String quoted(String s) {
        return "\"" + s.replace("\\", "\\\\").replace("\"", "\\\"") + "\"";
    }

    private static String flowList(List<String> items) {
        return "["
                + String.join(", ", items.stream().map(LocalnetOptions::quoted).toList()) + "]";
    }
}
