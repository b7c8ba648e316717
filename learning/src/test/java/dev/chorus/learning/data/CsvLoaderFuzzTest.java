package dev.chorus.learning.data;

import com.code_intelligence.jazzer.junit.FuzzTest;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;

/**
 * Coverage-guided fuzz test of the CSV parser and loader: any text either parses and loads against a schema that
 * names its first column as the label, or is rejected with {@link DataException} naming the problem; any other
 * exception is a finding. Regression inputs: {@code CsvLoaderFuzzTestInputs/}.
 */
class CsvLoaderFuzzTest {
    private static final Path SOURCE = Path.of("fuzz.csv");

    @FuzzTest
    void load(byte[] data) {
        String text = new String(data, StandardCharsets.UTF_8);
        try {
            CsvTable table = CsvTable.parse(text, SOURCE);
            if (table.header().isEmpty()) {
                return;
            }
            CsvLoader.load(table, CsvSchema.builder(table.header().get(0)).build());
        } catch (DataException rejected) {
            // the loader's one documented rejection
        }
    }
}
