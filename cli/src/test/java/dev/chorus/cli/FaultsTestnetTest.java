package dev.chorus.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.chorus.learning.json.JsonReader;
import dev.chorus.testnet.localnet.LocalnetManifest;
import dev.chorus.testnet.localnet.LocalnetNetwork;
import dev.chorus.testsupport.TestLog;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code testnet faults}: the short versions of the {@code kill}, {@code partition}, {@code loss} and {@code diskfull}
 * scenarios on 4 real node processes in network namespaces each pass their invariant, print the table and the verdict line, write
 * the JSON report, and leave no process and no namespace behind. Runs only as root where network namespaces can be
 * created and {@code iptables} is installed.
 */
@Timeout(value = 240, unit = TimeUnit.SECONDS)
class FaultsTestnetTest {

    private static final Pattern NAMESPACES = Pattern.compile("network namespaces (chorus[0-9]+)-sw");

    @TempDir
    Path dir;

    @BeforeEach
    void requireNamespacesAndIptables() throws Exception {
        assumeTrue(LocalnetNetwork.isRoot(), "not root: testnet faults needs root to create network namespaces");
        assumeTrue(LocalnetNetwork.available("ip"), "no ip command: testnet faults creates network namespaces with it");
        assumeTrue(LocalnetNetwork.available("iptables"), "no iptables command: testnet faults cuts links with it");
        String probe = "chorus-probe-" + ProcessHandle.current().pid();
        int add = exec(List.of("ip", "netns", "add", probe));
        if (add == 0) {
            assertThat(exec(List.of("ip", "netns", "del", probe))).isZero();
        }
        assumeTrue(add == 0, "cannot create a network namespace here (ip netns add failed)");
    }

    /** Whatever a failed run left: its node processes killed, its namespaces deleted, its tmpfs unmounted. */
    @AfterEach
    void removeLeftovers() throws Exception {
        List<String> mounts = Files.readAllLines(Path.of("/proc/self/mounts")).stream()
                .map(l -> l.split(" ")[1])
                .filter(m -> m.startsWith(dir.toString()))
                .toList();
        for (String m : mounts.reversed()) {
            exec(List.of("umount", "-l", m));
        }
        try (var dirs = Files.list(dir)) {
            for (Path d : dirs.toList()) {
                if (Files.exists(d.resolve(LocalnetManifest.FILE))) {
                    LocalnetManifest m = LocalnetManifest.read(d);
                    for (LocalnetManifest.Node n : m.nodes()) {
                        LocalnetDownCommand.live(n).ifPresent(ProcessHandle::destroyForcibly);
                    }
                    LocalnetNetwork.delete(m.namespaces());
                }
            }
        }
    }

    @Test
    void killRestartsFromTheNewestCheckpointWithIntactAuditChains() throws Exception {
        Path net = dir.resolve("kill");
        CliRun run = faults(net, "kill", "--kills", "4", "--interval", "0");
        Map<String, Object> report = assertPassed(run, net, "kill");
        assertThat(rows(report)).hasSize(4);
        for (List<?> row : rows(report)) {
            // columns: kill, node, ckpt files, broken, newest ckpt, restored, version, audit
            assertThat(row.get(3)).as("broken checkpoints in %s", row).isEqualTo("0");
            assertThat(Long.parseLong((String) row.get(4)))
                    .as("newest checkpoint in %s", row)
                    .isPositive();
            assertThat(row.get(5)).as("restored the newest checkpoint: %s", row).isEqualTo(row.get(4));
            assertThat(Long.parseLong((String) row.get(6))).isGreaterThanOrEqualTo(Long.parseLong((String) row.get(4)));
            assertThat((String) row.get(7)).endsWith(" ok");
        }
        assertThat(figures(report).get("audit chains verified after the stop")).isEqualTo("4/4");
    }

    @Test
    void bothHalvesTrainDuringAPartitionAndReconnectAfterIt() throws Exception {
        Path net = dir.resolve("partition");
        CliRun run = faults(net, "partition", "--cut", "reset", "--duration", "10");
        Map<String, Object> report = assertPassed(run, net, "partition");
        // A reset cut breaks every connection across: each node lost a peer and its dialer brought it back.
        assertThat(figures(report).get("nodes that lost a peer during the split"))
                .isEqualTo(4L);
        for (List<?> row : rows(report)) {
            // columns: node, half, v before, v at heal, fewest peers, merged across, after heal
            assertThat(Long.parseLong((String) row.get(3))).isGreaterThan(Long.parseLong((String) row.get(2)));
            assertThat(row.get(4)).as("fewest peers during the split: %s", row).isEqualTo("1");
            assertThat(row.get(5))
                    .as("updates merged across the split: %s", row)
                    .isEqualTo("0");
            assertThat((String) row.get(6)).endsWith(" 3 peers");
            assertThat((String) row.get(6))
                    .as("merged from the other half after the heal: %s", row)
                    .doesNotStartWith("+0 ");
        }
        assertThat(figures(report).get("nodes that merged from the other half after the heal"))
                .isEqualTo("4/4");
    }

