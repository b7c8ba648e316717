package dev.chorus.cli;

import dev.chorus.learning.data.AtomicFile;
import dev.chorus.learning.partition.Partitioner;
import dev.chorus.node.setup.OutputDirectory;
import dev.chorus.node.setup.UserError;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code chorus testnet compose}: the files of a testnet whose nodes run as Docker containers, one per node, started
 * with Docker Compose. It writes what {@code testnet up} writes (shards, a data directory per node) and a {@code
 * compose.yaml} with one service per node; it starts nothing. Inside the Compose network node {@code i} is the host
 * {@code node-XXX}, listens on {@link #P2P_PORT} and serves its API on {@link #API_PORT}; the API is published on
 * this machine's loopback only, at {@code --api-port + i}. The folder is mounted at {@link #MOUNT} in every
 * container, so each {@code node.yaml} names its shard and the roster's CA certificates by relative paths that hold
 * on both sides; its member certificate and CRL directory are in its own directory.
 */
@Command(
        name = "compose",
        mixinStandardHelpOptions = true,
        sortOptions = false,
        description = {
            "Writes a testnet of N nodes for Docker Compose: per-node shards, a CA per institution and the"
                    + " roster in DIR/consortium/, data directories (node.yaml, identity key, member certificate) and"
                    + " DIR/compose.yaml, one container per node of the image built by docker/build-image.sh. Starts"
                    + " nothing. The nodes admit only each other: membership is enforced.",
            "Start it with 'docker compose up -d' in DIR; each node's API and dashboard are published on"
                    + " 127.0.0.1 (--api-port + i) and require the node's token (DIR/node-XXX/api.token): the"
                    + " printed dashboard URLs carry it after #token=. Stop it with 'docker compose down'."
        })
public final class LocalnetComposeCommand implements Callable<Integer> {

    /** The Compose file's name in {@code --dir}. */
    public static final String FILE = "compose.yaml";
    /** Where {@code --dir} is mounted in each container. */
    static final String MOUNT = "/testnet";
    /** The libp2p port of every node, in its own container. */
    static final int P2P_PORT = 4001;
    /** The API port of every node, in its own container. */
    static final int API_PORT = 7465;

    @Spec
    picocli.CommandLine.Model.CommandSpec spec;

    @Option(names = "--nodes", required = true, paramLabel = "N", description = "Number of nodes (1 to 64).")
    int nodes;

    @Option(names = "--dir", required = true, paramLabel = "DIR", description = "Directory of the testnet.")
    Path dir;

    @Mixin
    LocalnetOptions options = new LocalnetOptions();

    @Option(
            names = "--image",
            paramLabel = "IMAGE",
            description = "The node image (docker/build-image.sh builds it). Default: ${DEFAULT-VALUE}.")
    String image = "chorus:latest";

    @Option(
            names = "--api-port",
            paramLabel = "P",
            description = "Node i's API is published on 127.0.0.1, port P+i. Default: ${DEFAULT-VALUE}.")
    int apiPort = API_PORT;

    @Override
    public Integer call() throws IOException {
        if (nodes < 1 || nodes > 64) {
            throw new UserError("--nodes: expected 1 to 64, got " + nodes);
        }
        if (apiPort < 1024 || apiPort + nodes - 1 > 65535) {
            throw new UserError(
                    "--api-port: ports " + apiPort + " to " + (apiPort + nodes - 1) + " must lie in 1024..65535");
        }
        if (image.isBlank() || !image.matches("[A-Za-z0-9][A-Za-z0-9._/:@-]*")) {
            throw new UserError("--image: not an image reference: '" + image + "'");
        }
        Map<String, String> extra = new LinkedHashMap<>();
        Partitioner partitioner = options.check(nodes, extra);
        options.requireFresh(dir, "'docker compose down'", FILE);
        for (int i = 0; i < nodes; i++) {
            LocalnetOptions.requireFree(apiPort + i, "--api-port");
        }
        boolean dirExisted = Files.isDirectory(dir);
        OutputDirectory.create("--dir", dir);
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();

        List<LocalnetOptions.Placement> placements = new ArrayList<>();
        for (int i = 0; i < nodes; i++) {
            placements.add(new LocalnetOptions.Placement(
                    "/ip4/0.0.0.0/tcp/" + P2P_PORT,
                    "/dns4/" + LocalnetOptions.nodeName(i) + "/tcp/" + P2P_PORT,
                    "0.0.0.0",
                    API_PORT));
        }
        Path absolute = dir.toAbsolutePath();
        List<LocalnetOptions.WrittenNode> written = options.write(
                dir,
                dirExisted,
                partitioner,
                placements,
                (file, home) -> home.relativize(file).toString(),
                extra,
                err);
        Path file = dir.resolve(FILE);
        AtomicFile.writeString(file, render(written, owner(absolute)));

        err.println("wrote " + file + ": " + nodes + " nodes of " + image);
        List<String> hints = new ArrayList<>();
        for (int i = 0; i < nodes; i++) {
            LocalnetOptions.WrittenNode w = written.get(i);
            String api = "http://127.0.0.1:" + (apiPort + i) + "/";
            // The API listens on every address of its container, so it requires the node's token.
            LocalnetOptions.NodeToken token = LocalnetOptions.apiToken(w);
            out.println(w.name() + " " + (token == null ? api : token.dashboard(api)) + " peer " + w.peerId());
            if (token != null) {
                hints.add("  " + token.statusHint(api));
            }
        }
        out.flush();
        err.println("start it with: cd " + dir + " && docker compose up -d   (stop: docker compose down)");
        if (!hints.isEmpty()) {
            err.println("each node's API requires its bearer token: the URLs above carry it for the dashboard;"
                    + " from the command line:");
            hints.forEach(err::println);
        }
        err.flush();
        return 0;
    }

    /** The Compose file: one service per node. */
    String render(List<LocalnetOptions.WrittenNode> written, String user) {
        StringBuilder sb = new StringBuilder();
        sb.append("# A Chorus testnet of ")
                .append(written.size())
                .append(" nodes, written by 'chorus testnet compose'.\n");
        sb.append("# Start it in this folder with 'docker compose up -d' (or 'docker-compose up -d'); stop it with\n");
        sb.append("# 'docker compose down'. Each node is one container of the image below (docker/build-image.sh\n");
        sb.append("# builds it), reads its node-XXX/node.yaml from this folder, mounted at ")
                .append(MOUNT)
                .append(", and dials the\n");
        sb.append(
                "# others by service name. Each node's API and dashboard is published on this machine's loopback only.\n");
        sb.append("# The containers run as the owner of this folder, so that each node can write its own directory.\n");
        sb.append("# Membership is enforced: each node admits only peers with a member certificate from a CA in\n");
        sb.append(
                "# consortium/roster/ (node-XXX/member.crt; revoke one by writing its CA's CRL into a node's crl/).\n");
        sb.append("services:\n");
        for (int i = 0; i < written.size(); i++) {
            String name = written.get(i).name();
            sb.append("  ").append(name).append(":\n");
            sb.append("    image: ").append(LocalnetOptions.quoted(image)).append('\n');
            sb.append("    hostname: ").append(name).append('\n');
            sb.append("    user: ").append(LocalnetOptions.quoted(user)).append('\n');
            sb.append("    command: [\"node\", \"run\", \"--config\", \"")
                    .append(MOUNT)
                    .append('/')
                    .append(name)
                    .append("/node.yaml\"]\n");
            sb.append("    volumes:\n");
            sb.append("      - \"./:").append(MOUNT).append("\"\n");
            sb.append("    ports:\n");
            sb.append("      - \"127.0.0.1:")
                    .append(apiPort + i)
                    .append(':')
                    .append(API_PORT)
                    .append("\"\n");
            // A node writes a final checkpoint on SIGTERM; Compose's default 10 s may cut a long step short.
            sb.append("    stop_grace_period: 30s\n");
        }
        return sb.toString();
    }

    /** {@code uid:gid} of {@code dir}'s owner, or {@code 0:0} where the file system has no Unix owners. */
    private static String owner(Path dir) throws IOException {
        try {
            Object uid = Files.getAttribute(dir, "unix:uid");
            Object gid = Files.getAttribute(dir, "unix:gid");
            return uid + ":" + gid;
        } catch (UnsupportedOperationException | IllegalArgumentException e) {
            return "0:0";
        }
    }
}
