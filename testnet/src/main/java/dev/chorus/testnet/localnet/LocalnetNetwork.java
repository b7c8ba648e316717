package dev.chorus.testnet.localnet;

import dev.chorus.node.setup.UserError;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;

/**
 * The network of a {@code testnet up --netns}: one Linux network namespace per node, all joined by veth pairs to a
 * bridge in a switch namespace, and one more veth pair from the switch to the root namespace, so that this
 * machine reaches every node. Subnet {@code 10.77.S.0/24}: node {@code i} is {@code 10.77.S.(i+1)}, the root
 * namespace {@code 10.77.S.254}. Impairments ({@code tc}) sit on each node's own veth, on its egress: a round trip
 * between two nodes crosses two of them.
 *
 * <p>Names: namespaces {@code chorusS-sw} and {@code chorusS-I}; veths {@code cSnI} (in node I) and {@code cSsI}
 * (in the switch), {@code cSh} (root) and {@code cShs} (switch), all within the kernel's 15 characters for S up
 * to 250 and I up to 63.
 */
public final class LocalnetNetwork {

    /** The node's API port and libp2p port inside its namespace: every node has its own address. */
    public static final int API_PORT = 7465;

    public static final int P2P_PORT = 4001;

    private static final long COMMAND_TIMEOUT_SECONDS = 30;

    private LocalnetNetwork() {}

    public static String nodeAddress(int subnet, int i) {
        return "10.77." + subnet + "." + (i + 1);
    }

    public static String hostAddress(int subnet) {
        return "10.77." + subnet + ".254";
    }

    static String switchNamespace(int subnet) {
        return "chorus" + subnet + "-sw";
    }

    static String nodeNamespace(int subnet, int i) {
        return "chorus" + subnet + "-" + i;
    }

    public static String hostLink(int subnet) {
        return "c" + subnet + "h";
    }

    /** The namespaces of a network of {@code nodes} nodes, the switch first. */
    public static List<String> namespaces(int subnet, int nodes) {
        List<String> out = new ArrayList<>();
        out.add(switchNamespace(subnet));
        for (int i = 0; i < nodes; i++) {
            out.add(nodeNamespace(subnet, i));
        }
        return out;
    }

    /** The command prefix that runs a program in node {@code i}'s namespace. */
    public static List<String> execPrefix(String namespace) {
        return List.of("ip", "netns", "exec", namespace);
    }

    /** Refuses, in one line, when this process cannot create namespaces or lacks {@code ip} (or {@code tc}). */
    public static void requireAvailable(boolean needTc) {
        String missing = null;
        if (!isRoot()) {
            missing = "this process does not run as root";
        } else if (!onPath("ip")) {
            missing = "no ip command on the PATH";
        } else if (needTc && !onPath("tc")) {
            missing = "no tc command on the PATH (needed by --link-delay and --link-mbit)";
        }
        if (missing != null) {
            throw new UserError("--netns needs root (to create network namespaces) and the ip command: " + missing);
        }
    }

    public static boolean isRoot() {
        try {
            for (String line : Files.readAllLines(Path.of("/proc/self/status"), StandardCharsets.UTF_8)) {
                if (line.startsWith("Uid:")) {
                    String[] f = line.substring(4).trim().split("\\s+");
                    return f.length > 1 && f[1].equals("0");
                }
            }
        } catch (IOException e) {
            return false;
        }
        return false;
    }

    private static boolean onPath(String program) {
        String path = System.getenv().getOrDefault("PATH", "/usr/sbin:/usr/bin:/sbin:/bin");
        for (String d : (path + ":/usr/sbin:/sbin").split(":")) {
            if (!d.isEmpty() && Files.isExecutable(Path.of(d, program))) {
                return true;
            }
        }
        return false;
    }

