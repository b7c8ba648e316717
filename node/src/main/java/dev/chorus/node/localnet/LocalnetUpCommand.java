package dev.chorus.node.localnet;

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
import dev.chorus.node.cli.NodeDirectory;
import dev.chorus.node.cli.OutputDirectory;
import dev.chorus.node.cli.UserError;
import dev.chorus.node.config.ConfigSchema;
import java.io.IOException;
import java.io.PrintWriter;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.http.HttpClient;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code chorus testnet up}: a testnet of N node processes on loopback. Node {@code i} listens on
 * {@code base-port + 2i} and serves its API on {@code base-port + 2i + 1}; its bootstrap list names every other
 * node. All nodes start at once: a node listens before it dials its bootstrap peers (once, at start), so of two
 * nodes the one that dials last always finds the other listening, and every pair ends up connected. With {@code
 * --netns}, node {@code i} runs in its own network namespace at {@code 10.77.S.(i+1)}, port 4001 and API port 7465
 * ({@link LocalnetNetwork}).
 */
@Command(
        name = "up",
        mixinStandardHelpOptions = true,
        sortOptions = false,
        description = {
            "Starts N Chorus nodes as separate processes on this machine: on loopback, or with --netns each in its"
                    + " own network namespace, on links that --link-delay and --link-mbit can impair.",
            "Partitions the data set into per-node shards, creates a data directory per node (node.yaml, identity"
                    + " key), starts each node detached (logs in DIR/node-XXX/logs/), writes DIR/testnet.json and"
                    + " prints the nodes' API URLs.",
            "Stop them with 'chorus testnet down --dir DIR'."
        })
public final class LocalnetUpCommand implements Callable<Integer> {

    /** Data errors in this command's options: it has no --missing, and its nodes impute when --set says so. */
    private static final DataAdvice ADVICE = DataAdvice.options("--set " + ConfigSchema.DATA_MISSING + "=impute");

    @Spec
    picocli.CommandLine.Model.CommandSpec spec;

    @Option(names = "--nodes", required = true, paramLabel = "N", description = "Number of nodes (1 to 64).")
    int nodes;

    @Option(names = "--dir", required = true, paramLabel = "DIR", description = "Directory of the testnet.")
    Path dir;

    @Option(names = "--data", paramLabel = "PATH", description = "CSV data set. Default: the bundled WDBC.")
    Path data;

    @Option(names = "--label", paramLabel = "COLUMN", description = "Label column (required with --data).")
    String label;

    @Option(names = "--positive", paramLabel = "VALUE", description = "Positive class of a binary task.")
    String positive;

    @Option(names = "--drop", paramLabel = "COL", split = ",", description = "Columns to leave out of the features.")
    List<String> drop = new ArrayList<>();

    @Option(
            names = "--partition",
            paramLabel = "METHOD",
            description = "iid, dirichlet:ALPHA, column:NAME or size:ALPHA. Default: ${DEFAULT-VALUE}.")
    String partition = "dirichlet:1.0";

    @Option(
            names = "--seed",
            paramLabel = "S",
            description = "Seed of the partition and training.seed. Default: ${DEFAULT-VALUE}.")
    long seed = 42;

    @Option(
            names = "--base-port",
            paramLabel = "P",
            description = "Node i listens on P+2i and serves its API on P+2i+1. Default: 4600. Not with --netns.")
    Integer basePortOption;

    private int basePort = 4600;

    @Option(
            names = "--netns",
            description = "Run each node in its own Linux network namespace, at 10.77.S.(i+1), joined by a bridge"
                    + " (needs root and the ip command).")
    boolean netns;

    @Option(
            names = "--link-delay",
            paramLabel = "MS",
            description = "With --netns: delay added to each node's outgoing packets (tc netem). Default: 0.")
    int linkDelayMs;

    @Option(
            names = "--link-mbit",
            paramLabel = "MBIT",
            description = "With --netns: each node's outgoing rate in Mbit/s (tc). Default: 0, unlimited.")
    int linkMbit;

