package dev.chorus.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.chorus.learning.partition.ShardManifest;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class PartitionCommandTest {

    @TempDir
    Path dir;

    @Test
    void naturalSplitOfFlchainBySampleYearWritesShardsAndManifest() throws IOException {
        Path out = dir.resolve("shards");
        CliRun run = CliRun.of(
                "partition",
                "--data",
                TestData.path("flchain.csv").toString(),
                "--label",
                "death",
                "--nodes",
                "3",
                "--method",
                "column:sample.yr",
                "--seed",
                "5",
                "--out",
                out.toString());
        assertThat(run.exitCode()).as(run.err()).isZero();
        ShardManifest manifest = ShardManifest.read(out.resolve("manifest.json"));
        assertThat(manifest.seed()).isEqualTo(5);
        assertThat(manifest.shards()).hasSize(3);
        int total =
                manifest.shards().stream().mapToInt(ShardManifest.Shard::rows).sum();
        assertThat(total).isEqualTo(7874);
        long lines = 0;
        for (ShardManifest.Shard s : manifest.shards()) {
            List<String> shard =
                    Files.readAllLines(out.resolve(s.files().getFirst().file()));
            assertThat(shard.getFirst()).startsWith("\"age\",\"sex\",\"sample.yr\"");
            lines += shard.size() - 1;
        }
        assertThat(lines).isEqualTo(7874);
        assertThat(run.out()).contains("7874 rows into 3 shards");
    }

    @Test
    void aShardTrainsWithTheTrainCommand() throws IOException {
        Path out = dir.resolve("wdbc");
        CliRun run = CliRun.of(
                "partition",
                "--label",
                "Diagnosis",
                "--nodes",
                "2",
                "--method",
                "dirichlet:1.0",
                "--out",
                out.toString());
        assertThat(run.exitCode()).as(run.err()).isZero();
        CliRun train = CliRun.of(
                "train",
                "--data",
                out.resolve("node-000.csv").toString(),
                "--label",
                "Diagnosis",
                "--positive",
                "M",
                "--drop",
                "ID",
                "--backend",
                "reference",
                "--epochs",
                "2",
                "--json");
        assertThat(train.exitCode()).as(train.err()).isZero();
    }

    @Test
    void failedPartitionLeavesNothingBehind() throws IOException {
        Path out = dir.resolve("none");
        CliRun run = CliRun.of(
                "partition",
                "--data",
                TestData.path("nwtco.csv").toString(),
                "--label",
                "rel",
                "--nodes",
                "5",
                "--method",
                "column:study",
                "--out",
                out.toString());
        assertThat(run.exitCode()).isEqualTo(2);
        assertThat(run.err()).contains("study");
        assertThat(out).doesNotExist();
    }
}
