package dev.chorus.privacy.audit;

import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.junit.FuzzTest;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.LocalDate;
import org.junit.jupiter.api.io.TempDir;

/**
 * Coverage-guided fuzz test of {@code chorus audit verify} ({@link EgressAuditLog#verify}): whatever one log file
 * holds, verification returns a result (a broken chain is a result, reported as {@code FILE:LINE: reason}) and never
 * throws; a result that says the chain is intact counts only records that read back one by one through
 * {@link EgressAuditLog#read}. Regression inputs: {@code AuditVerifyFuzzTestInputs/}.
 */
class AuditVerifyFuzzTest {

    @TempDir
    static Path dir;

    @FuzzTest
    void verify(byte[] file) throws IOException {
        Path log = dir.resolve(EgressAuditLog.fileName(LocalDate.of(2026, 1, 1), 0));
        Files.write(log, file);
        AuditVerification v = EgressAuditLog.verify(dir);
        assertThat(v.files()).isEqualTo(1);
        assertThat(v.records()).isNotNegative();
        if (v.ok()) {
            long[] read = {0};
            EgressAuditLog.read(dir, r -> read[0]++);
            assertThat(read[0]).isEqualTo(v.records());
        } else {
            assertThat(v.problem()).startsWith(log.getFileName().toString() + ":");
        }
    }
}
