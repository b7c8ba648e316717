package dev.chorus.node.config;

import com.code_intelligence.jazzer.junit.FuzzTest;
import dev.chorus.node.NodeTestDirs;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.io.TempDir;

/**
 * Coverage-guided fuzz test of the YAML config loader: whatever a {@code node.yaml} holds, the loader either returns a
 * validated config or throws {@link ConfigException} (one line naming the key and where it was set); any other
 * exception is a finding. The data directory holds the files a valid config names, so that the fuzzer reaches the
 * validation of every section. Regression inputs: {@code ConfigLoaderFuzzTestInputs/}.
 */
class ConfigLoaderFuzzTest {

    @TempDir
    static Path dir;

    private static Path file;

    @BeforeAll
    static void dataDirectory() {
        file = NodeTestDirs.create(dir, "");
    }

    @FuzzTest
    void load(byte[] yaml) throws IOException {
        Files.write(file, yaml);
        try {
            ConfigLoader.load(file, List.of());
        } catch (ConfigException rejected) {
            // the loader's one documented rejection
        }
    }
}
