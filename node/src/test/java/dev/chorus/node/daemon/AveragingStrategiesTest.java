package dev.chorus.node.daemon;

import static org.assertj.core.api.Assertions.assertThat;

import dev.chorus.aggregation.async.FragmentedGossip;
import dev.chorus.node.NodeTestDirs;
import dev.chorus.node.config.ConfigLoader;
import dev.chorus.node.config.NodeConfig;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class AveragingStrategiesTest {

    @TempDir
    Path dir;

    /** averaging.fragment_balance reaches the fragmented strategy; on unless the config turns it off. */
    @ParameterizedTest
    @CsvSource({"'', true", "averaging.fragment_balance=true, true", "averaging.fragment_balance=false, false"})
    void theFragmentBalanceFollowsTheConfig(String override, boolean expected) throws Exception {
        List<String> sets = new ArrayList<>(List.of("averaging.strategy=fragmented"));
        if (!override.isEmpty()) {
            sets.add(override);
        }
        NodeConfig config = ConfigLoader.load(NodeTestDirs.create(dir, ""), sets);
        assertThat(config.averaging().fragmented().fragmentBalance()).isEqualTo(expected);
        FragmentedGossip strategy = (FragmentedGossip) AveragingStrategies.create(config, "self", 31);
        assertThat(strategy.config().balanced()).isEqualTo(expected);
    }

    /** averaging.fragments left at 0 takes the model's default count; a count set is kept. */
    @ParameterizedTest
    @CsvSource({
        "'', 31, 1",
        "'', 1000000, 10",
        "'', 25450, 6",
        "'', 7850, 1",
        "averaging.fragments=7, 31, 7",
        "averaging.fragments=3, 25450, 3"
    })
    void theFragmentCountIsTheModelsDefaultUnlessSet(String override, int dimension, int expected) throws Exception {
        List<String> sets = new ArrayList<>(List.of("averaging.strategy=fragmented"));
        if (!override.isEmpty()) {
            sets.add(override);
        }
        NodeConfig config = ConfigLoader.load(NodeTestDirs.create(dir, ""), sets);
        FragmentedGossip strategy = (FragmentedGossip) AveragingStrategies.create(config, "self", dimension);
        assertThat(strategy.config().fragments()).isEqualTo(expected);
        assertThat(strategy.fragmentation().orElseThrow().fragmentCount()).isEqualTo(expected);
    }

    /** averaging.screening and averaging.clip_multiplier reach both gossip strategies; no clipping unless on. */
    @ParameterizedTest
    @CsvSource({
        "async, '', false, 3.0",
        "async, averaging.screening=clip, true, 3.0",
        "async, averaging.screening=off, false, 3.0",
        "async, averaging.screening=clip;averaging.clip_multiplier=2.5, true, 2.5",
        "fragmented, '', false, 3.0",
        "fragmented, averaging.screening=clip, true, 3.0",
        "fragmented, averaging.screening=clip-all, true, 3.0"
    })
    void theScreeningFollowsTheConfig(String strategy, String override, boolean clips, double multiplier)
            throws Exception {
        List<String> sets = new ArrayList<>(List.of("averaging.strategy=" + strategy));
        if (!override.isEmpty()) {
            sets.addAll(List.of(override.split(";")));
        }
        NodeConfig config = ConfigLoader.load(NodeTestDirs.create(dir, ""), sets);
        assertThat(config.averaging().screening().clip()).isEqualTo(clips);
        var screening = AveragingStrategies.create(config, "self", 31).screening();
        assertThat(screening.isPresent()).isEqualTo(clips);
        screening.ifPresent(s -> assertThat(s.config().multiplier()).isEqualTo(multiplier));
    }
}