    @Option(names = "--consortium", paramLabel = "NAME", description = "Consortium name. Default: ${DEFAULT-VALUE}.")
    String consortium = "localnet";

    @Option(
            names = "--set",
            paramLabel = "KEY=VALUE",
            description = "A config key written to every node.yaml (repeatable), e.g. averaging.strategy=fragmented.")
    List<String> settings = new ArrayList<>();

    @Option(
            names = "--ready-timeout",
            paramLabel = "SECONDS",
            description = "How long to wait for every node's /ready. Default: ${DEFAULT-VALUE}.")
    int readyTimeoutSeconds = 120;

    private boolean shardsExisted;
    private boolean copyExisted;

    @Override
    public Integer call() throws IOException, InterruptedException {
        if (nodes < 1 || nodes > 64) {
            throw new UserError("--nodes: expected 1 to 64, got " + nodes);
        }
        if (basePortOption != null) {
            if (netns) {
                throw new UserError("--base-port: not with --netns, where every node listens on its own address");
            }
            basePort = basePortOption;
        }
        if (!netns && (linkDelayMs != 0 || linkMbit != 0)) {
            throw new UserError((linkDelayMs != 0 ? "--link-delay" : "--link-mbit")
                    + ": only with --netns, which gives each node a link of its own");
        }
        if (linkDelayMs < 0 || linkDelayMs > 60_000) {
            throw new UserError("--link-delay: expected 0 to 60000 ms, got " + linkDelayMs);
        }
        if (linkMbit < 0 || linkMbit > 100_000) {
            throw new UserError("--link-mbit: expected 0 to 100000, got " + linkMbit);
        }
        if (!netns && (basePort < 1024 || basePort + 2 * nodes > 65535)) {
            throw new UserError("--base-port: ports " + basePort + " to " + (basePort + 2 * nodes - 1)
                    + " must lie in 1024..65535");
        }
        Map<String, String> extra = settings();
        Partitioner partitioner;
        try {
            partitioner = Partitioner.parse(partition);
        } catch (IllegalArgumentException | DataException e) {
            throw new UserError("--partition: " + e.getMessage());
        }
        if (data != null) {
            if (label == null) {
                throw new UserError("--label is required with --data: name the column that holds the label");
            }
            if (!Files.isRegularFile(data) || !Files.isReadable(data)) {
                throw new UserError("--data: not a readable CSV file: " + data);
            }
        }
        if (Files.exists(dir.resolve(LocalnetManifest.FILE)) || Files.exists(dir.resolve(nodeName(0)))) {
            throw new UserError(dir + " already holds a testnet; stop it with 'testnet down' and pick a new --dir");
        }
        if (data == null && Files.exists(dir.resolve("wdbc.csv"))) {
            throw new UserError("--dir " + dir + " already has a wdbc.csv, which testnet up would overwrite with the"
                    + " bundled data; pick a new --dir");
        }
        int subnet = 0;
        if (netns) {
            LocalnetNetwork.requireAvailable(linkDelayMs > 0 || linkMbit > 0);
            subnet = LocalnetNetwork.pickSubnet(dir);
        } else {
            for (int port = basePort; port < basePort + 2 * nodes; port++) {
                requireFree(port);
            }
        }
        boolean dirExisted = Files.isDirectory(dir);
        shardsExisted = Files.exists(dir.resolve("shards"));
        copyExisted = Files.exists(dir.resolve("wdbc.csv"));
        OutputDirectory.create("--dir", dir);
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        List<String> namespaces = netns ? LocalnetNetwork.namespaces(subnet, nodes) : List.of();
        String hostLink = netns ? LocalnetNetwork.hostLink(subnet) : null;
        if (netns) {
            try {
                LocalnetNetwork.create(subnet, nodes, linkDelayMs, linkMbit);
            } catch (UserError e) {
                if (!dirExisted) {
                    OutputDirectory.removeTree(dir);
                }
                throw e;
            }
            err.printf(
                    Locale.ROOT,
                    "network namespaces %s-sw and %s-0..%d on 10.77.%d.0/24 (this machine: %s via %s)%s%n",
                    "chorus" + subnet,
                    "chorus" + subnet,
                    nodes - 1,
                    subnet,
                    LocalnetNetwork.hostAddress(subnet),
                    hostLink,
                    linkDelayMs > 0 || linkMbit > 0
                            ? ", each node's egress: " + (linkDelayMs > 0 ? linkDelayMs + " ms" : "")
                                    + (linkDelayMs > 0 && linkMbit > 0 ? ", " : "")
                                    + (linkMbit > 0 ? linkMbit + " Mbit/s" : "")
                            : "");
            err.flush();
        }
        boolean keepNetwork = false;
        try {
            if (netns) {
                // Before any node starts, so that 'down' finds the namespaces even if 'up' is killed.
                new LocalnetManifest(List.of(), namespaces, hostLink).write(dir);
            }
            Integer code = startNodes(partitioner, extra, subnet, namespaces, hostLink, dirExisted, out, err);
            keepNetwork = code == 0;
            return code;
        } finally {
            if (netns && !keepNetwork) {
                List<String> problems = LocalnetNetwork.delete(namespaces);
                for (String problem : problems) {
                    err.println("chorus: " + problem);
                }
                err.flush();
                if (problems.isEmpty()) {
                    LocalnetDownCommand.forgetNetwork(dir);
                }
            }
        }
    }

