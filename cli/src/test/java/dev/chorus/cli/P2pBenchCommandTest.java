package dev.chorus.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.chorus.cli.bench.JsLibP2pPair;
import dev.chorus.cli.bench.Measurement;
import dev.chorus.learning.json.JsonReader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** {@code bench p2p} end to end with tiny sizes: every figure is produced and written; no timing is asserted. */
@Timeout(value = 300, unit = TimeUnit.SECONDS)
class P2pBenchCommandTest {
    static final Path JS_DIR = Path.of("../gossip/src/test/js").toAbsolutePath().normalize();

    @TempDir
    Path dir;

    @Test
    void smallRunPrintsTheTableAndWritesCsvAndJson() throws Exception {
        boolean js = JsLibP2pPair.unavailableReason(JS_DIR) == null;
        Path csv = dir.resolve("p2p.csv");
        CliRun run = CliRun.of(
                "bench",
                "p2p",
                "--bytes",
                "1MiB",
                "--runs",
                "1",
                "--warmup",
                "0",
                "--streams",
                "20",
                "--connections",
                "3",
                "--exchanges",
                "50",
                "--messages",
                "20",
                "--js-dir",
                JS_DIR.toString(),
                js ? "--json" : "--no-js",
                "--out",
                csv.toString());
        assertThat(run.exitCode()).as(run.err()).isZero();
        List<String> rows = Files.readAllLines(csv);
        assertThat(rows.getFirst()).isEqualTo("name,unit,median,runs,note");
        assertThat(String.join("\n", rows))
                .contains("\"raw TCP (Java NIO, no libp2p)\",MiB/s,")
                .contains("libp2p Java -> Java (TCP + Noise + yamux),MiB/s,")
                .contains("ChaCha20-Poly1305 encrypt, 64 KiB messages (JDK)\",MiB/s,")
                .contains("ChaCha20-Poly1305 encrypt, 64 KiB messages (OpenSSL)\",MiB/s,")
                .contains("streams opened and closed, one at a time\",streams/s,")
                .contains("idle host: heap per connection,KiB,")
                .contains("\"CPU per MiB, raw TCP (both ends)\",ms/MiB,")
                .contains("\"CPU per MiB, libp2p Java -> Java (both ends)\",ms/MiB,")
                .contains("\"4 fragments of 10 KB, a stream each, proposed lazily: client I/O thread CPU\",us,")
                .contains("\"4 fragments of 10 KB, one batch, negotiated first: server I/O thread CPU\",us,")
                .contains("\"gossipsub Java: round trip p50, message answered whole\",us,")
                .contains("gossipsub Java: messages per second,msg/s,");
        if (js) {
            Map<String, Object> doc = JsonReader.parseObject(run.out().strip());
            @SuppressWarnings("unchecked")
            List<Map<String, Object>> results = (List<Map<String, Object>>) doc.get("results");
            Map<String, Object> jsRow = results.stream()
                    .filter(r -> ((String) r.get("name")).startsWith("libp2p js -> js"))
                    .findFirst()
                    .orElseThrow();
            assertThat(((Number) jsRow.get("median")).doubleValue()).isPositive();
            assertThat(results.stream().filter(r -> r.get("name").equals("ratio Java / js-libp2p (medians)")))
                    .singleElement()
                    .satisfies(r ->
                            assertThat(((Number) r.get("median")).doubleValue()).isPositive());
            for (String name : List.of(
                    "gossipsub js-libp2p (gossipsub 14.1.2): round trip p50, message answered whole",
                    "gossipsub js-libp2p (gossipsub 14.1.2): messages per second",
                    "ratio gossipsub round trip p50, Java / js (medians)",
                    "ratio gossipsub messages per second, Java / js (medians)",
                    "libp2p Java -> js (TCP + Noise + yamux)",
                    "libp2p js -> Java (TCP + Noise + yamux)",
                    "ratio Java -> js / js -> js (medians)",
                    "ratio js -> Java / js -> js (medians)")) {
                assertThat(results.stream().filter(r -> r.get("name").equals(name)))
                        .as(name)
                        .singleElement()
                        .satisfies(r -> assertThat(((Number) r.get("median")).doubleValue())
                                .isPositive());
            }
        } else {
            assertThat(run.out()).contains("libp2p js -> js").contains("skipped: --no-js");
        }
        for (String row : rows.subList(1, rows.size())) {
            String median = row.replaceAll("^(\"[^\"]*\"|[^,]*),[^,]*,([^,]*),.*$", "$2");
            if (row.startsWith("\"CPU per MiB")) {
                // 1 MiB may take less CPU than the OS counter's step, so zero is a valid reading.
                assertThat(Double.parseDouble(median)).as(row).isNotNegative();
            } else if (!row.matches(
                    "^\"?(libp2p js|libp2p Java -> js|ratio (Java|js) (/|->) js|ChaCha20-Poly1305 .*\\(OpenSSL\\)"
                            + "|gossipsub js-libp2p|ratio gossipsub).*")) {
                assertThat(Double.parseDouble(median)).as(row).isPositive();
            }
        }
    }

