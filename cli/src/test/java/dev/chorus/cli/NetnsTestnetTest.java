package dev.chorus.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.chorus.learning.json.JsonReader;
import dev.chorus.testnet.localnet.LocalnetManifest;
import dev.chorus.testnet.localnet.LocalnetNetwork;
import dev.chorus.testnet.localnet.NodeProcess;
import dev.chorus.testsupport.TestLog;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.http.HttpClient;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code testnet up --netns}: two nodes, each in its own network namespace, reach each other over a bridge; with
 * {@code --link-delay 25} the round trip between them, measured by {@code chorus p2p ping} run inside node 0's
 * namespace, is at least twice 25 ms, and with {@code --link-mbit 50} a transfer between their namespaces runs at
 * most at 50 Mbit/s; {@code testnet down} deletes every namespace and the root namespace's veth. On a kernel without
 * netem, {@code up} refuses the delay in one line and leaves nothing behind, and the rest runs without the delay.
 * Runs only as root where network namespaces can be created.
 */
@Timeout(value = 300, unit = TimeUnit.SECONDS)
class NetnsTestnetTest {

    @TempDir
    Path dir;

    private final HttpClient http =
            HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    @BeforeEach
    void requireNamespaces() throws Exception {
        assumeTrue(LocalnetNetwork.isRoot(), "not root: testnet up --netns needs root to create network namespaces");
        String probe = "chorus-probe-" + ProcessHandle.current().pid();
        Result add = exec(List.of("ip", "netns", "add", probe));
        if (add.code() == 0) {
            Result del = exec(List.of("ip", "netns", "del", probe));
            assertThat(del.code()).as("ip netns del %s: %s", probe, del.err()).isZero();
        }
        assumeTrue(add.code() == 0, "cannot create a network namespace here: ip netns add: " + add.err());
    }

    @AfterEach
    void removeLeftovers() throws Exception {
        http.close();
        if (Files.exists(dir.resolve(LocalnetManifest.FILE))) {
            LocalnetManifest m = LocalnetManifest.read(dir);
            for (LocalnetManifest.Node n : m.nodes()) {
                LocalnetDownCommand.live(n).ifPresent(ProcessHandle::destroyForcibly);
            }
            LocalnetNetwork.delete(m.namespaces());
        }
    }

    private record Result(int code, String out, String err) {}

    /** Whether this kernel has netem: a probe namespace's loopback gets a netem qdisc. */
    private static boolean netemAvailable() throws Exception {
        String probe = "chorus-probe-" + ProcessHandle.current().pid();
        exec(List.of("ip", "netns", "add", probe));
        try {
            return exec(List.of(
                                    "ip", "netns", "exec", probe, "tc", "qdisc", "add", "dev", "lo", "root", "netem",
                                    "delay", "1ms"))
                            .code()
                    == 0;
        } finally {
            exec(List.of("ip", "netns", "del", probe));
        }
    }