    private Integer startNodes(
            Partitioner partitioner,
            Map<String, String> extra,
            int subnet,
            List<String> namespaces,
            String hostLink,
            boolean dirExisted,
            PrintWriter out,
            PrintWriter err)
            throws IOException, InterruptedException {
        Path shardDir = dir.resolve("shards");
        Path bundledCopy = dir.resolve("wdbc.csv");

        ShardManifest shards;
        try {
            shards = writeShards(partitioner, shardDir, extra);
        } catch (RuntimeException | IOException e) {
            // Nothing runs yet: remove what this command created, and only that.
            if (!dirExisted) {
                OutputDirectory.removeTree(dir);
            } else {
                Files.deleteIfExists(dir.resolve(LocalnetManifest.FILE));
                if (!shardsExisted) {
                    OutputDirectory.removeTree(shardDir);
                }
                if (data == null && !copyExisted) {
                    OutputDirectory.removeTree(bundledCopy);
                }
            }
            if (e instanceof DataException de) {
                String message = ADVICE.message(de, effectiveDrop());
                // The copy is gone: name the bundled data set rather than a file that no longer exists.
                throw new UserError(data == null ? BundledData.named(message, bundledCopy) : message, e);
            }
            throw e;
        }
        err.printf(
                Locale.ROOT,
                "partitioned %d rows into %d shards by %s, seed %d: %s%n",
                shards.rows(),
                nodes,
                shards.method(),
                seed,
                shards.shards().stream()
                        .map(s -> s.node() + ":" + s.labelCounts().values())
                        .toList());

        List<PrivateKey> keys = new ArrayList<>();
        List<PeerId> peers = new ArrayList<>();
        for (int i = 0; i < nodes; i++) {
            keys.add(PrivateKey.generate());
            peers.add(keys.get(i).peerId());
        }
        strategyPeers(extra, peers);
        List<String> listen = new ArrayList<>();
        for (int i = 0; i < nodes; i++) {
            listen.add(listenAddress(subnet, i) + "/p2p/" + peers.get(i));
        }
        List<Path> homes = new ArrayList<>();
        for (int i = 0; i < nodes; i++) {
            List<String> others = new ArrayList<>(listen);
            others.remove(i);
            Path home = dir.resolve(nodeName(i)).toAbsolutePath();
            Map<String, String> values = new LinkedHashMap<>();
            values.put(ConfigSchema.CONSORTIUM, consortium);
            values.put(ConfigSchema.LISTEN, "[" + listenAddress(subnet, i) + "]");
            values.put(ConfigSchema.BOOTSTRAP, "[" + String.join(", ", others) + "]");
            values.put(
                    ConfigSchema.DATA_PATH,
                    shardDir.resolve(ShardWriter.csvShardName(i))
                            .toAbsolutePath()
                            .toString());
            values.put(ConfigSchema.DATA_LABEL, quoted(effectiveLabel()));
            if (effectivePositive() != null) {
                values.put(ConfigSchema.DATA_POSITIVE, quoted(effectivePositive()));
            }
            if (!effectiveDrop().isEmpty()) {
                values.put(ConfigSchema.DATA_DROP, flowList(effectiveDrop()));
            }
            values.put(ConfigSchema.TRAINING_SEED, Long.toString(seed));
            values.put(ConfigSchema.API_HOST, nodeHost(subnet, i));
            values.put(ConfigSchema.API_PORT, Integer.toString(apiPort(i)));
            values.putAll(extra);
            // Nodes of one testnet run on one machine: split its cores between them.
            values.putIfAbsent(
                    ConfigSchema.MODEL_THREADS,
                    Integer.toString(Math.max(1, Runtime.getRuntime().availableProcessors() / nodes)));
            NodeDirectory.create(home, values, keys.get(i));
            homes.add(home);
        }

        List<LocalnetManifest.Node> started = new ArrayList<>();
        List<Process> processes = new ArrayList<>();
        for (int i = 0; i < nodes; i++) {
            Path home = homes.get(i);
            Process p;
            try {
                p = NodeProcess.start(
                        netns ? LocalnetNetwork.execPrefix(namespaces.get(i + 1)) : List.of(),
                        home.resolve("node.yaml"),
                        home.resolve("logs"));
            } catch (IOException e) {
                err.println("chorus: cannot start " + nodeName(i) + ": " + e.getMessage());
                LocalnetDownCommand.stop(started, Duration.ofSeconds(30), err);
                return 1;
            }
            processes.add(p);
            started.add(new LocalnetManifest.Node(
                    nodeName(i),
                    home,
                    p.pid(),
                    p.info().startInstant().orElse(null),
                    peers.get(i).toString(),
                    listen.get(i),
                    "http://" + nodeHost(subnet, i) + ":" + apiPort(i) + "/"));
            // Written after each start, so that 'down' finds every process even if 'up' is interrupted.
            new LocalnetManifest(started, namespaces, hostLink).write(dir);
        }
        try (HttpClient http =
                HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build()) {
            long deadline =
                    System.nanoTime() + Duration.ofSeconds(readyTimeoutSeconds).toNanos();
            for (int i = 0; i < nodes; i++) {
                LocalnetManifest.Node n = started.get(i);
                Duration left = Duration.ofNanos(Math.max(0, deadline - System.nanoTime()));
                String failure = NodeProcess.awaitReady(http, processes.get(i), n.api(), left);
                if (failure != null) {
                    err.println("chorus: " + n.name() + " did not start: " + failure + " (log: "
                            + n.dir().resolve("logs").resolve(NodeProcess.STDERR) + ")");
                    err.println("stopping the testnet");
                    err.flush();
                    LocalnetDownCommand.stop(started, Duration.ofSeconds(30), err);
                    return 1;
                }
                err.println(n.name() + " ready: pid " + n.pid() + ", peer " + n.peerId());
                err.flush();
            }
        }
        for (LocalnetManifest.Node n : started) {
            out.println(n.name() + " " + n.api() + " pid " + n.pid());
        }
        out.flush();
        err.println("testnet of " + nodes + " nodes up; stop it with: chorus testnet down --dir " + dir);
        err.flush();
        return 0;
    }

