package dev.chorus.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.chorus.learning.json.JsonReader;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** {@code chorus demo}: the three runs on the bundled data, and its one-line errors. */
class DemoCommandTest {

    @Test
    void jsonHasTheThreeRunsWithUsefulAccuracies() {
        CliRun r = CliRun.of("demo", "--duration", "9s", "--json");

        assertThat(r.exitCode()).as(r.err()).isZero();
        String json = r.out().strip();
        assertThat(json.lines()).hasSize(1);
        Map<String, Object> summary = JsonReader.parseObject(json);
        assertThat(((Number) summary.get("seed")).longValue()).isEqualTo(42);
        @SuppressWarnings("unchecked")
        List<Map<String, Object>> runs = (List<Map<String, Object>>) summary.get("runs");
        assertThat(runs).extracting(m -> m.get("label")).containsExactly("alone", "chorus", "central");
        assertThat(runs).extracting(m -> m.get("strategy")).containsExactly("alone", "async", "central");
        assertThat(runs).extracting(m -> ((Number) m.get("nodes")).intValue()).containsExactly(4, 4, 1);
        for (Map<String, Object> run : runs) {
            double accuracy = ((Number) run.get("accuracy")).doubleValue();
            assertThat(accuracy).as(run.toString()).isGreaterThan(0.5).isLessThanOrEqualTo(1.0);
        }
    }

    @Test
    void textShowsTheNodesWhileRunningAndTheTableAtTheEnd() {
        CliRun r = CliRun.of("demo", "--duration", "3s", "--seed", "7");

        assertThat(r.exitCode()).as(r.err()).isZero();
        assertThat(r.out()).startsWith("demo: 4 nodes").contains("seed 7");
        // Without a terminal: plain lines, no cursor movement; at least one line per run, every node shown.
        assertThat(r.out()).doesNotContain("\033[");
        for (String run : List.of("alone", "chorus")) {
            assertThat(r.out().lines().filter(l -> l.startsWith(run + " ")))
                    .as(run)
                    .isNotEmpty()
                    .allMatch(l -> l.contains("node 0: ") && l.contains("node 3: ") && !l.contains(" v"));
        }
        // The central run's one model is named for what it is, not as a node.
        assertThat(r.out().lines().filter(l -> l.matches("central +t=.*")))
                .isNotEmpty()
                .allMatch(l -> l.contains("central (pooled data): ") && !l.contains("node "));
        assertThat(r.out())
                .containsPattern("(?m)^each node alone +4 +[01]\\.\\d{4} +[01]\\.\\d{4}")
                .containsPattern("(?m)^Chorus, async +4 +[01]\\.\\d{4} +[01]\\.\\d{4}")
                .containsPattern("(?m)^central \\(pooled data\\) +1 +[01]\\.\\d{4}")
                // The table's test set is the bundled data's held-out fifth, named with what one row is worth.
                .contains("on the same 114 held-out test rows: one row is 0.9 points of accuracy,")
                .contains("a reference, not a ceiling")
                .contains("the same seed gives close, not identical, figures");
    }

    @Test
    void badDurationIsOneLineAndExitCodeTwo() {
        for (String bad : List.of("soon", "0s", "-5s")) {
            CliRun r = CliRun.of("demo", "--duration", bad);

            assertThat(r.exitCode()).as(bad).isEqualTo(Main.EXIT_USAGE);
            assertThat(r.err().strip().lines()).as(r.err()).hasSize(1);
            assertThat(r.err()).startsWith("chorus: ").contains("duration").doesNotContain("Exception");
            assertThat(r.out()).isEmpty();
        }
        assertThat(CliRun.of("demo", "--duration", "1ms").err().strip())
                .isEqualTo("chorus: --duration must be at least 3s (1s for each of the 3 runs), got \"1ms\"");
    }
}