    @Test
    void nodesInTheirOwnNamespacesSeeTheLinkDelayAndDownDeletesTheNetwork() throws Exception {
        boolean netem = netemAvailable();
        TestLog.figures("netem in this kernel: " + netem);
        List<String> args = new ArrayList<>(List.of(
                "testnet",
                "up",
                "--nodes",
                "2",
                "--netns",
                "--link-delay",
                "25",
                "--link-mbit",
                "50",
                "--dir",
                dir.toString(),
                "--seed",
                "7",
                "--set",
                "model.backend=reference",
                "--set",
                "model.threads=1",
                "--set",
                "training.pause_ms=50"));
        String before = exec(List.of("ip", "netns", "list")).out();
        Result up = cli(args.toArray(String[]::new));
        if (!netem) {
            // Without netem the delay cannot be set: up says so in one line and leaves no namespace behind.
            assertThat(up.code()).as(up.err()).isEqualTo(Main.EXIT_USAGE);
            assertThat(up.err().strip().lines()).as(up.err()).hasSize(1);
            assertThat(up.err()).contains("tc qdisc add dev c").contains("netem delay 25ms");
            assertThat(exec(List.of("ip", "netns", "list")).out()).isEqualTo(before);
            assertThat(dir.resolve(LocalnetManifest.FILE)).doesNotExist();
            // The delay needs netem; the rest does not: up again with the rate limit only (tbf).
            args.subList(args.indexOf("--link-delay"), args.indexOf("--link-delay") + 2)
                    .clear();
            up = cli(args.toArray(String[]::new));
        }
        LocalnetManifest manifest = null;
        try {
            assertThat(up.code()).as("up: %s", up.err()).isZero();
            manifest = LocalnetManifest.read(dir);
            List<LocalnetManifest.Node> nodes = manifest.nodes();
            assertThat(nodes).hasSize(2);
            String hostLink = manifest.hostLink();
            assertThat(hostLink).matches("c[0-9]+h");
            int subnet = Integer.parseInt(hostLink.substring(1, hostLink.length() - 1));
            assertThat(manifest.namespaces())
                    .containsExactly("chorus" + subnet + "-sw", "chorus" + subnet + "-0", "chorus" + subnet + "-1");
            assertThat(exec(List.of("ip", "netns", "list")).out()).contains("chorus" + subnet + "-1");
            for (int i = 0; i < 2; i++) {
                LocalnetManifest.Node n = nodes.get(i);
                String address = "10.77." + subnet + "." + (i + 1);
                assertThat(n.api()).isEqualTo("http://" + address + ":7465/");
                // Off loopback the API requires the node's token: the printed dashboard URL carries it.
                Path tokenFile = n.dir().resolve("api.token");
                assertThat(Files.getPosixFilePermissions(tokenFile))
                        .isEqualTo(java.nio.file.attribute.PosixFilePermissions.fromString("rw-------"));
                java.util.regex.Matcher printed = java.util.regex.Pattern.compile(n.name() + " "
                                + java.util.regex.Pattern.quote(n.api()) + "#token=([0-9a-f]{64}) pid " + n.pid())
                        .matcher(up.out());
                assertThat(printed.find())
                        .as("%s's URL in: %s", n.name(), up.out())
                        .isTrue();
                assertThat(printed.group(1))
                        .isEqualTo(Files.readString(tokenFile).strip());
                assertThat(up.err()).contains("chorus status --api " + n.api() + " --token-file " + tokenFile);
                assertThat(statusCode(n.api() + "api/status", printed.group(1))).isEqualTo(200);
                assertThat(statusCode(n.api() + "api/status", null)).isEqualTo(401);
                assertThat(n.listen()).isEqualTo("/ip4/" + address + "/tcp/4001/p2p/" + n.peerId());
                // ip netns exec execs: the recorded pid is the node's JVM itself.
                assertThat(LocalnetDownCommand.live(n)).as("%s alive", n.name()).isPresent();
                assertThat(ProcessHandle.of(n.pid()).flatMap(h -> h.info().command()))
                        .hasValueSatisfying(c -> assertThat(c).endsWith("java"));
            }
            long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
            List<Map<String, Object>> last = new ArrayList<>();
            boolean connected = false;
            while (!connected && System.nanoTime() < deadline) {
                last.clear();
                for (LocalnetManifest.Node n : nodes) {
                    last.add(status(n));
                }
                connected = last.stream().allMatch(s -> (Long) s.get("peerCount") == 1);
                if (!connected) {
                    Thread.sleep(250);
                }
            }
            assertThat(connected)
                    .as("each node has the other as peer: %s", last)
                    .isTrue();
            for (int i = 0; i < 2; i++) {
                assertThat(last.get(i).get("listenAddrs").toString()).contains("/ip4/10.77." + subnet + "." + (i + 1));
            }

            // The link between the namespaces, measured between two command-line hosts (the nodes admit members
            // only, and refuse the command line's host as soon as it fails their certificate check, which a ping
            // may or may not outrun): round trips, then 16 MiB at most 50 Mbit/s (5.96 MiB/s).
            double[] link = measureLink(subnet);
            TestLog.figures("p2p ping between the namespaces: median %.2f ms%n", link[0]);
            if (netem) {
                assertThat(link[0]).as("two egress delays of 25 ms").isBetween(45.0, 2000.0);
            } else {
                assertThat(link[0]).isBetween(0.0, 2000.0);
            }
            TestLog.figures("16 MiB from node 0's namespace to node 1's at %.2f MiB/s%n", link[1]);
            assertThat(link[1]).as("50 Mbit/s is 5.96 MiB/s").isBetween(0.1, 6.6);

            Result down = cli("testnet", "down", "--dir", dir.toString(), "--timeout", "30");
            assertThat(down.code()).as("down: %s %s", down.out(), down.err()).isZero();
            for (LocalnetManifest.Node n : nodes) {
                assertThat(down.out()).contains(n.name() + " pid " + n.pid() + ": stopped");
                assertThat(ProcessHandle.of(n.pid()).map(ProcessHandle::isAlive).orElse(false))
                        .isFalse();
            }
            String left = exec(List.of("ip", "netns", "list")).out();
            for (String ns : manifest.namespaces()) {
                assertThat(left.lines().map(l -> l.split("\\s+")[0])).doesNotContain(ns);
            }
            assertThat(LocalnetNetwork.linkExists(hostLink))
                    .as("%s after down", hostLink)
                    .isFalse();
            assertThat(exec(List.of("ip", "-o", "link", "show")).out()).doesNotContain(hostLink + "@");
            // Forgotten once deleted: a later down leaves alone a new testnet that reuses the names.
            assertThat(LocalnetManifest.read(dir).namespaces()).isEmpty();
            Result again = cli("testnet", "down", "--dir", dir.toString());
            assertThat(again.code()).as(again.out()).isZero();
        } finally {
            stopAndDelete(manifest);
        }
    }

