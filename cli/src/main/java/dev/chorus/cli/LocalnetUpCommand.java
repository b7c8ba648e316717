package dev.chorus.cli;

import dev.chorus.learning.partition.Partitioner;
import dev.chorus.node.setup.OutputDirectory;
import dev.chorus.node.setup.UserError;
import dev.chorus.testnet.localnet.LocalnetManifest;
import dev.chorus.testnet.localnet.LocalnetNetwork;
import dev.chorus.testnet.localnet.NodeProcess;
import java.io.IOException;
import java.io.PrintWriter;
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
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code chorus testnet up}: a testnet of N node processes on loopback. Node {@code i} listens on
 * {@code base-port + 2i} and serves its API on {@code base-port + 2i + 1}; its bootstrap list names every other
 * node. All nodes start at once: a node listens before it dials its bootstrap peers, and redials one it could not
 * reach with backoff, so every pair ends up connected. With {@code --netns}, node {@code i} runs in its own network
 * namespace at {@code 10.77.S.(i+1)}, port 4001 and API port 7465 ({@link LocalnetNetwork}); its API is then off
 * loopback and requires the node's token, which the printed dashboard URLs carry after {@code #token=}. Every node holds a member certificate of the testnet's consortium ({@link
 * TestnetConsortium}) and admits only the others.
 */
@Command(
        name = "up",
        mixinStandardHelpOptions = true,
        sortOptions = false,
        description = {
            "Starts N Chorus nodes as separate processes on this machine: on loopback, or with --netns each in its"
                    + " own network namespace, on links that --link-delay and --link-mbit can impair.",
            "Partitions the data set into per-node shards, creates a CA per institution and the roster in"
                    + " DIR/consortium/, a data directory per node (node.yaml, identity key, member certificate),"
                    + " starts each node detached (logs in DIR/node-XXX/logs/), writes DIR/testnet.json and prints"
                    + " the nodes' API URLs. The nodes admit only each other: membership is enforced.",
            "Stop them with 'chorus testnet down --dir DIR'."
        })
public final class LocalnetUpCommand implements Callable<Integer> {

    @Spec
    picocli.CommandLine.Model.CommandSpec spec;

    @Option(names = "--nodes", required = true, paramLabel = "N", description = "Number of nodes (1 to 64).")
    int nodes;

    @Option(names = "--dir", required = true, paramLabel = "DIR", description = "Directory of the testnet.")
    Path dir;

    @Mixin
    LocalnetOptions options = new LocalnetOptions();

    @Mixin
    JvmOptions jvm = new JvmOptions();

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

    @Option(
            names = "--discovery",
            paramLabel = "HOW",
            description = "How the nodes find each other: bootstrap (each node's bootstrap list names every other"
                    + " node) or mdns (no bootstrap list: network.mdns finds them on the namespaces' bridge; only"
                    + " with --netns, since loopback carries no multicast). Default: ${DEFAULT-VALUE}.")
    String discovery = "bootstrap";

    @Option(
            names = "--ready-timeout",
            paramLabel = "SECONDS",
            description = "How long to wait for every node's /ready. Default: ${DEFAULT-VALUE}.")
    int readyTimeoutSeconds = 120;

    /** Set by a command that starts the testnet and stops it itself ({@code soak}, {@code faults}). */
    boolean stopsItself;

    @Override
    public Integer call() throws IOException, InterruptedException {
        return start(spec.commandLine().getOut(), spec.commandLine().getErr());
    }