    /**
     * A subnet index in 1..250 that no namespace {@code chorusS-*} and no address or route {@code 10.77.S.x} of
     * the root namespace uses; the search starts at a hash of {@code dir}.
     */
    public static int pickSubnet(Path dir) {
        String namespaces = run(List.of("ip", "netns", "list"));
        String addresses = run(List.of("ip", "-o", "-4", "addr", "show")) + run(List.of("ip", "-4", "route", "show"));
        int start = Math.floorMod(dir.toAbsolutePath().normalize().toString().hashCode(), 250);
        for (int k = 0; k < 250; k++) {
            int s = 1 + (start + k) % 250;
            boolean used = false;
            for (String line : namespaces.lines().toList()) {
                if (line.startsWith("chorus" + s + "-")) {
                    used = true;
                    break;
                }
            }
            if (!used && !addresses.contains("10.77." + s + ".")) {
                return s;
            }
        }
        throw new UserError("--netns: every subnet 10.77.1.0/24 .. 10.77.250.0/24 is in use; delete stale"
                + " namespaces with 'ip netns del chorusS-...'");
    }

    /** How many subnets {@link #claim} tries when others are taken between its look and its claim. */
    static final int CLAIM_ATTEMPTS = 8;

    /**
     * Picks a free subnet ({@link #pickSubnet}) and creates the network on it. Creating the switch namespace is the
     * claim: {@code ip netns add} fails when the name exists, so of two commands that picked the same subnet at the
     * same moment one gets it and the other picks again.
     *
     * @param picker the subnet to try next; {@link #pickSubnet} in use, which skips subnets whose namespaces exist
     * @return the subnet
     */
    public static int claim(int nodes, int delayMs, int mbit, java.util.function.IntSupplier picker) {
        for (int attempt = 0; attempt < CLAIM_ATTEMPTS; attempt++) {
            int subnet = picker.getAsInt();
            if (create(subnet, nodes, delayMs, mbit)) {
                return subnet;
            }
        }
        throw new UserError("--netns: " + CLAIM_ATTEMPTS + " subnets were taken by others while this command claimed"
                + " them; retry");
    }

    /**
     * Creates the network; on a failure deletes what it created and throws a one-line {@link UserError} naming the
     * command and its error.
     *
     * @param delayMs added to each node's egress (0: none)
     * @param mbit each node's egress rate (0: unlimited)
     * @return false, having created nothing, when the subnet's switch namespace exists already (another command
     *     claimed the subnet)
     */
    static boolean create(int subnet, int nodes, int delayMs, int mbit) {
        List<String> created = new ArrayList<>();
        try {
            String sw = switchNamespace(subnet);
            try {
                run(List.of("ip", "netns", "add", sw));
            } catch (UserError e) {
                if (e.getMessage().contains("File exists")) {
                    return false;
                }
                throw e;
            }
            created.add(sw);
            run(List.of("ip", "-n", sw, "link", "add", "br0", "type", "bridge"));
            run(List.of("ip", "-n", sw, "link", "set", "br0", "up"));
            String host = hostLink(subnet);
            run(List.of("ip", "link", "add", host, "type", "veth", "peer", "name", host + "s", "netns", sw));
            run(List.of("ip", "-n", sw, "link", "set", host + "s", "master", "br0", "up"));
            run(List.of("ip", "addr", "add", hostAddress(subnet) + "/24", "dev", host));
            run(List.of("ip", "link", "set", host, "up"));
            for (int i = 0; i < nodes; i++) {
                String ns = nodeNamespace(subnet, i);
                run(List.of("ip", "netns", "add", ns));
                created.add(ns);
                String nodeSide = "c" + subnet + "n" + i;
                String switchSide = "c" + subnet + "s" + i;
                run(List.of(
                        "ip",
                        "link",
                        "add",
                        nodeSide,
                        "netns",
                        ns,
                        "type",
                        "veth",
                        "peer",
                        "name",
                        switchSide,
                        "netns",
                        sw));
                run(List.of("ip", "-n", sw, "link", "set", switchSide, "master", "br0", "up"));
                run(List.of("ip", "-n", ns, "link", "set", "lo", "up"));
                run(List.of("ip", "-n", ns, "addr", "add", nodeAddress(subnet, i) + "/24", "dev", nodeSide));
                run(List.of("ip", "-n", ns, "link", "set", nodeSide, "up"));
                if (delayMs > 0 || mbit > 0) {
                    run(impairment(ns, nodeSide, delayMs, mbit));
                }
            }
        } catch (UserError e) {
            delete(created);
            throw e;
        }
        return true;
    }