    /**
     * Runs {@code p2p listen} in node 1's namespace, then {@code p2p ping} and {@code p2p send} to it in node 0's:
     * the median round trip in milliseconds and the sender's MiB/s.
     */
    private static double[] measureLink(int subnet) throws Exception {
        List<String> listen = cliCommand("chorus" + subnet + "-1");
        listen.addAll(
                List.of("p2p", "listen", "--listen", "/ip4/10.77." + subnet + ".2/tcp/4002", "--duration", "120"));
        Process sink = new ProcessBuilder(listen)
                .redirectError(ProcessBuilder.Redirect.DISCARD)
                .start();
        try {
            sink.getOutputStream().close();
            var lines = sink.inputReader(StandardCharsets.UTF_8);
            String first = lines.readLine();
            assertThat(first).as("p2p listen's first line").isNotNull();
            String peer = (String) JsonReader.parseObject(first).get("peerId");
            String addr = "/ip4/10.77." + subnet + ".2/tcp/4002/p2p/" + peer;
            List<String> ping = cliCommand("chorus" + subnet + "-0");
            ping.addAll(List.of("p2p", "ping", addr, "--count", "5", "--json"));
            Result pinged = exec(ping);
            assertThat(pinged.code()).as("p2p ping: %s", pinged.err()).isZero();
            double median =
                    ((Number) JsonReader.parseObject(pinged.out().strip()).get("medianMs")).doubleValue();
            List<String> send = cliCommand("chorus" + subnet + "-0");
            send.addAll(List.of("p2p", "send", addr, "--protocol", "/chorus/sink/1.0.0", "--bytes", "16MiB", "--json"));
            Result sent = exec(send);
            assertThat(sent.code()).as("p2p send: %s", sent.err()).isZero();
            Map<String, Object> m = JsonReader.parseObject(sent.out().strip());
            assertThat(m.get("acknowledged")).isEqualTo(16L * 1024 * 1024);
            return new double[] {median, ((Number) m.get("mibPerSecond")).doubleValue()};
        } finally {
            sink.destroyForcibly();
            sink.waitFor(30, TimeUnit.SECONDS);
        }
    }