    /**
     * Starts the testnet as {@link #call} does, with the node lines on {@code out} and progress on {@code err}; also
     * what {@code testnet faults} starts its nodes with.
     *
     * @return 0 when every node is ready; otherwise nothing is left running and no namespace is left
     */
    int start(PrintWriter out, PrintWriter err) throws IOException, InterruptedException {
        checkOptions();
        jvm.options();
        Map<String, String> extra = new LinkedHashMap<>();
        Partitioner partitioner = options.check(nodes, extra);
        options.requireFresh(dir, "'testnet down'", LocalnetManifest.FILE);
        int subnet = 0;
        if (netns) {
            LocalnetNetwork.requireAvailable(linkDelayMs > 0 || linkMbit > 0);
        } else {
            for (int port = basePort; port < basePort + 2 * nodes; port++) {
                LocalnetOptions.requireFree(port, "--base-port");
            }
        }
        boolean dirExisted = Files.isDirectory(dir);
        OutputDirectory.create("--dir", dir);
        if (netns) {
            try {
                subnet = LocalnetNetwork.claim(nodes, linkDelayMs, linkMbit, () -> LocalnetNetwork.pickSubnet(dir));
            } catch (UserError e) {
                if (!dirExisted) {
                    OutputDirectory.removeTree(dir);
                }
                throw e;
            }
        }
        List<String> namespaces = netns ? LocalnetNetwork.namespaces(subnet, nodes) : List.of();
        String hostLink = netns ? LocalnetNetwork.hostLink(subnet) : null;
        if (netns) {
            describeNetwork(err, subnet, hostLink);
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

    /** The options' bounds, and the combinations that do not go together, before anything is written. */
    private void checkOptions() {
        if (nodes < 1 || nodes > 64) {
            throw new UserError("--nodes: expected 1 to 64, got " + nodes);
        }
        if (basePortOption != null) {
            if (netns) {
                throw new UserError("--base-port: not with --netns, where every node listens on its own address");
            }
            basePort = basePortOption;
        }
        switch (discovery) {
            case "bootstrap" -> options.mdnsDiscovery = false;
            case "mdns" -> {
                if (!netns) {
                    throw new UserError("--discovery mdns: only with --netns; loopback carries no multicast");
                }
                options.mdnsDiscovery = true;
            }
            default -> throw new UserError("--discovery: expected bootstrap or mdns, got \"" + discovery + "\"");
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
    }

    /** Tells where the namespaces are and what their links do. */
    private void describeNetwork(PrintWriter err, int subnet, String hostLink) {
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
        List<LocalnetOptions.Placement> placements = new ArrayList<>();
        for (int i = 0; i < nodes; i++) {
            String listen = listenAddress(subnet, i);
            placements.add(new LocalnetOptions.Placement(listen, listen, nodeHost(subnet, i), apiPort(i)));
        }
        List<LocalnetOptions.WrittenNode> written =
                options.write(dir, dirExisted, partitioner, placements, (file, home) -> file.toString(), extra, err);
        // Off loopback (--netns) each API requires its node's token: read before the start, to poll and print.
        List<LocalnetOptions.NodeToken> tokens = new ArrayList<>();
        for (LocalnetOptions.WrittenNode w : written) {
            tokens.add(LocalnetOptions.apiToken(w));
        }
        List<LocalnetManifest.Node> started = new ArrayList<>();
        List<Process> processes = new ArrayList<>();
        for (int i = 0; i < nodes; i++) {
            LocalnetOptions.WrittenNode w = written.get(i);
            Path home = w.home();
            Process p;
            try {
                jvm.write(home);
                p = NodeProcess.start(
                        Main.class,
                        netns ? LocalnetNetwork.execPrefix(namespaces.get(i + 1)) : List.of(),
                        home.resolve("node.yaml"),
                        home.resolve("logs"));
            } catch (IOException e) {
                err.println("chorus: cannot start " + w.name() + ": " + e.getMessage());
                LocalnetDownCommand.stop(started, Duration.ofSeconds(30), err);
                return 1;
            }
            processes.add(p);
            started.add(new LocalnetManifest.Node(
                    w.name(),
                    home,
                    p.pid(),
                    p.info().startInstant().orElse(null),
                    w.peerId().toString(),
                    w.dialed(),
                    "http://" + nodeHost(subnet, i) + ":" + apiPort(i) + "/"));
            // Written after each start, so that 'down' finds every process even if 'up' is interrupted.
            new LocalnetManifest(started, namespaces, hostLink).write(dir);
        }
        if (!awaitReady(started, processes, tokens, err)) {
            return 1;
        }
        printNodes(started, tokens, out, err);
        err.println("testnet of " + nodes + " nodes up"
                + (stopsItself ? "" : "; stop it with: chorus testnet down --dir " + dir));
        err.flush();
        return 0;
    }

    /** Waits for every node's /ready and its token's acceptance; on a failure says why and stops them all. */
    private boolean awaitReady(
            List<LocalnetManifest.Node> started,
            List<Process> processes,
            List<LocalnetOptions.NodeToken> tokens,
            PrintWriter err)
            throws InterruptedException {
        try (HttpClient http =
                HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build()) {
            long deadline =
                    System.nanoTime() + Duration.ofSeconds(readyTimeoutSeconds).toNanos();
            for (int i = 0; i < nodes; i++) {
                LocalnetManifest.Node n = started.get(i);
                Duration left = Duration.ofNanos(Math.max(0, deadline - System.nanoTime()));
                LocalnetOptions.NodeToken token = tokens.get(i);
                String failure = NodeProcess.awaitReady(
                        http, processes.get(i), n.api(), token == null ? null : token.token(), left);
                if (failure != null) {
                    err.println("chorus: " + n.name() + " did not start: " + failure + " (log: "
                            + n.dir().resolve("logs").resolve(NodeProcess.STDERR) + ")");
                    err.println("stopping the testnet");
                    err.flush();
                    LocalnetDownCommand.stop(started, Duration.ofSeconds(30), err);
                    return false;
                }
                err.println(n.name() + " ready: pid " + n.pid() + ", peer " + n.peerId());
                err.flush();
            }
        }
        return true;
    }

    /** One line a node on {@code out}: its dashboard URL (with its token where one is required) and pid. */
    private void printNodes(
            List<LocalnetManifest.Node> started,
            List<LocalnetOptions.NodeToken> tokens,
            PrintWriter out,
            PrintWriter err) {
        List<String> hints = new ArrayList<>();
        for (int i = 0; i < nodes; i++) {
            LocalnetManifest.Node n = started.get(i);
            LocalnetOptions.NodeToken token = tokens.get(i);
            out.println(n.name() + " " + (token == null ? n.api() : token.dashboard(n.api())) + " pid " + n.pid());
            if (token != null) {
                hints.add("  " + token.statusHint(n.api()));
            }
        }
        out.flush();
        if (!hints.isEmpty()) {
            err.println("each node's API requires its bearer token: the URLs above carry it for the dashboard;"
                    + " from the command line:");
            hints.forEach(err::println);
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
}
