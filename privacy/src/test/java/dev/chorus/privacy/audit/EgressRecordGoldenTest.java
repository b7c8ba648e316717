package dev.chorus.privacy.audit;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Instant;
import java.time.InstantSource;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The audit log's line format and hash chain against a stored file: logs written by earlier versions must still
 * verify, so the format may not change by a single byte. The file holds a payload with a version, one with awkward
 * strings and no version, a crash-recovery record with a note, and a payload after it.
 */
class EgressRecordGoldenTest {

    private static final String GOLDEN = "golden-egress.jsonl";
    private static final String FILE = "egress-20261130-000000000000.jsonl";

    @TempDir
    Path dir;

    private static byte[] golden() throws IOException {
        try (InputStream in = EgressRecordGoldenTest.class.getResourceAsStream(GOLDEN)) {
            assertThat(in).as(GOLDEN).isNotNull();
            return in.readAllBytes();
        }
    }

    @Test
    void theLogWritesTheGoldenFileByteForByte() throws IOException {
        EgressAuditLog.Options o = EgressAuditLog.Options.defaults()
                .withClock(InstantSource.fixed(Instant.parse("2026-11-30T10:00:00.123Z")))
                .withWarnings(w -> {});
        try (EgressAuditLog log = EgressAuditLog.open(dir, o)) {
            log.record("12D3KooWpeerA", "/chorus/model/1.0.0", "model-body", bytes("hello"), 7);
            log.record("pe\"er\\\n\u0001é", "/meshsub/1.1.0", "error-frame", new byte[0], EgressRecorder.NO_VERSION);
        }
        Path f = dir.resolve(FILE);
        Files.write(f, bytes("{\"seq\":2,\"ti"), StandardOpenOption.APPEND); // a line torn by a crash
        try (EgressAuditLog log = EgressAuditLog.open(dir, o)) {
            log.record("12D3KooWpeerB", "/chorus/model/1.0.0", "fragment", new byte[] {1, 2, 3}, 8);
        }
        try (Stream<Path> s = Files.list(dir)) {
            assertThat(s.map(p -> p.getFileName().toString()).filter(n -> n.startsWith("egress-")))
                    .containsExactly(FILE);
        }
        assertThat(new String(Files.readAllBytes(f), StandardCharsets.UTF_8))
                .isEqualTo(new String(golden(), StandardCharsets.UTF_8));
    }

    @Test
    void everyGoldenLineParsesAndIsWrittenBackUnchanged() throws IOException {
        List<String> lines =
                new String(golden(), StandardCharsets.UTF_8).lines().toList();
        assertThat(lines).hasSize(4);
        for (String line : lines) {
            assertThat(EgressRecord.parse(line).line()).isEqualTo(line + "\n");
        }
        EgressRecord recovered = EgressRecord.parse(lines.get(2));
        assertThat(recovered.kind()).isEqualTo(EgressRecord.KIND_RECOVERED);
        assertThat(recovered.note()).startsWith("cut 12 bytes");
        assertThat(EgressRecord.parse(lines.get(1)).peer()).isEqualTo("pe\"er\\\n\u0001é");
    }

    @Test
    void theGoldenFileVerifies() throws IOException {
        Files.write(dir.resolve(FILE), golden());
        AuditVerification v = EgressAuditLog.verify(dir);
        assertThat(v.ok()).as(v.problem()).isTrue();
        assertThat(v.records()).isEqualTo(4);
        assertThat(v.head()).isEqualTo("6d5d18b45b88cb511de94f41d2d8cd78f8f93166bc9cff1ca8d68c5cacf83ede");
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}
