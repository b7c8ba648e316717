package dev.chorus.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.chorus.learning.json.JsonReader;
import dev.chorus.node.NodeTestDirs;
import dev.chorus.testnet.localnet.LocalnetManifest;
import dev.chorus.testnet.localnet.NodeProcess;
import dev.chorus.testsupport.TestLog;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * {@code testnet up} starts three node processes, members of three institutions, that admit one another and average;
 * a client without a certificate pulls nothing from them, one with a node's key and member certificate pulls the
 * model; {@code testnet down} stops them, leaving none of their pids alive, and says so again when run a second
 * time.
 */
class TestnetUpDownTest {

    @TempDir
    Path dir;

    private final HttpClient http = HttpClient.newHttpClient();

    @AfterEach
    void killLeftovers() throws IOException {
        http.close();
        if (Files.exists(dir.resolve(LocalnetManifest.FILE))) {
            for (LocalnetManifest.Node n : LocalnetManifest.read(dir).nodes()) {
                LocalnetDownCommand.live(n).ifPresent(ProcessHandle::destroyForcibly);
            }
        }
    }

    private record Result(int code, String out, String err) {}

    private static Result run(Object command, String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        CommandLine cl = new CommandLine(command);
        cl.setOut(new PrintWriter(out));
        cl.setErr(new PrintWriter(err));
        int code = cl.execute(args);
        return new Result(code, out.toString(), err.toString());
    }