    @Test
    void anUnknownCryptoModeIsRefusedNamingTheOption() throws Exception {
        CliRun run = CliRun.of("bench", "p2p", "--crypto", "fast", "--no-js");
        assertThat(run.exitCode()).isNotZero();
        assertThat(run.err()).contains("--crypto: unknown crypto mode 'fast'; expected auto, jdk or openssl");
    }

    @Test
    void eachOutFileGetsTheFormatOfItsName() throws Exception {
        Path json = dir.resolve("p2p.json");
        Path csv = dir.resolve("p2p.csv");
        CliRun run = CliRun.of(
                "bench",
                "p2p",
                "--bytes",
                "256KiB",
                "--runs",
                "2",
                "--warmup",
                "0",
                "--streams",
                "10",
                "--connections",
                "1",
                "--exchanges",
                "50",
                "--no-js",
                "--crypto",
                "jdk",
                "--out",
                json.toString(),
                "--out",
                csv.toString());
        assertThat(run.exitCode()).as(run.err()).isZero();
        assertThat(run.out().strip().lines().toList().getLast())
                .matches("java/js=n/a java/raw=\\d+\\.\\d\\d cipher=jdk");
        Map<String, Object> doc = JsonReader.parseObject(Files.readString(json));
        assertThat(doc.get("bench")).isEqualTo("p2p");
        assertThat(doc.get("cipher")).isEqualTo("jdk");
        assertThat(doc.get("bytes")).isEqualTo(262144L);
        @SuppressWarnings("unchecked")
        List<Map<String, Object>> results = (List<Map<String, Object>>) doc.get("results");
        Map<String, Object> java = results.stream()
                .filter(r -> ((String) r.get("name")).startsWith("libp2p Java"))
                .findFirst()
                .orElseThrow();
        assertThat((List<?>) java.get("runs")).hasSize(2);
        assertThat(Files.readAllLines(csv)).hasSize(results.size() + 1);
    }

    @Test
    void badOptionsAreOneLine() {
        CliRun run = CliRun.of("bench", "p2p", "--stream-concurrency", "64");
        assertThat(run.exitCode()).isEqualTo(2);
        assertThat(run.err()).contains("--stream-concurrency must be between 1 and 32");
        CliRun big = CliRun.of("bench", "p2p", "--sections", "pubsub", "--message-size", "2MiB");
        assertThat(big.exitCode()).isEqualTo(2);
        assertThat(big.err())
                .contains("--message-size must be between 9 bytes and 512 KiB")
                .contains("2MiB");
        CliRun none = CliRun.of("bench", "p2p", "--sections", "pubsub", "--messages", "0");
        assertThat(none.exitCode()).isEqualTo(2);
        assertThat(none.err()).contains("--messages must be positive, got 0");
    }

    @Test
    void medianOfOddAndEvenCounts() {
        assertThat(new Measurement("m", "x", List.of(5.0, 1.0, 3.0), "").median())
                .isEqualTo(3.0);
        assertThat(new Measurement("m", "x", List.of(4.0, 1.0, 3.0, 2.0), "").median())
                .isEqualTo(2.5);
        assertThat(Measurement.skipped("m", "x", "why").median()).isNaN();
    }
}
