package dev.chorus.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.chorus.learning.json.JsonReader;
import dev.chorus.privacy.audit.EgressAuditLog;
import dev.chorus.privacy.audit.EgressRecorder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code chorus audit verify|summary} on a real log directory written by {@link EgressAuditLog}. */
class AuditCommandTest {

    private static final String MODEL = "/chorus/model/1.0.0";
    private static final String GOSSIP = "/meshsub/1.1.0";

    @TempDir
    Path data;

    /** peerA: 2 bodies of 1000 and 3000 bytes; peerB: 1 error frame of 20 bytes and 1 announcement of 200. */
    private Path writeLog() {
        Path audit = data.resolve("audit");
        try (EgressAuditLog log = EgressAuditLog.open(audit, EgressAuditLog.Options.defaults())) {
            log.record("peerA", MODEL, "model-body", new byte[1000], 1);
            log.record("peerA", MODEL, "model-body", new byte[3000], 2);
            log.record("peerB", MODEL, "error-frame", new byte[20], EgressRecorder.NO_VERSION);
            log.record("peerB", GOSSIP, "announcement", new byte[200], 2);
        }
        return audit;
    }

    @Test
    void verifyReportsAnIntactChain() {
        writeLog();
        CliRun r = CliRun.of("audit", "verify", "--dir", data.toString());
        assertThat(r.exitCode()).as(r.err()).isZero();
        assertThat(r.out()).contains("records    4 (seq 0 to 3)").contains("ok: the chain is intact");
        assertThat(r.err()).isEmpty();
    }

    @Test
    void verifyNamesTheFirstBrokenRecord() throws Exception {
        Path audit = writeLog();
        Path file;
        try (var s = Files.list(audit)) {
            file = s.filter(p -> p.getFileName().toString().endsWith(".jsonl"))
                    .findFirst()
                    .orElseThrow();
        }
        List<String> lines = new ArrayList<>(Files.readAllLines(file));
        lines.set(1, lines.get(1).replace("\"bytes\":3000", "\"bytes\":300"));
        Files.write(file, lines);
        CliRun r = CliRun.of("audit", "verify", "--dir", data.toString());
        assertThat(r.exitCode()).isEqualTo(1);
        assertThat(r.err().strip())
                .isEqualTo("chorus: audit log broken at " + file.getFileName()
                        + ":2: hash does not match the record's content (edited?)");
        assertThat(r.out()).contains("records    1 (seq 0 to 0)");
    }

    @Test
    void summaryTablesBytesPerPeerProtocolAndKind() {
        writeLog();
        CliRun r = CliRun.of("audit", "summary", "--dir", data.toString());
        assertThat(r.exitCode()).as(r.err()).isZero();
        assertThat(r.out()).startsWith("4 payloads, 4220 bytes sent");
        assertThat(r.out()).containsPattern("peerA\\s+2\\s+4000\n");
        assertThat(r.out()).containsPattern("peerB\\s+2\\s+220\n");
        assertThat(r.out()).containsPattern("/chorus/model/1.0.0\\s+3\\s+4020\n");
        assertThat(r.out()).containsPattern("/meshsub/1.1.0\\s+1\\s+200\n");
        assertThat(r.out()).containsPattern("error-frame\\s+1\\s+20\n");
    }

    @Test
    @SuppressWarnings("unchecked")
    void summaryAsJsonAndSince() {
        writeLog();
        CliRun r = CliRun.of("audit", "summary", "--dir", data.toString(), "--json", "--since", "1d");
        assertThat(r.exitCode()).as(r.err()).isZero();
        Map<String, Object> j = JsonReader.parseObject(r.out());
        assertThat(((Number) j.get("payloads")).longValue()).isEqualTo(4);
        assertThat(((Number) j.get("bytes")).longValue()).isEqualTo(4220);
        Map<String, Object> peerA = (Map<String, Object>) ((Map<String, Object>) j.get("byPeer")).get("peerA");
        assertThat(((Number) peerA.get("bytes")).longValue()).isEqualTo(4000);
        Map<String, Object> gossip = (Map<String, Object>) ((Map<String, Object>) j.get("byProtocol")).get(GOSSIP);
        assertThat(((Number) gossip.get("payloads")).longValue()).isEqualTo(1);

        String tomorrow = Instant.now().plusSeconds(86_400).toString();
        r = CliRun.of("audit", "summary", "--dir", data.toString(), "--since", tomorrow);
        assertThat(r.exitCode()).as(r.err()).isZero();
        assertThat(r.out()).startsWith("0 payloads, 0 bytes sent since ");
    }

    @Test
    void badInputIsOneLineAndExitCode2() {
        for (String[] args : List.of(
                new String[] {
                    "audit", "verify", "--dir", data.resolve("missing").toString()
                },
                new String[] {"audit", "summary", "--dir", data.toString()},
                new String[] {"audit", "summary", "--dir", data.toString(), "--since", "yesterday"},
                new String[] {"audit", "verify"})) {
            if (args.length > 3 && args[1].equals("summary") && args.length == 6) {
                writeLog();
            }
            CliRun r = CliRun.of(args);
            assertThat(r.exitCode()).as(String.join(" ", args)).isEqualTo(2);
            assertThat(r.err().strip())
                    .as(String.join(" ", args))
                    .startsWith("chorus: ")
                    .doesNotContain("\n");
        }
        assertThat(CliRun.of("audit", "verify", "--dir", data.resolve("missing").toString())
                        .err())
                .contains("--dir: no such directory");
        assertThat(CliRun.of("audit", "summary", "--dir", data.toString(), "--since", "yesterday")
                        .err())
                .contains("--since: expected a UTC date");
    }
}