    @Test
    void upStartsConnectedAveragingNodesAndDownStopsEveryProcess() throws Exception {
        long seed = 20250131L;
        TestLog.figures("seed " + seed);
        int basePort = freePortRange(6, new SplittableRandom(System.nanoTime()));
        long t0 = System.nanoTime();
        Result up = run(
                new LocalnetUpCommand(),
                "--nodes",
                "3",
                "--dir",
                dir.toString(),
                "--seed",
                Long.toString(seed),
                "--base-port",
                Integer.toString(basePort),
                "--set",
                "model.backend=reference",
                "--set",
                "model.threads=1",
                "--set",
                "training.pause_ms=20",
                "--set",
                "training.eval_every_steps=10",
                "--set",
                "averaging.every_steps=5",
                "--jvm-option=-Xmx256m",
                "--jvm-option",
                "-XX:+UseSerialGC");
        assertThat(up.code()).as("up: %s", up.err()).isZero();
        TestLog.figures("up in %.1f s%n", (System.nanoTime() - t0) / 1e9);
        Path consortium = dir.resolve("consortium").toAbsolutePath();
        assertThat(up.err())
                .contains("membership enforced: 3 institutions, one per node; ")
                .contains(consortium.toString());
        List<String> roster = new ArrayList<>();
        for (int k = 1; k <= 3; k++) {
            assertThat(consortium.resolve("institution-" + k).resolve("ca.key")).exists();
            assertThat(consortium.resolve("institution-" + k).resolve("passphrase"))
                    .exists();
            roster.add(consortium
                    .resolve("roster")
                    .resolve("institution-" + k + ".crt")
                    .toString());
        }
        List<LocalnetManifest.Node> nodes = LocalnetManifest.read(dir).nodes();
        assertThat(nodes).hasSize(3);
        for (LocalnetManifest.Node n : nodes) {
            assertThat(up.out()).contains(n.api());
            assertThat(LocalnetDownCommand.live(n)).as("%s alive", n.name()).isPresent();
            assertThat(n.dir().resolve("node.yaml")).exists();
            assertThat(n.dir().resolve("identity.key")).exists();
            assertThat(n.dir().resolve("member.crt")).exists();
            assertThat(n.dir().resolve("crl")).isEmptyDirectory();
            assertThat(n.dir().resolve("logs").resolve(NodeProcess.STDERR)).exists();
            assertThat(NodeProcess.readJvmOptions(n.dir())).containsExactly("-Xmx256m", "-XX:+UseSerialGC");
            String cmdline = Files.readString(Path.of("/proc", Long.toString(n.pid()), "cmdline"));
            assertThat(List.of(cmdline.split("\0")))
                    .as("the node's command line")
                    .contains("-Xmx256m", "-XX:+UseSerialGC");
        }

        Map<String, Long> firstVersion = new HashMap<>();
        long deadline = System.nanoTime() + Duration.ofSeconds(45).toNanos();
        boolean converged = false;
        while (!converged && System.nanoTime() < deadline) {
            converged = true;
            for (LocalnetManifest.Node n : nodes) {
                Map<String, Object> s = status(n);
                long version = (Long) s.get("modelVersion");
                firstVersion.putIfAbsent(n.name(), version);
                Map<?, ?> averaging = (Map<?, ?>) s.get("averaging");
                converged &= version > firstVersion.get(n.name())
                        && (Long) s.get("peerCount") == 2
                        && (Long) averaging.get("merged") > 0
                        && s.get("accuracy") instanceof Number;
            }
            if (!converged) {
                Thread.sleep(250);
            }
        }
        assertThat(converged)
                .as(
                        "every node advanced, has 2 peers, merged a peer model and reported accuracy; last: %s",
                        nodes.stream()
                                .map(n -> {
                                    try {
                                        return status(n).toString();
                                    } catch (Exception e) {
                                        return e.toString();
                                    }
                                })
                                .toList())
                .isTrue();

        TestLog.figures("exchanging after %.1f s%n", (System.nanoTime() - t0) / 1e9);

        // Each node enforces membership and admitted the other two, each a member of its own institution.
        for (int i = 0; i < nodes.size(); i++) {
            String body = get(nodes.get(i).api() + "api/members");
            assertThat(body).contains("\"membership\":{\"enforced\":true");
            Map<String, String> organisations = new HashMap<>();
            for (Object peer :
                    (List<?>) ((Map<?, ?>) JsonReader.parseObject(body).get("membership")).get("peers")) {
                Map<?, ?> p = (Map<?, ?>) peer;
                organisations.put((String) p.get("peerId"), (String) p.get("organisation"));
            }
            Map<String, String> expected = new HashMap<>();
            for (int j = 0; j < nodes.size(); j++) {
                if (j != i) {
                    expected.put(nodes.get(j).peerId(), "Institution " + (j + 1));
                }
            }
            assertThat(organisations)
                    .as("%s admitted: %s", nodes.get(i).name(), body)
                    .isEqualTo(expected);
        }
        // A client without a certificate is refused. An operator of institution 2 makes a new key, issues it a
        // member certificate with the testnet's saved CA and passphrase, and pulls the model with it. (Not with a
        // running node's own key: a third connection under one peer ID is over the per-peer limit.)
        String target = nodes.getFirst().listen();
        CliRun anonymous = CliRun.of("model", "pull", target, "--json");
        assertThat(anonymous.exitCode()).as(anonymous.out() + anonymous.err()).isEqualTo(1);
        assertThat(anonymous.out()).contains("\"event\":\"refused\"").contains("\"reason\":\"no-certificate\"");
        Path ca = dir.resolve("consortium").resolve("institution-2");
        Path clientKey = dir.resolve("client.key");
        Path clientCert = dir.resolve("client.crt");
        CliRun keygen = CliRun.of("keygen", "--out", clientKey.toString());
        assertThat(keygen.exitCode()).as(keygen.out() + keygen.err()).isZero();
        CliRun issue = CliRun.of(
                "consortium",
                "issue",
                "--ca",
                ca.toString(),
                "--peer-id",
                dev.chorus.gossip.identity.KeyFile.load(clientKey).peerId().toBase58(),
                "--role",
                "member",
                "--days",
                "1",
                "--out",
                clientCert.toString(),
                "--passphrase-file",
                ca.resolve("passphrase").toString());
        assertThat(issue.exitCode()).as(issue.out() + issue.err()).isZero();
        List<String> pull = new ArrayList<>(List.of(
                "model",
                "pull",
                target,
                "--key",
                clientKey.toString(),
                "--certificate",
                clientCert.toString(),
                "--roster"));
        pull.addAll(roster);
        pull.add("--json");
        CliRun member = CliRun.of(pull.toArray(String[]::new));
        assertThat(member.exitCode()).as(member.out() + member.err()).isZero();
        Map<String, Object> pulled = JsonReader.parseObject(member.out().strip());
        assertThat(pulled)
                .containsEntry("event", "pulled")
                .containsEntry("peer", nodes.getFirst().peerId());
        assertThat((Long) pulled.get("parameters")).isPositive();
        Result down = run(new LocalnetDownCommand(), "--dir", dir.toString(), "--timeout", "30");
        assertThat(down.code()).as("down: %s %s", down.out(), down.err()).isZero();
        for (LocalnetManifest.Node n : nodes) {
            assertThat(ProcessHandle.of(n.pid()).map(ProcessHandle::isAlive).orElse(false))
                    .as("%s pid %d alive after down", n.name(), n.pid())
                    .isFalse();
            assertThat(down.out()).contains(n.name() + " pid " + n.pid() + ": stopped");
            // SIGTERM let the node finish its step and write a final checkpoint.
            assertThat(Files.readString(n.dir().resolve("logs").resolve(NodeProcess.STDOUT)))
                    .contains("stopped at model version");
        }
        Result again = run(new LocalnetDownCommand(), "--dir", dir.toString());
        assertThat(again.code()).isZero();
        assertThat(again.out()).contains("node-000 pid " + nodes.getFirst().pid() + ": not running");
        TestLog.figures("up, exchange and down in %.1f s%n", (System.nanoTime() - t0) / 1e9);
    }