    @Test
    void trainingAndExchangesGoOnUnderPacketLoss() throws Exception {
        Path net = dir.resolve("loss");
        CliRun run = faults(net, "loss", "--duration", "10");
        Map<String, Object> report = assertPassed(run, net, "loss");
        assertThat(rows(report)).hasSize(4);
        // Node 0 was 200 ms away: by netem where the kernel has it, else by its own reads; its config is restored.
        assertThat(String.valueOf(report.get("notes"))).containsPattern("node-000: 200 ms (delay on its egress|added)");
        assertThat(java.nio.file.Files.readString(net.resolve("node-000/node.yaml")))
                .doesNotContainPattern("(?m)^\\s*added_delay_ms:");
    }

    /**
     * A member's identity floods node 0, within the protocol and then beyond it: the node and the honest nodes go on,
     * the well-formed pulls got models of node 0's architecture, and the flood reached every surface and was held back
     * on each (refused API requests, model pulls refused or failed once the node banned it).
     */
    @Test
    void aFloodingMemberNeitherStopsItsTargetNorTheOthers() throws Exception {
        Path net = dir.resolve("flood");
        CliRun run = faults(net, "flood", "--duration", "20");
        Map<String, Object> report = assertPassed(run, net, "flood");
        List<List<?>> rows = rows(report);
        assertThat(rows.stream().map(r -> (Object) r.get(1)).toList())
                .containsExactly("honest", "honest", "flooded", "flooder (its identity)");
        Map<String, Object> f = figures(report);
        assertThat(((Number) f.get("flooder API requests refused (401, 429)")).longValue())
                .isPositive();
        assertThat(((Number) f.get("flooder API connections opened and held")).longValue())
                .isGreaterThan(64);
        assertThat(((Number) f.get("flooder announcements published")).longValue())
                .isGreaterThan(100);
        assertThat(((Number) f.get("flooder model pulls served")).longValue()
                        + ((Number) f.get("flooder model pulls refused or failed")).longValue())
                .isGreaterThan(50);
        // Well-formed: pulls of node 0's architecture were served, and their models pushed back.
        assertThat(((Number) f.get("flooder well-formed pulls served")).longValue())
                .isPositive();
        assertThat(((Number) f.get("flooder well-formed pushes acknowledged")).longValue()
                        + ((Number) f.get("flooder well-formed pushes refused or failed")).longValue())
                .isPositive();
        assertThat(f)
                .containsKeys(
                        "node 0 API answers to this driver during the well-formed flood",
                        "node 0 API answers to this driver during the malformed flood",
                        "node 0 peers banned after the well-formed flood");
    }

    @Test
    void aNodeWithAFullDiskTrainsOnKeepsItsCheckpointsAndRecovers() throws Exception {
        assumeTrue(LocalnetNetwork.available("mount"), "no mount command: the diskfull scenario mounts a tmpfs");
        Path net = dir.resolve("diskfull");
        CliRun run = faults(net, "diskfull", "--duration", "5");
        Map<String, Object> report = assertPassed(run, net, "diskfull");
        // rows: filled, full, freed; columns: phase, model version, checkpoints, newest, failed writes logged
        List<List<?>> rows = rows(report);
        assertThat(rows.stream().map(r -> (Object) r.getFirst()).toList()).containsExactly("filled", "full", "freed");
        assertThat(Long.parseLong((String) rows.get(1).get(1)))
                .isGreaterThan(Long.parseLong((String) rows.get(0).get(1)));
        assertThat(rows.get(1).get(3))
                .as("no checkpoint while full")
                .isEqualTo(rows.get(0).get(3));
        assertThat(Long.parseLong((String) rows.get(2).get(3)))
                .isGreaterThan(Long.parseLong((String) rows.get(1).get(3)));
        assertThat(Long.parseLong((String) rows.get(1).get(4)))
                .isGreaterThan(Long.parseLong((String) rows.get(0).get(4)));
        String mounts = Files.readString(Path.of("/proc/self/mounts"));
        assertThat(mounts).as("no tmpfs left mounted").doesNotContain(net.toString());
    }

