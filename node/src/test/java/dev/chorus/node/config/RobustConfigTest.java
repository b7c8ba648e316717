package dev.chorus.node.config;

import static org.assertj.core.api.Assertions.assertThat;

import dev.chorus.gossip.identity.PrivateKey;
import dev.chorus.node.NodeTestDirs;
import dev.chorus.node.averaging.RobustRule;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** {@code averaging.robust} and {@code averaging.round_deadline_seconds}: parsed once, checked at start, one line. */
class RobustConfigTest {

    @TempDir
    Path dir;

    /** The base config, then an averaging section with the strategy at line 24, its size, and the rule at 27. */
    private Path write(String strategy, int n, String rule) throws IOException {
        NodeTestDirs.create(dir, "");
        String peers = IntStream.range(0, n)
                .mapToObj(i -> PrivateKey.generate().peerId().toBase58())
                .collect(Collectors.joining(", "));
        String yaml = NodeTestDirs.baseYaml()
                + "averaging:\n"
                + "  strategy: " + strategy + "\n"
                + "  participants: [" + peers + "]\n"
                + "  buffer_size: " + n + "\n"
                + "  robust: \"" + rule + "\"\n"
                + "  aggregator: " + PrivateKey.generate().peerId().toBase58() + "\n";
        Path file = dir.resolve("node.yaml");
        Files.writeString(file, yaml);
        return file;
    }

    private NodeConfig load(String strategy, int n, String rule) throws IOException {
        return ConfigLoader.load(write(strategy, n, rule), List.of());
    }

    private String error(String strategy, int n, String rule) throws IOException {
        Path file = write(strategy, n, rule);
        try {
            ConfigLoader.load(file, List.of());
        } catch (ConfigException e) {
            assertThat(e.getMessage()).doesNotContain("\n").startsWith(file + ":27: averaging.robust: ");
            return e.getMessage().substring((file + ":27: averaging.robust: ").length());
        }
        throw new AssertionError("no error for " + strategy + " n=" + n + " " + rule);
    }

    @Test
    void noRuleAndNoDeadlineByDefault() throws IOException {
        NodeTestDirs.create(dir, "");
        Path file = dir.resolve("node.yaml");
        Files.writeString(file, NodeTestDirs.baseYaml());
        NodeConfig config = ConfigLoader.load(file, List.of());
        assertThat(config.averaging().robustness().rule()).isEqualTo(RobustRule.NONE);
        assertThat(config.averaging().robustness().hasDeadline()).isFalse();
    }

    @ParameterizedTest
    @CsvSource({
        "sync, 3, median, median",
        "sync, 5, ' Trimmed:2 ', trimmed:2",
        "sync, 2, clip:10, clip:10.0",
        "sync, 3, centered-clip:0.5, centered-clip:0.5",
        "sync, 5, krum:1, krum:1",
        "sync, 6, 'multikrum:1,5', 'multikrum:1,5'",
        "fedbuff, 7, krum:2, krum:2",
        "fedbuff, 4, 'multikrum:0,4', 'multikrum:0,4'",
        "async, 3, none, none",
        "none, 1, krum:3, krum:3"
    })
    void aValidRuleIsParsedOnce(String strategy, int n, String rule, String canonical) throws IOException {
        assertThat(load(strategy, n, rule).averaging().robustness().rule().text())
                .isEqualTo(canonical);
    }

    @ParameterizedTest
    @CsvSource(
            delimiter = '|',
            value = {
                "krum | krum:F needs a whole number >= 0: \"krum\"",
                "krum:x | krum:F needs a whole number >= 0: \"krum:x\"",
                "median:3 | median takes no argument: \"median:3\"",
                "trimmed:0 | trimmed:B needs a whole number >= 1: \"trimmed:0\"",
                "clip:-1 | clip:TAU needs a finite number TAU > 0: \"clip:-1\"",
                "centered-clip:NaN | centered-clip:TAU needs a finite number TAU > 0",
                "multikrum:1 | multikrum:F,M takes the faulty count F and the selected count M",
                "bulyan:1 | unknown robust rule: \"bulyan:1\""
            })
    void aMalformedRuleNamesTheValidForms(String rule, String problem) throws IOException {
        assertThat(error("sync", 9, rule))
                .contains(problem)
                .endsWith("expected one of none, median, trimmed:B, clip:TAU, centered-clip:TAU, krum:F,"
                        + " multikrum:F,M");
    }

    @Test
    void aRuleNeedsEnoughModelsPerAggregation() throws IOException {
        assertThat(error("sync", 4, "krum:1"))
                .isEqualTo("krum:1 needs n >= 2f + 3 = 5 models per aggregation, but averaging.participants lists 4");
        assertThat(error("fedbuff", 6, "multikrum:1,6"))
                .isEqualTo("multikrum:1,6 needs n >= 2f + 3 = 5 and M <= n - f, so n >= 7 models per aggregation,"
                        + " but averaging.buffer_size is 6");
        assertThat(error("sync", 4, "trimmed:2")).startsWith("trimmed:2 needs n > 2B = 4 models per aggregation");
        assertThat(error("sync", 2, "median")).startsWith("median needs n >= 3");
    }

    @Test
    void aRuleIsRefusedWhereModelsAreMergedOneAtATime() throws IOException {
        assertThat(error("async", 9, "median"))
                .startsWith("median with averaging.strategy async: robust rules aggregate several models at once;"
                        + " async merges one at a time");
        assertThat(error("async", 9, "median"))
                .contains("averaging.screening")
                .doesNotContain("secure")
                .endsWith("choose sync or fedbuff for a robust rule");
        assertThat(error("fragmented", 9, "krum:1"))
                .startsWith("krum:1 with averaging.strategy fragmented: robust rules aggregate several models at once;"
                        + " fragmented merges one at a time");
    }

    @Test
    void aRuleIsRefusedForSecureAggregationBecauseItsRelayOnlyLearnsASum() throws IOException {
        assertThat(error("secure", 9, "median"))
                .startsWith("median with averaging.strategy secure: robust rules need each model on its own, but"
                        + " secure aggregation shows no one a single model: the relay learns only the group's sum")
                .contains("averaging.screening does not apply to secure either")
                .contains("averaging.secure_range")
                .doesNotContain("async")
                .endsWith("choose sync or fedbuff for a robust rule");
    }

    @Test
    void theRoundDeadlineIsReadInSecondsAndMustNotBeNegative() throws IOException {
        Path file = write("sync", 3, "median");
        NodeConfig config = ConfigLoader.load(file, List.of("averaging.round_deadline_seconds=2.5"));
        assertThat(config.averaging().robustness().roundDeadline()).isEqualTo(Duration.ofMillis(2500));
        assertThat(config.averaging().robustness().hasDeadline()).isTrue();
        try {
            ConfigLoader.load(file, List.of("averaging.round_deadline_seconds=-1"));
            throw new AssertionError("a negative deadline was accepted");
        } catch (ConfigException e) {
            assertThat(e.getMessage()).contains("averaging.round_deadline_seconds: must be at least 0");
        }
    }
}
