package dev.chorus.node.daemon;

import static org.assertj.core.api.Assertions.assertThat;

import dev.chorus.node.NodeTestDirs;
import dev.chorus.node.config.ConfigLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A member's shard of a skewed split may hold one class of the consortium's binary task: the node trains on it. */
class LocalDataTest {

    @TempDir
    Path dir;

    /** The node's wdbc.csv cut to the header and the rows whose diagnosis is {@code keep}. */
    private Path shardOf(String keep) throws Exception {
        Path yaml = NodeTestDirs.create(dir, "");
        Path csv = dir.resolve("wdbc.csv");
        List<String> lines = Files.readAllLines(csv);
        int column = List.of(lines.getFirst().replace("\"", "").split(",")).indexOf("Diagnosis");
        List<String> out = new ArrayList<>();
        out.add(lines.getFirst());
        for (String line : lines.subList(1, lines.size())) {
            if (line.split(",")[column].replace("\"", "").equals(keep)) {
                out.add(line);
            }
        }
        Files.write(csv, out);
        return yaml;
    }

    @Test
    void aShardWithoutThePositiveClassTrainsAndSaysSo() throws Exception {
        LocalData data = LocalData.load(ConfigLoader.load(shardOf("B"), List.of()));
        assertThat(data.train().classes()).isEqualTo(2);
        assertThat(data.train().labels()).containsOnly(0);
        assertThat(data.train().classNames()).containsExactly("B", "M");
        assertThat(data.warnings()).anySatisfy(w -> assertThat(w)
                .startsWith("the positive class \"M\" (data.positive) occurs in none of the 357 rows"));
    }

    @Test
    void aShardOfPositivesOnlyTrainsAndSaysSo() throws Exception {
        LocalData data = LocalData.load(ConfigLoader.load(shardOf("M"), List.of()));
        assertThat(data.train().labels()).containsOnly(1);
        assertThat(data.warnings())
                .anySatisfy(w -> assertThat(w).startsWith("every one of the 212 rows has the positive class \"M\""));
    }

    @Test
    void bothClassesLoadWithoutAWord() throws Exception {
        LocalData data = LocalData.load(ConfigLoader.load(NodeTestDirs.create(dir, ""), List.of()));
        assertThat(data.train().labels()).contains(0, 1);
        assertThat(data.warnings()).noneMatch(w -> w.contains("data.positive"));
    }
}
