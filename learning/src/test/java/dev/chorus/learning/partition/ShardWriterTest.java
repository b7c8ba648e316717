package dev.chorus.learning.partition;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.chorus.learning.data.CsvData;
import dev.chorus.learning.data.CsvLoader;
import dev.chorus.learning.data.CsvSchema;
import dev.chorus.learning.data.CsvTable;
import dev.chorus.learning.data.DataException;
import dev.chorus.learning.data.IdxData;
import dev.chorus.learning.data.IdxLoader;
import dev.chorus.learning.data.Sha256;
import dev.chorus.learning.data.TestDatasets;
import dev.chorus.learning.json.JsonReader;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ShardWriterTest {

    @TempDir
    Path dir;

    private static final CsvSchema WDBC =
            CsvSchema.builder("Diagnosis").positiveClass("M").drop("ID").build();

    @Test
    void csvShardsKeepTheSourceHeaderAndLinesAndTheManifestAddsUp() throws IOException {
        Path source = TestDatasets.csv("wdbc.csv");
        CsvData data = CsvLoader.load(source, WDBC);
        Partition partition = new DirichletPartitioner(0.5).partition(PartitionSource.of(data), 5, 42);
        Path out = dir.resolve("shards");
        ShardManifest manifest = ShardWriter.writeCsv(data, partition, out);

        List<String> sourceLines = Files.readAllLines(source);
        List<String> shardLines = new ArrayList<>();
        int total = 0;
        for (ShardManifest.Shard shard : manifest.shards()) {
            Path file = out.resolve(shard.files().getFirst().file());
            assertThat(file.getFileName().toString()).isEqualTo(String.format("node-%03d.csv", shard.node()));
            assertThat(Sha256.hex(Files.readAllBytes(file)))
                    .isEqualTo(shard.files().getFirst().sha256());
            List<String> lines = Files.readAllLines(file);
            assertThat(lines.getFirst()).isEqualTo(sourceLines.getFirst());
            assertThat(lines).hasSize(shard.rows() + 1);
            shardLines.addAll(lines.subList(1, lines.size()));
            // Loading a shard gives the counts of the manifest.
            CsvData reloaded = CsvLoader.load(
                    file,
                    CsvSchema.builder("Diagnosis")
                            .classValues(List.of("B", "M"))
                            .drop("ID")
                            .build());
            int[] counts = reloaded.dataset().labelCounts();
            assertThat(shard.labelCounts()).isEqualTo(Map.of("B", counts[0], "M", counts[1]));
            total += shard.rows();
        }
        assertThat(total).isEqualTo(569);
        assertThat(shardLines).containsExactlyInAnyOrderElementsOf(sourceLines.subList(1, sourceLines.size()));

        assertThat(manifest.method()).isEqualTo("dirichlet:0.5");
        assertThat(manifest.seed()).isEqualTo(42);
        assertThat(manifest.source())
                .containsExactly(new ShardManifest.FileDigest(
                        "wdbc.csv", "e425aa77f1332aafb7834a5d754d34a4c45782ecdb96f38006cc3f1c11351c3f"));
        assertThat(ShardManifest.read(out.resolve("manifest.json"))).isEqualTo(manifest);
        Map<String, Object> json = JsonReader.parseObject(Files.readString(out.resolve("manifest.json")));
        assertThat(json)
                .containsEntry("label", "Diagnosis")
                .containsEntry("nodes", 5L)
                .containsEntry("rows", 569L);
        try (Stream<Path> files = Files.list(out)) {
            assertThat(files.map(p -> p.getFileName().toString()))
                    .containsExactlyInAnyOrder(
                            "manifest.json",
                            "node-000.csv",
                            "node-001.csv",
                            "node-002.csv",
                            "node-003.csv",
                            "node-004.csv");
        }
    }

    @Test
    void csvShardsAreByteForByteSlicesOfACrlfSourceWithQuotedLineBreaks() throws IOException {
        String text = "id,\"note\",y\r\n1,\"a, b\",1\r\n2,\"multi\r\nline\",0\r\n3,plain,1\r\n4,\"q \"\"x\"\"\",0\r\n";
        Path source = dir.resolve("in.csv");
        Files.writeString(source, text);
        CsvData data =
                CsvLoader.load(source, CsvSchema.builder("y").drop("note").build());
        Partition partition = new Partition("iid", 0, new int[][] {{1, 3}, {0, 2}});
        ShardWriter.writeCsv(data, partition, dir.resolve("out"));
        assertThat(Files.readString(dir.resolve("out/node-000.csv")))
                .isEqualTo("id,\"note\",y\r\n2,\"multi\r\nline\",0\r\n4,\"q \"\"x\"\"\",0\r\n");
        assertThat(Files.readString(dir.resolve("out/node-001.csv")))
                .isEqualTo("id,\"note\",y\r\n1,\"a, b\",1\r\n3,plain,1\r\n");
    }

    @Test
    void refusesADirectoryThatAlreadyHoldsShards() throws IOException {
        CsvData data = CsvLoader.load(TestDatasets.csv("wdbc.csv"), WDBC);
        Partition partition = new IidPartitioner().partition(PartitionSource.of(data), 3, 1);
        ShardWriter.writeCsv(data, partition, dir);
        String before = Files.readString(dir.resolve("manifest.json"));
        assertThatThrownBy(() ->
                        ShardWriter.writeCsv(data, new IidPartitioner().partition(PartitionSource.of(data), 2, 9), dir))
                .isInstanceOf(DataException.class)
                .hasMessageContaining("already holds shards");
        assertThat(Files.readString(dir.resolve("manifest.json"))).isEqualTo(before);
        Path file = dir.resolve("a-file");
        Files.writeString(file, "x");
        assertThatThrownBy(() -> ShardWriter.writeCsv(data, partition, file))
                .hasMessageContaining("is not a directory");
    }

    @Test
    void aPartitionThatDoesNotCoverTheRowsWritesNothing() {
        CsvData data = CsvLoader.load(
                CsvTable.parse("x,y\n1,0\n2,1\n3,0\n", Path.of("inline.csv")),
                CsvSchema.builder("y").build());
        Path out = dir.resolve("out");
        assertThatThrownBy(() -> ShardWriter.writeCsv(data, new Partition("iid", 0, new int[][] {{0}, {1}}), out))
                .isInstanceOf(IllegalStateException.class)
                .hasMessage("row 2 is in no shard");
        assertThat(out).doesNotExist();
    }

    @Test
    void idxShardsReadBackAndMatchTheManifest() throws IOException {
        byte[] pixels = new byte[20 * 4];
        byte[] labels = new byte[20];
        for (int i = 0; i < 20; i++) {
            labels[i] = (byte) (i % 3);
            Arrays.fill(pixels, i * 4, i * 4 + 4, (byte) i);
        }
        IdxData data = new IdxData(dir.resolve("images"), "aa", dir.resolve("labels"), "bb", 2, 2, pixels, labels);
        Partition partition = new DirichletPartitioner(1).partition(PartitionSource.of(data, 3), 4, 3);
        Path out = dir.resolve("shards");
        ShardManifest manifest = ShardWriter.writeIdx(data, 3, partition, out);
        assertThat(manifest.format()).isEqualTo("idx");
        assertThat(manifest.classes()).containsExactly("0", "1", "2");
        int total = 0;
        for (ShardManifest.Shard shard : manifest.shards()) {
            IdxData back = IdxLoader.readDirectory(out, String.format("node-%03d", shard.node()));
            assertThat(back.count()).isEqualTo(shard.rows());
            int[] rows = partition.shard(shard.node());
            for (int i = 0; i < rows.length; i++) {
                assertThat(back.labels()[i]).isEqualTo(labels[rows[i]]);
                assertThat(back.pixels()[i * 4]).isEqualTo((byte) rows[i]);
            }
            assertThat(back.imagesSha256()).isEqualTo(shard.files().get(0).sha256());
            assertThat(back.labelsSha256()).isEqualTo(shard.files().get(1).sha256());
            int[] counts = new int[3];
            for (byte label : back.labels()) {
                counts[label]++;
            }
            assertThat(shard.labelCounts()).isEqualTo(Map.of("0", counts[0], "1", counts[1], "2", counts[2]));
            total += shard.rows();
        }
        assertThat(total).isEqualTo(20);
        assertThat(ShardManifest.read(out.resolve("manifest.json"))).isEqualTo(manifest);
    }

    @Test
    void fashionMnistDirichletShards() throws IOException {
        Path fashion = TestDatasets.fashionMnist();
        IdxData test = IdxLoader.readDirectory(fashion, "t10k");
        Partition partition = Partitioner.parse("dirichlet:0.1").partition(PartitionSource.of(test, 10), 8, 5);
        ShardManifest manifest = ShardWriter.writeIdx(test, 10, partition, dir);
        assertThat(manifest.shards().stream()
                        .mapToInt(ShardManifest.Shard::rows)
                        .sum())
                .isEqualTo(10_000);
        assertThat(manifest.source().getFirst())
                .isEqualTo(new ShardManifest.FileDigest(
                        "t10k-images-idx3-ubyte.gz",
                        "cc1d090a38ace84dfa1aa66e3ada7c336ef481a96936906477e6dd344da56eaa"));
        assertThat(IdxLoader.readDirectory(dir, "node-007").count())
                .isEqualTo(manifest.shards().get(7).rows());
    }

    @Test
    void manifestJsonIsStable() {
        ShardManifest manifest = new ShardManifest(
                "csv",
                "iid",
                7,
                "y \"quoted\"",
                List.of("0", "1"),
                3,
                List.of(new ShardManifest.FileDigest("in.csv", "ab")),
                List.of(new ShardManifest.Shard(
                        0, 3, Map.of("0", 1), List.of(new ShardManifest.FileDigest("node-000.csv", "cd")))));
        String expected = """
                {
                  "version": 1,
                  "format": "csv",
                  "method": "iid",
                  "seed": 7,
                  "nodes": 1,
                  "label": "y \\"quoted\\"",
                  "classes": [
                    "0",
                    "1"
                  ],
                  "rows": 3,
                  "source": [
                    {
                      "file": "in.csv",
                      "sha256": "ab"
                    }
                  ],
                  "shards": [
                    {
                      "node": 0,
                      "rows": 3,
                      "labelCounts": {
                        "0": 1
                      },
                      "files": [
                        {
                          "file": "node-000.csv",
                          "sha256": "cd"
                        }
                      ]
                    }
                  ]
                }
                """;
        assertThat(manifest.toJson()).isEqualTo(expected);
        assertThat(ShardManifest.parse(expected)).isEqualTo(manifest);
    }
}
