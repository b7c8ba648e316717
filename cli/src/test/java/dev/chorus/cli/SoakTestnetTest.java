package dev.chorus.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.chorus.learning.json.JsonReader;
import dev.chorus.testnet.localnet.LocalnetManifest;
import dev.chorus.testnet.localnet.NodeProcess;
import java.awt.image.BufferedImage;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import javax.imageio.ImageIO;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * {@code testnet soak} on two real node processes for half a minute: it samples both every few seconds, writes the
 * CSV, the JSON report and the plot, and stops its nodes; a node killed during the soak fails it with the node's
 * name, and the other node is stopped too.
 */
class SoakTestnetTest {

    @TempDir
    Path dir;

    @AfterEach
    void killLeftovers() throws IOException {
        if (Files.exists(dir.resolve(LocalnetManifest.FILE))) {
            for (LocalnetManifest.Node n : LocalnetManifest.read(dir).nodes()) {
                LocalnetDownCommand.live(n).ifPresent(ProcessHandle::destroyForcibly);
            }
        }
    }

    private record Result(int code, String out, String err) {}

    private Result soak(String... extra) {
        int basePort = TestnetUpDownTest.freePortRange(4, new SplittableRandom(System.nanoTime()));
        List<String> args = new java.util.ArrayList<>(List.of(
                "--nodes",
                "2",
                "--dir",
                dir.toString(),
                "--base-port",
                Integer.toString(basePort),
                "--partition",
                "iid",
                "--every",
                "5",
                "--warmup",
                "0.1",
                "--set",
                "training.pause_ms=20",
                "--set",
                "model.threads=1"));
        args.addAll(List.of(extra));
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        CommandLine cl = new CommandLine(new LocalnetSoakCommand());
        cl.setOut(new PrintWriter(out));
        cl.setErr(new PrintWriter(err));
        int code = cl.execute(args.toArray(String[]::new));
        return new Result(code, out.toString(), err.toString());
    }

    @Test
    void samplesEveryNodeWritesTheReportAndStopsTheNodes() throws Exception {
        // A loose tolerance: half a minute after a JVM's start its memory still settles; the judging is unit-tested.
        Result r = soak("--minutes", "0.5", "--tolerance", "0.5");
        assertThat(r.code()).as(r.out() + r.err()).isZero();
        List<String> lines = r.out().lines().toList();
        assertThat(lines.getFirst()).startsWith("minute  resident MiB  threads  fds  heap after GC MiB  steps");
        assertThat(lines.getLast()).startsWith("soak: passed: every node's resident memory, threads, descriptors");
        assertThat(r.err()).contains("minute 0.0: resident ").contains("minute 0.5: resident ");
        // The soak stops its nodes itself: up's advice to stop them is not printed.
        assertThat(r.err()).contains("testnet of 2 nodes up\n").doesNotContain("stop it with");

        List<String> csv = Files.readAllLines(dir.resolve("soak.csv"));
        assertThat(csv.getFirst()).startsWith("node,minute,resident_bytes,threads,open_fds,heap_after_gc_bytes");
        assertThat(csv).hasSize(1 + 2 * 7);
        for (String row : csv.subList(1, csv.size())) {
            String[] f = row.split(",");
            assertThat(Long.parseLong(f[2])).as(row).isGreaterThan(20L << 20);
            assertThat(Long.parseLong(f[3])).as(row).isGreaterThan(5);
            assertThat(Long.parseLong(f[4])).as(row).isGreaterThan(5);
            assertThat(Long.parseLong(f[5])).as(row).isPositive();
            assertThat(Integer.parseInt(f[7])).as(row).isEqualTo(1);
        }
        Map<String, Object> json = JsonReader.parseObject(Files.readString(dir.resolve("soak.json")));
        assertThat(json).containsEntry("scenario", "soak").containsEntry("passed", true);
        @SuppressWarnings("unchecked")
        Map<String, Object> figures = (Map<String, Object>) json.get("figures");
        assertThat(figures)
                .containsEntry("full collection before each sample", true)
                .containsEntry("node JVM options", "-Xmx512m -XX:SoftRefLRUPolicyMSPerMB=0")
                .containsKey("minutes judged");
        assertThat(NodeProcess.readJvmOptions(dir.resolve("node-000")))
                .containsExactly("-Xmx512m", "-XX:SoftRefLRUPolicyMSPerMB=0");
        BufferedImage png = ImageIO.read(dir.resolve("soak.png").toFile());
        assertThat(png.getWidth()).isEqualTo(960);
        assertNodesStopped();
    }

    @Test
    void aNodeThatDiesFailsTheSoakByName() throws Exception {
        CompletableFuture<Result> running = CompletableFuture.supplyAsync(() -> soak("--minutes", "2"));
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
        while (!Files.exists(dir.resolve("soak.csv")) && System.nanoTime() < deadline) {
            Thread.sleep(200);
        }
        assertThat(dir.resolve("soak.csv")).exists();
        LocalnetManifest.Node victim = LocalnetManifest.read(dir).nodes().get(1);
        ProcessHandle.of(victim.pid()).orElseThrow().destroyForcibly();
        Result r = running.get(60, TimeUnit.SECONDS);
        assertThat(r.code()).isEqualTo(1);
        assertThat(r.out().lines().toList().getLast())
                .startsWith("soak: failed: the soak stopped early: at minute ")
                .endsWith(": node-001 (pid " + victim.pid() + ") is not running");
        assertNodesStopped();
    }

    private void assertNodesStopped() throws IOException {
        for (LocalnetManifest.Node n : LocalnetManifest.read(dir).nodes()) {
            assertThat(LocalnetDownCommand.live(n)).as(n.name()).isEmpty();
        }
    }
}
