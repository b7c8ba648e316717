package dev.chorus.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.chorus.learning.json.JsonReader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code bench daemon} end to end with tiny settings: two node processes started, connected, measured and stopped,
 * then one interleaved round of in-process nodes with the API off and on; every figure is written. No timing is
 * asserted.
 */
@Timeout(value = 600, unit = TimeUnit.SECONDS)
class DaemonBenchCommandTest {

    @TempDir
    Path dir;

    @Test
    void tinyRunPrintsTheTableAndWritesCsvAndJson() throws Exception {
        Path csv = dir.resolve("out/daemon.csv");
        Path json = dir.resolve("out/daemon.json");
        Path work = dir.resolve("work");
        CliRun run = CliRun.of(
                "bench",
                "daemon",
                "--rounds",
                "1",
                "--settle",
                "0",
                "--rss-samples",
                "1",
                "--repetitions",
                "1",
                "--warmup-rounds",
                "0",
                // A second of warm-up and two of window: on a loaded machine the API's first scrapes (Vert.x and
                // the JIT cold) took the whole of a 1 s window with none warmed up, and none was counted.
                "--warmup",
                "1",
                "--window",
                "2",
                "--scrape-ms",
                "200",
                "--set",
                "training.pause_ms=1",
                "--work",
                work.toString(),
                "--out",
                csv.toString(),
                "--out",
                json.toString());
        assertThat(run.exitCode()).as(run.err()).isZero();
        assertThat(run.out())
                .contains("node processes: --enable-native-access=ALL-UNNAMED")
                .contains("start to first connected peer, seen by the dialed node")
                .contains("ratio API on / off, scraped every 200 ms");

        List<String> rows = Files.readAllLines(csv);
        assertThat(rows.getFirst()).isEqualTo("name,unit,median,runs,note");
        Map<String, Object> doc = JsonReader.parseObject(Files.readString(json));
        assertThat(doc.get("bench")).isEqualTo("daemon");
        assertThat(doc.get("settings")).isEqualTo(Map.of("training.pause_ms", "1"));
        @SuppressWarnings("unchecked")
        List<Map<String, Object>> results = (List<Map<String, Object>>) doc.get("results");
        assertThat(rows).hasSize(results.size() + 1);
        assertThat(results.stream().map(r -> (String) r.get("name")))
                .contains(
                        "start to /health 200 (JVM and node start-up)",
                        "start to first connected peer, seen by the new node's API",
                        "idle node: resident memory (VmRSS, median of 1)",
                        "training steps/s, API off (api.enabled: false)",
                        "training steps/s, API on, scraped every 200 ms",
                        "API server CPU per scrape (status + metrics), every 200 ms",
                        "ratio API on / off, scraped every 200 ms");
        for (Map<String, Object> r : results) {
            if (r.get("median") == null) {
                // only the heap figure (a JDK without jcmd) and the API's CPU (no thread CPU clock) may be missing
                assertThat((String) r.get("name")).matches("^(idle node: heap in use|API server CPU).*");
                continue;
            }
            assertThat(((Number) r.get("median")).doubleValue())
                    .as((String) r.get("name"))
                    .isPositive();
        }
        // Memory: both nodes of the round; the new node sees its peer no earlier than its API answers.
        Map<String, Object> rss = results.stream()
                .filter(r -> ((String) r.get("name")).startsWith("idle node: resident memory"))
                .findFirst()
                .orElseThrow();
        assertThat((List<?>) rss.get("runs")).hasSize(2);
        Map<String, Object> scraped = results.stream()
                .filter(r -> r.get("name").equals("training steps/s, API on, scraped every 200 ms"))
                .findFirst()
                .orElseThrow();
        assertThat((String) scraped.get("note")).doesNotContain(" 0 scrapes").contains(", 0 failed");
        // Every node process was stopped: their data directories are there, their processes are gone.
        try (var homes = Files.walk(work.resolve("startup"), 2)) {
            assertThat(homes.filter(p -> p.getFileName().toString().matches("[ab]")))
                    .hasSize(2);
        }
        assertThat(ProcessHandle.current().children().filter(ProcessHandle::isAlive))
                .isEmpty();
    }

    @Test
    void keysTheBenchmarkSetsAreRefusedInOneLine() {
        CliRun run = CliRun.of("bench", "daemon", "--set", "api.enabled=false");
        assertThat(run.exitCode()).isEqualTo(2);
        assertThat(run.err()).contains("--set: api.enabled is set by the benchmark itself");
    }
}
