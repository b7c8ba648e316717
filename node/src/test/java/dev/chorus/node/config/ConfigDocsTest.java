package dev.chorus.node.config;

import static org.assertj.core.api.Assertions.assertThat;

import dev.chorus.node.NodeTestDirs;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** docs/config.md and the starter node.yaml come from the schema and cannot drift from it. */
class ConfigDocsTest {

    /** The module's tests run in node/, so the docs are one level up. */
    static final Path DOCS = Path.of("..", "docs", "config.md");

    @Test
    void committedDocsMatchTheSchema() throws IOException {
        String expected = ConfigDocs.markdown();
        assertThat(Files.readString(DOCS))
                .as("docs/config.md is stale: run ./chorus config docs --out docs/config.md")
                .isEqualTo(expected);
        for (ConfigKey k : ConfigSchema.keys()) {
            assertThat(expected).contains("| `" + k.name() + "` |");
        }
    }

    @Test
    void starterFileLoadsAndListsEveryKey(@TempDir Path dir) throws IOException {
        NodeTestDirs.create(dir, "");
        String text = StarterConfig.render(Map.of(
                ConfigSchema.CONSORTIUM, "hospitals",
                ConfigSchema.DATA_PATH, "wdbc.csv",
                ConfigSchema.DATA_LABEL, "Diagnosis"));
        for (ConfigKey k : ConfigSchema.keys()) {
            assertThat(text).contains(k.leaf() + ":");
        }
        Path yaml = dir.resolve("node.yaml");
        Files.writeString(yaml, text);
        NodeConfig c = ConfigLoader.load(yaml, List.of());
        assertThat(c.node().consortium()).isEqualTo("hospitals");
        assertThat(c.data().csv().label()).isEqualTo("Diagnosis");
        assertThat(c.operations().api().port()).isEqualTo(ConfigSchema.DEFAULT_API_PORT);
        assertThat(c.network().listen().getFirst().toString()).isEqualTo("/ip4/0.0.0.0/tcp/4001");
    }
}