    /** {@code ip netns exec NS java ... Main}: the CLI in a namespace, on this test's class path. */
    private static List<String> cliCommand(String namespace) {
        List<String> cmd = new ArrayList<>(List.of(
                "ip",
                "netns",
                "exec",
                namespace,
                Path.of(System.getProperty("java.home"), "bin", "java").toString()));
        cmd.addAll(NodeProcess.JVM_FLAGS);
        cmd.addAll(List.of("-cp", System.getProperty("java.class.path"), Main.class.getName()));
        return cmd;
    }

    @Test
    void linkOptionsNeedNetnsAndBasePortIsRefusedWithIt() {
        Result delay =
                cli("testnet", "up", "--nodes", "2", "--dir", dir.resolve("a").toString(), "--link-delay", "5");
        assertThat(delay.code()).isEqualTo(Main.EXIT_USAGE);
        assertThat(delay.err().strip())
                .isEqualTo("chorus: --link-delay: only with --netns, which gives each node a link of its own");
        Result port = cli(
                "testnet",
                "up",
                "--nodes",
                "2",
                "--dir",
                dir.resolve("b").toString(),
                "--netns",
                "--base-port",
                "5000");
        assertThat(port.code()).isEqualTo(Main.EXIT_USAGE);
        assertThat(port.err().strip().lines()).hasSize(1);
        assertThat(port.err()).contains("--base-port: not with --netns");
        assertThat(dir.resolve("a")).doesNotExist();
        assertThat(dir.resolve("b")).doesNotExist();
    }

    /** A failure after the network exists (here: in partitioning) deletes the namespaces and the directory. */
    @Test
    void aFailureAfterTheNetworkIsCreatedDeletesIt() throws Exception {
        String before = exec(List.of("ip", "netns", "list")).out();
        Path net = dir.resolve("net");
        Result up =
                cli("testnet", "up", "--nodes", "2", "--netns", "--dir", net.toString(), "--partition", "column:nope");
        assertThat(up.code()).as(up.err()).isEqualTo(Main.EXIT_USAGE);
        assertThat(up.err()).contains("network namespaces chorus");
        assertThat(up.err().strip().lines().toList().getLast())
                .startsWith("chorus: wdbc.csv (bundled): unknown partition column \"nope\"");
        assertThat(exec(List.of("ip", "netns", "list")).out()).isEqualTo(before);
        assertThat(net).doesNotExist();
    }

    /**
     * Two commands that pick the same subnet at once: creating the switch namespace is the claim, so the one that
     * finds it taken picks again and leaves the other's namespace alone (before, it failed on {@code ip netns add}).
     */
    @Test
    void aSubnetTakenBetweenThePickAndTheClaimIsSkipped() throws Exception {
        int taken = LocalnetNetwork.pickSubnet(dir);
        String takenSwitch = "chorus" + taken + "-sw";
        assertThat(exec(List.of("ip", "netns", "add", takenSwitch)).code()).isZero();
        int subnet = 0;
        try {
            int[] calls = {0};
            subnet = LocalnetNetwork.claim(1, 0, 0, () -> calls[0]++ == 0 ? taken : LocalnetNetwork.pickSubnet(dir));
            assertThat(calls[0]).isEqualTo(2);
            assertThat(subnet).isNotEqualTo(taken);
            String list = exec(List.of("ip", "netns", "list")).out();
            assertThat(list)
                    .contains(takenSwitch)
                    .contains("chorus" + subnet + "-sw")
                    .contains("chorus" + subnet + "-0");
            assertThat(exec(List.of("ip", "netns", "exec", takenSwitch, "ip", "-o", "link"))
                            .out())
                    .as("the other command's namespace is left as it was")
                    .doesNotContain("br0");
        } finally {
            if (subnet != 0) {
                assertThat(LocalnetNetwork.delete(LocalnetNetwork.namespaces(subnet, 1)))
                        .isEmpty();
            }
            exec(List.of("ip", "netns", "del", takenSwitch));
        }
    }