    @Test
    void refusesAnOccupiedPortAndAMissingManifest() throws Exception {
        try (ServerSocket taken = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            Result up = run(
                    new LocalnetUpCommand(),
                    "--nodes",
                    "2",
                    "--dir",
                    dir.resolve("net").toString(),
                    "--base-port",
                    Integer.toString(taken.getLocalPort()));
            assertThat(up.code()).isNotZero();
            assertThat(dir.resolve("net").resolve(LocalnetManifest.FILE)).doesNotExist();
        }
        Result down =
                run(new LocalnetDownCommand(), "--dir", dir.resolve("nothing").toString());
        assertThat(down.code()).isNotZero();
    }

    @Test
    void badInputIsRefusedBeforeAnythingIsCreated() throws Exception {
        int basePort = freePortRange(4, new SplittableRandom(System.nanoTime()));
        Path csv = dir.resolve("data.csv");
        Files.writeString(csv, "a,b,y\n1,2,0\n3,4,1\n5,6,0\n7,8,1\n");
        Path noLabel = dir.resolve("no-label");
        Path badMethod = dir.resolve("bad-method");
        Path badColumn = dir.resolve("bad-column");
        String[][] cases = {
            {"--dir", noLabel.toString(), "--data", csv.toString()},
            {"--dir", badMethod.toString(), "--partition", "gauss:1"},
            {"--dir", badColumn.toString(), "--partition", "column:nope"},
            {"--dir", dir.resolve("bad-jvm").toString(), "--jvm-option=-jar"},
            {"--dir", dir.resolve("spaced-jvm").toString(), "--jvm-option=-Xmx1g -Xms1g"}
        };
        String[] expected = {
            "chorus: --label is required with --data",
            "chorus: --partition: unknown partition method \"gauss:1\"",
            "chorus: wdbc.csv (bundled): unknown partition column \"nope\"",
            "chorus: --jvm-option: '-jar' would replace how the node is launched",
            "chorus: --jvm-option: '-Xmx1g -Xms1g' is not a JVM option (one option per value"
        };
        for (int i = 0; i < cases.length; i++) {
            List<String> args = new java.util.ArrayList<>(
                    List.of("testnet", "up", "--nodes", "2", "--base-port", Integer.toString(basePort)));
            args.addAll(List.of(cases[i]));
            Result up = cli(args.toArray(String[]::new));
            assertThat(up.code()).as(up.err()).isEqualTo(Main.EXIT_USAGE);
            assertThat(up.err().strip().lines()).as(up.err()).hasSize(1);
            assertThat(up.err()).contains(expected[i]).doesNotContain("Exception");
            assertThat(Path.of(cases[i][1])).as("left behind by %s", up.err()).doesNotExist();
        }
        // A directory that existed stays, and so does what it held; what up wrote is removed.
        Path existing = Files.createDirectories(dir.resolve("existing"));
        Path kept = Files.writeString(existing.resolve("notes.txt"), "kept");
        Result up = cli(
                "testnet",
                "up",
                "--nodes",
                "2",
                "--base-port",
                Integer.toString(basePort),
                "--dir",
                existing.toString(),
                "--partition",
                "column:nope");
        assertThat(up.code()).isEqualTo(Main.EXIT_USAGE);
        try (var files = Files.list(existing)) {
            assertThat(files).containsExactly(kept);
        }

        Path file = Files.writeString(dir.resolve("a-file"), "x");
        up = cli("testnet", "up", "--nodes", "2", "--base-port", Integer.toString(basePort), "--dir", file.toString());
        assertThat(up.code()).isEqualTo(Main.EXIT_USAGE);
        assertThat(up.err().strip())
                .isEqualTo("chorus: --dir " + file + ": a file of that name exists; name a directory");
    }