    /**
     * {@code netem} for a delay (with its rate when both are asked); {@code tbf} for a rate alone, which needs no
     * netem in the kernel.
     */
    private static List<String> impairment(String ns, String dev, int delayMs, int mbit) {
        List<String> cmd =
                new ArrayList<>(List.of("ip", "netns", "exec", ns, "tc", "qdisc", "add", "dev", dev, "root"));
        if (delayMs > 0) {
            cmd.addAll(List.of("netem", "delay", delayMs + "ms"));
            if (mbit > 0) {
                cmd.addAll(List.of("rate", mbit + "mbit"));
            }
            // netem's default queue of 1000 packets would drop at a high rate times a long delay.
            cmd.addAll(List.of("limit", "100000"));
        } else {
            cmd.addAll(List.of("tbf", "rate", mbit + "mbit", "burst", "64kb", "latency", "200ms"));
        }
        return cmd;
    }

    /**
     * Deletes the named namespaces that exist (their veths go with them, the root-side one too) and waits until
     * the kernel has removed {@code hostLink} when it is given; returns one line per problem.
     */
    public static List<String> delete(List<String> namespaces) {
        List<String> problems = new ArrayList<>();
        String existing;
        try {
            existing = run(List.of("ip", "netns", "list"));
        } catch (UserError e) {
            problems.add(e.getMessage());
            return problems;
        }
        List<String> present = existing.lines().map(l -> l.split("\\s+")[0]).toList();
        for (String ns : namespaces) {
            if (!present.contains(ns)) {
                continue;
            }
            try {
                run(List.of("ip", "netns", "del", ns));
            } catch (UserError e) {
                problems.add(e.getMessage());
            }
        }
        return problems;
    }

    /** Waits up to {@code seconds} until the root-side link is gone (the kernel removes it asynchronously). */
    public static boolean awaitLinkGone(String link, long seconds) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
        while (true) {
            if (!linkExists(link)) {
                return true;
            }
            if (System.nanoTime() > deadline) {
                return false;
            }
            Thread.sleep(100);
        }
    }

    public static boolean linkExists(String link) {
        return Files.exists(Path.of("/sys/class/net", link));
    }

    /**
     * Runs {@code cmd} inside {@code namespace} (e.g. {@code iptables} rules of a fault scenario); its standard
     * output, or a one-line {@link UserError} naming the command and its error.
     */
    public static String runIn(String namespace, List<String> cmd) {
        List<String> full = new ArrayList<>(execPrefix(namespace));
        full.addAll(cmd);
        return run(full);
    }

    /** Whether {@code program} is an executable on the PATH (or in /usr/sbin, /sbin). */
    public static boolean available(String program) {
        return onPath(program);
    }

    /** Runs a command; its standard output, or a one-line {@link UserError} naming it and its error. */
    static String run(List<String> cmd) {
        String line = String.join(" ", cmd);
        try {
            Process p = new ProcessBuilder(cmd).start();
            p.getOutputStream().close();
            byte[] out;
            byte[] err;
            // The commands print little: read both, then wait.
            try (var o = p.getInputStream();
                    var e = p.getErrorStream()) {
                out = o.readAllBytes();
                err = e.readAllBytes();
            }
            if (!p.waitFor(COMMAND_TIMEOUT_SECONDS, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                throw new UserError("--netns: " + line + ": no exit within " + COMMAND_TIMEOUT_SECONDS + " s");
            }
            if (p.exitValue() != 0) {
                String message = new String(err, StandardCharsets.UTF_8).strip().replace('\n', ' ');
                String hint = message.contains("qdisc kind is unknown")
                        ? " (this kernel lacks that queueing discipline, e.g. the sch_netem module)"
                        : "";
                throw new UserError(
                        String.format(Locale.ROOT, "--netns: %s: exit %d: %s%s", line, p.exitValue(), message, hint));
            }
            return new String(out, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UserError("--netns: " + line + ": " + e.getMessage());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new UserError("--netns: " + line + ": interrupted");
        }
    }
}