    /** {@code --set} values by key, checked against the schema. */
    private Map<String, String> settings() {
        Map<String, String> out = new LinkedHashMap<>();
        for (String s : settings) {
            int eq = s.indexOf('=');
            if (eq <= 0) {
                throw new UserError("--set: expected KEY=VALUE, got '" + s + "'");
            }
            String key = s.substring(0, eq).trim();
            if (ConfigSchema.key(key) == null) {
                throw new UserError("--set: " + key + ": unknown key (docs/config.md lists them)");
            }
            switch (key) {
                case ConfigSchema.CONSORTIUM,
                        ConfigSchema.LISTEN,
                        ConfigSchema.BOOTSTRAP,
                        ConfigSchema.DATA_PATH,
                        ConfigSchema.API_PORT,
                        ConfigSchema.DATA_DIR,
                        ConfigSchema.KEY_FILE ->
                    throw new UserError("--set: " + key + " is set per node by testnet up");
                default -> out.put(key, s.substring(eq + 1).trim());
            }
        }
        return out;
    }

    /**
     * The strategies that name peers get them from the testnet unless {@code --set} gave them: {@code sync} waits
     * for every node, {@code fedbuff} aggregates at node 0.
     */
    private static void strategyPeers(Map<String, String> extra, List<PeerId> peers) {
        String strategy = extra.getOrDefault(ConfigSchema.AVERAGING_STRATEGY, "async");
        if (strategy.equals("sync")) {
            extra.putIfAbsent(
                    ConfigSchema.AVERAGING_PARTICIPANTS,
                    flowList(peers.stream().map(PeerId::toString).toList()));
        } else if (strategy.equals("fedbuff")) {
            extra.putIfAbsent(
                    ConfigSchema.AVERAGING_AGGREGATOR, peers.getFirst().toString());
        }
    }