    /**
     * The nodes would drop rows with a missing value and be left one class: up says so before it starts any, in
     * its own options (it has no --missing; the nodes impute with --set data.missing=impute), and leaves nothing.
     */
    @Test
    void aDropThatLeavesOneClassIsRefusedBeforeAnyNodeStarts() {
        int basePort = freePortRange(4, new SplittableRandom(System.nanoTime()));
        Path csv = NodeTestDirs.missingForOneClass(dir.resolve("one-class.csv"));
        Path net = dir.resolve("net");
        Result up = cli(
                "testnet",
                "up",
                "--nodes",
                "2",
                "--base-port",
                Integer.toString(basePort),
                "--dir",
                net.toString(),
                "--data",
                csv.toString(),
                "--label",
                "y");
        assertThat(up.code()).as(up.err()).isEqualTo(Main.EXIT_USAGE);
        assertThat(up.out()).isEmpty();
        assertThat(up.err().strip().lines()).as(up.err()).hasSize(1);
        assertThat(up.err().strip())
                .isEqualTo("chorus: only one class (\"1\") in label column y of " + csv
                        + " after dropping 20 rows with a missing value (column chapter: 20);"
                        + " try --drop chapter or --set data.missing=impute");
        assertThat(net).doesNotExist();
    }

    private static Result cli(String... args) {
        CliRun r = CliRun.of(args);
        return new Result(r.exitCode(), r.out(), r.err());
    }

    private String get(String url) throws Exception {
        return http.send(
                        HttpRequest.newBuilder(URI.create(url))
                                .timeout(Duration.ofSeconds(5))
                                .build(),
                        HttpResponse.BodyHandlers.ofString())
                .body();
    }

    private Map<String, Object> status(LocalnetManifest.Node n) throws Exception {
        return NodeApi.status(http, n);
    }

    /** A base port P such that P .. P+count-1 are free on loopback now. */
    static int freePortRange(int count, SplittableRandom random) {
        for (int attempt = 0; attempt < 50; attempt++) {
            int base = 20000 + 2 * random.nextInt(10000);
            boolean free = true;
            for (int p = base; p < base + count && free; p++) {
                try (ServerSocket s = new ServerSocket(p, 1, InetAddress.getLoopbackAddress())) {
                    s.setReuseAddress(true);
                } catch (IOException e) {
                    free = false;
                }
            }
            if (free) {
                return base;
            }
        }
        throw new AssertionError("no free port range");
    }
}
