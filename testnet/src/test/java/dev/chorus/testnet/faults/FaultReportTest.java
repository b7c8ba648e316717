package dev.chorus.testnet.faults;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.chorus.learning.json.JsonReader;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The printed report (table, figures, notes, the verdict last) and its JSON form say the same. */
class FaultReportTest {

    @TempDir
    Path dir;

    private static String printed(FaultReport r) {
        StringWriter out = new StringWriter();
        r.print(new PrintWriter(out));
        return out.toString();
    }

    @Test
    void aPassedReportEndsWithItsReasonAndWritesTheSameAsJson() throws Exception {
        FaultReport r = new FaultReport("kill", List.of("kill", "node", "newest"));
        r.row(1, "node-002", 67L);
        r.row(2, "node-000", 182L);
        r.figure("mean accuracy before", 0.96491);
        r.figure("audit chains verified after the stop", "4/4");
        r.note("a note");
        r.passBecause("2 kills");
        List<String> lines = printed(r).lines().toList();
        assertThat(lines.getFirst()).isEqualTo("kill  node      newest");
        assertThat(lines.get(1)).isEqualTo("1     node-002  67");
        assertThat(lines).contains("mean accuracy before: 0.9649", "note: a note");
        assertThat(lines.getLast()).isEqualTo("faults: kill passed: 2 kills");
        assertThat(r.passed()).isTrue();

        Path file = dir.resolve("r.json");
        r.write(file);
        Map<String, Object> json = JsonReader.parseObject(Files.readString(file));
        assertThat(json.get("passed")).isEqualTo(true);
        assertThat(json.get("verdict")).isEqualTo(lines.getLast());
        assertThat(json.get("rows"))
                .isEqualTo(List.of(List.of("1", "node-002", "67"), List.of("2", "node-000", "182")));
        @SuppressWarnings("unchecked")
        Map<String, Object> figures = (Map<String, Object>) json.get("figures");
        assertThat(figures.get("mean accuracy before")).isEqualTo(0.96491);
        assertThat(figures.get("audit chains verified after the stop")).isEqualTo("4/4");
    }

    @Test
    void theFirstFailureIsTheVerdictAndTheOthersAreListedBeforeIt() {
        FaultReport r = new FaultReport("partition", List.of("node"));
        r.passBecause("never shown");
        r.fail("node-001 did not train during the split");
        r.fail("mean accuracy 0.5 stayed below 0.9");
        List<String> lines = printed(r).lines().toList();
        assertThat(r.passed()).isFalse();
        assertThat(lines.getLast()).isEqualTo("faults: partition failed: node-001 did not train during the split");
        assertThat(lines.get(lines.size() - 2)).isEqualTo("also failed: mean accuracy 0.5 stayed below 0.9");
    }

    @Test
    void aRowMustFillTheColumns() {
        FaultReport r = new FaultReport("loss", List.of("node", "v"));
        assertThatThrownBy(() -> r.row("node-000")).isInstanceOf(IllegalArgumentException.class);
    }
}