    private ShardManifest writeShards(Partitioner partitioner, Path shardDir, Map<String, String> extra)
            throws IOException {
        Path source = data;
        if (source == null) {
            source = dir.resolve("wdbc.csv");
            BundledData.copyTo(source);
        }
        CsvTable table = CsvTable.read(source);
        if (nodesDropRows(extra)) {
            // Every shard's rows that survive dropping are among the whole file's: when dropping leaves the file
            // one class or none, every node would exit at start. Say so now, in this command's options.
            CsvLoader.load(table, schema(MissingValuePolicy.DROP_ROW));
        }
        // Rows are copied verbatim; each node decides on its own.
        CsvData csv = CsvLoader.load(table, schema(MissingValuePolicy.IMPUTE));
        Partition parts = partitioner.partition(PartitionSource.of(csv), nodes, seed);
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
        return data == null && label == null ? BundledData.LABEL : label;
    }

    private String effectivePositive() {
        return data == null && label == null && positive == null ? BundledData.POSITIVE : positive;
    }

    private List<String> effectiveDrop() {
        return data == null && label == null && drop.isEmpty() ? List.of(BundledData.ID) : drop;
    }

    private static void requireFree(int port) {
        try (ServerSocket s = new ServerSocket(port, 1, InetAddress.getLoopbackAddress())) {
            s.setReuseAddress(true);
        } catch (IOException e) {
            throw new UserError("--base-port: port " + port + " on 127.0.0.1 is in use; pick another --base-port");
        }
    }

    /** Node {@code i}'s IP address: its namespace's, or loopback. */
    private String nodeHost(int subnet, int i) {
        return netns ? LocalnetNetwork.nodeAddress(subnet, i) : "127.0.0.1";
    }

    private String listenAddress(int subnet, int i) {
        return "/ip4/" + nodeHost(subnet, i) + "/tcp/" + (netns ? LocalnetNetwork.P2P_PORT : basePort + 2 * i);
    }

    private int apiPort(int i) {
        return netns ? LocalnetNetwork.API_PORT : basePort + 2 * i + 1;
    }

    static String nodeName(int i) {
        return String.format(Locale.ROOT, "node-%03d", i);
    }

    private static String quoted(String s) {
        return "\"" + s.replace("\\", "\\\\").replace("\"", "\\\"") + "\"";
    }

    private static String flowList(List<String> items) {
        return "["
                + String.join(
                        ", ", items.stream().map(LocalnetUpCommand::quoted).toList()) + "]";
    }
}