    /** Nodes that never checkpoint give the kill scenario nothing to judge: it fails, says why, and still cleans up. */
    @Test
    void aScenarioThatCannotBeJudgedFailsWithExitCode1AndLeavesNothingBehind() throws Exception {
        Path net = dir.resolve("never");
        CliRun run = CliRun.of(
                "testnet",
                "faults",
                "--scenario",
                "kill",
                "--nodes",
                "2",
                "--kills",
                "1",
                "--dir",
                net.toString(),
                "--settle",
                "30",
                "--set",
                "model.backend=reference",
                "--set",
                "model.threads=1",
                "--set",
                "training.pause_ms=50",
                "--set",
                "checkpoint.every_steps=1000000",
                "--set",
                "checkpoint.every_seconds=100000");
        assertThat(run.exitCode()).as("%s%n%s", run.out(), run.err()).isEqualTo(1);
        assertThat(run.out().strip().lines().toList().getLast())
                .isEqualTo("faults: kill failed: warm-up: node-000 wrote no checkpoint within 30 s"
                        + " (checkpoint.every_steps, checkpoint.every_seconds)");
        Map<String, Object> report = JsonReader.parseObject(Files.readString(net.resolve("faults-kill.json")));
        assertThat(report.get("passed")).isEqualTo(false);
        assertThat(rows(report)).isEmpty();
        assertLeftNothing(run, net);
    }

    @Test
    void anUnknownScenarioIsRefusedInOneLine() {
        CliRun run = CliRun.of(
                "testnet",
                "faults",
                "--scenario",
                "meteor",
                "--dir",
                dir.resolve("x").toString());
        assertThat(run.exitCode()).isEqualTo(Main.EXIT_USAGE);
        assertThat(run.err().strip())
                .isEqualTo(
                        "chorus: --scenario: unknown scenario \"meteor\"; expected one of [kill, partition, loss, diskfull, flood]");
        assertThat(dir.resolve("x")).doesNotExist();
    }

    private static CliRun faults(Path net, String scenario, String... more) {
        List<String> args = new ArrayList<>(List.of(
                "testnet",
                "faults",
                "--scenario",
                scenario,
                "--nodes",
                "4",
                "--dir",
                net.toString(),
                "--settle",
                "90",
                "--set",
                "model.backend=reference",
                "--set",
                "model.threads=1",
                "--set",
                "training.pause_ms=50"));
        args.addAll(List.of(more));
        long start = System.nanoTime();
        CliRun run = CliRun.of(args.toArray(String[]::new));
        TestLog.figures(
                "testnet faults --scenario %s: %.1f s%n%s", scenario, (System.nanoTime() - start) / 1e9, run.out());
        return run;
    }

    /** The run passed, said so last, wrote its report, and left neither a node process nor a namespace. */
    private static Map<String, Object> assertPassed(CliRun run, Path net, String scenario) throws Exception {
        assertThat(run.exitCode()).as("%s%n%s", run.out(), run.err()).isZero();
        List<String> lines = run.out().strip().lines().toList();
        assertThat(lines.getLast()).startsWith("faults: " + scenario + " passed: ");
        Map<String, Object> report =
                JsonReader.parseObject(Files.readString(net.resolve("faults-" + scenario + ".json")));
        assertThat(report.get("passed")).isEqualTo(true);
        assertThat(report.get("verdict")).isEqualTo(lines.getLast());
        assertLeftNothing(run, net);
        return report;
    }

    private static void assertLeftNothing(CliRun run, Path net) throws Exception {
        for (LocalnetManifest.Node n : LocalnetManifest.read(net).nodes()) {
            assertThat(LocalnetDownCommand.live(n))
                    .as("%s after the run", n.name())
                    .isEmpty();
        }
        Matcher m = NAMESPACES.matcher(run.err());
        assertThat(m.find()).as(run.err()).isTrue();
        String left = output(List.of("ip", "netns", "list"));
        assertThat(left.lines().map(l -> l.split("\\s+")[0]).filter(ns -> ns.startsWith(m.group(1) + "-")))
                .isEmpty();
    }

    @SuppressWarnings("unchecked")
    private static List<List<?>> rows(Map<String, Object> report) {
        return (List<List<?>>) report.get("rows");
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> figures(Map<String, Object> report) {
        return (Map<String, Object>) report.get("figures");
    }

    private static int exec(List<String> cmd) throws IOException, InterruptedException {
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        p.getOutputStream().close();
        p.getInputStream().readAllBytes();
        return p.waitFor(60, TimeUnit.SECONDS) ? p.exitValue() : -1;
    }

    private static String output(List<String> cmd) throws IOException, InterruptedException {
        Process p = new ProcessBuilder(cmd)
                .redirectError(ProcessBuilder.Redirect.DISCARD)
                .start();
        p.getOutputStream().close();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        p.waitFor(60, TimeUnit.SECONDS);
        return out;
    }
}