    /** The HTTP status of a GET of {@code url}, with {@code token} as bearer token unless null. */
    /**
     * With {@code --discovery mdns} no node has a bootstrap list: mDNS on the namespaces' bridge is how they find
     * each other, and every node ends up connected to both others.
     */
    @Test
    void nodesWithoutBootstrapListsFindEachOtherByMdns() throws Exception {
        Result up = cli(
                "testnet",
                "up",
                "--nodes",
                "3",
                "--netns",
                "--discovery",
                "mdns",
                "--dir",
                dir.toString(),
                "--partition",
                "iid",
                "--set",
                "model.backend=reference",
                "--set",
                "model.threads=1",
                "--set",
                "training.pause_ms=50");
        LocalnetManifest manifest = null;
        try {
            assertThat(up.code()).as("up: %s", up.err()).isZero();
            manifest = LocalnetManifest.read(dir);
            for (LocalnetManifest.Node n : manifest.nodes()) {
                String yaml = Files.readString(n.dir().resolve("node.yaml"));
                assertThat(yaml).contains("bootstrap: []").contains("mdns: on");
            }
            long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
            List<Long> peers = List.of();
            while (System.nanoTime() < deadline) {
                List<Long> now = new ArrayList<>();
                for (LocalnetManifest.Node n : manifest.nodes()) {
                    now.add(((Number) status(n).get("peerCount")).longValue());
                }
                peers = now;
                if (now.stream().allMatch(p -> p == 2)) {
                    break;
                }
                Thread.sleep(500);
            }
            assertThat(peers).as("each node's peers").containsExactly(2L, 2L, 2L);
            for (LocalnetManifest.Node n : manifest.nodes()) {
                assertThat(Files.readString(n.dir().resolve("logs").resolve("chorus.log")))
                        .contains("mDNS on c")
                        .contains("mDNS: found peer ");
            }
        } finally {
            stopAndDelete(manifest);
        }
    }

    /**
     * Four daemons with the {@code secure} strategy, each in its own namespace, 10 ms of delay on every link where the
     * kernel has netem: their group rounds complete as members and as relays, across real processes and real links,
     * and no node refuses a frame as malformed.
     */
    @Test
    void secureAggregationRoundsCompleteBetweenNodesInTheirOwnNamespaces() throws Exception {
        List<String> args = new ArrayList<>(List.of(
                "testnet",
                "up",
                "--nodes",
                "4",
                "--netns",
                "--dir",
                dir.toString(),
                "--partition",
                "iid",
                "--set",
                "averaging.strategy=secure",
                "--set",
                "model.backend=reference",
                "--set",
                "model.threads=1",
                "--set",
                "training.pause_ms=20"));
        if (netemAvailable()) {
            args.addAll(List.of("--link-delay", "10"));
        }
        Result up = cli(args.toArray(String[]::new));
        LocalnetManifest manifest = null;
        try {
            assertThat(up.code()).as("up: %s", up.err()).isZero();
            manifest = LocalnetManifest.read(dir);
            long deadline = System.nanoTime() + Duration.ofSeconds(120).toNanos();
            List<Map<String, Object>> secure = new ArrayList<>();
            boolean done = false;
            while (!done && System.nanoTime() < deadline) {
                secure.clear();
                for (LocalnetManifest.Node n : manifest.nodes()) {
                    Map<String, Object> status = status(n);
                    assertThat(status).as("%s's status", n.name()).containsKey("secureAggregation");
                    @SuppressWarnings("unchecked")
                    Map<String, Object> counters = (Map<String, Object>) status.get("secureAggregation");
                    secure.add(counters);
                }
                done = secure.stream().allMatch(c -> count(c, "roundsCompleted") >= 3)
                        && secure.stream()
                                        .mapToLong(c -> count(c, "relayedCompleted"))
                                        .sum()
                                >= 3;
                if (!done) {
                    Thread.sleep(500);
                }
            }
            TestLog.figures("secure rounds in namespaces: %s%n", secure);
            assertThat(done)
                    .as("every node completed 3 rounds as a member, 3 relayed in all: %s", secure)
                    .isTrue();
            for (Map<String, Object> c : secure) {
                // Frames that crossed a round's end, or offers sent while two nodes' rosters differed for a moment,
                // happen between honest nodes; a frame that does not decode does not.
                @SuppressWarnings("unchecked")
                Map<String, Object> refused = (Map<String, Object>) c.get("framesRefusedBy");
                assertThat(count(refused, "malformed"))
                        .as("malformed frames: %s", c)
                        .isZero();
                assertThat(count(c, "bytesSentAsMember")).isPositive();
            }
        } finally {
            stopAndDelete(manifest);
        }
    }

    private static long count(Map<String, Object> counters, String name) {
        return ((Number) counters.get(name)).longValue();
    }

    @Test
    void mdnsDiscoveryNeedsNamespaces() {
        Result up = cli("testnet", "up", "--nodes", "2", "--discovery", "mdns", "--dir", dir.toString());
        assertThat(up.code()).isEqualTo(Main.EXIT_USAGE);
        assertThat(up.err().strip())
                .isEqualTo("chorus: --discovery mdns: only with --netns; loopback carries no multicast");
        Result bad = cli("testnet", "up", "--nodes", "2", "--discovery", "dht", "--dir", dir.toString());
        assertThat(bad.err().strip()).isEqualTo("chorus: --discovery: expected bootstrap or mdns, got \"dht\"");
    }

    /** Stops the testnet's nodes and deletes its namespaces, from {@code manifest} or the one on disk. */
    private void stopAndDelete(LocalnetManifest manifest) throws Exception {
        if (manifest == null && Files.exists(dir.resolve(LocalnetManifest.FILE))) {
            manifest = LocalnetManifest.read(dir);
        }
        if (manifest != null) {
            LocalnetDownCommand.stop(manifest.nodes(), Duration.ofSeconds(30), new PrintWriter(new StringWriter()));
            LocalnetNetwork.delete(manifest.namespaces());
        }
    }

    private int statusCode(String url, String token) throws Exception {
        var request =
                java.net.http.HttpRequest.newBuilder(java.net.URI.create(url)).timeout(Duration.ofSeconds(5));
        if (token != null) {
            request.header("Authorization", "Bearer " + token);
        }
        return http.send(request.build(), java.net.http.HttpResponse.BodyHandlers.discarding())
                .statusCode();
    }

    private Map<String, Object> status(LocalnetManifest.Node n) throws Exception {
        return NodeApi.status(http, n);
    }

    private static Result cli(String... args) {
        CliRun r = CliRun.of(args);
        return new Result(r.exitCode(), r.out(), r.err());
    }

    /** Runs a command to its end (at most 120 s). */
    private static Result exec(List<String> cmd) throws IOException, InterruptedException {
        Process p = new ProcessBuilder(cmd).start();
        p.getOutputStream().close();
        StringBuffer err = new StringBuffer();
        Thread pump = Thread.ofPlatform().daemon().start(() -> {
            try (var e = p.getErrorStream()) {
                err.append(new String(e.readAllBytes(), StandardCharsets.UTF_8));
            } catch (IOException ignored) {
                // the process ended
            }
        });
        String out;
        try (var o = p.getInputStream()) {
            out = new String(o.readAllBytes(), StandardCharsets.UTF_8);
        }
        try {
            if (!p.waitFor(120, TimeUnit.SECONDS)) {
                throw new AssertionError(String.join(" ", cmd) + ": still running after 120 s");
            }
            pump.join(5000);
            return new Result(p.exitValue(), out, err.toString().strip());
        } finally {
            p.destroyForcibly();
        }
    }
}
