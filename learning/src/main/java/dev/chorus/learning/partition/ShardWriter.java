package dev.chorus.learning.partition;

import dev.chorus.learning.data.AtomicFile;
import dev.chorus.learning.data.CsvData;
import dev.chorus.learning.data.CsvTable;
import dev.chorus.learning.data.DataException;
import dev.chorus.learning.data.IdxData;
import dev.chorus.learning.data.IdxLoader;
import java.io.IOException;
import java.io.OutputStreamWriter;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Writes the shards of a {@link Partition} into a directory, one per node, in the format of the
 * source: a CSV source gives {@code node-000.csv}, ... holding the source's header line and the
 * original text of each of the node's records, in source order, with the source's line terminator;
 * an IDX source gives gzipped {@code node-000-images-idx3-ubyte.gz} and {@code
 * node-000-labels-idx1-ubyte.gz}, readable by {@link IdxLoader#readDirectory(Path, String)} with
 * prefix {@code node-000}. Then {@code manifest.json} ({@link ShardManifest}).
 *
 * <p>Every file is written atomically ({@link AtomicFile}) and the manifest last, so a directory
 * with a manifest holds a complete shard set. The directory must not hold shards already: stale
 * files of an earlier run with more nodes would otherwise be mistaken for part of this one.
 */
public final class ShardWriter {

    /** Name of the manifest file. */
    public static final String MANIFEST = "manifest.json";

    private ShardWriter() {}

    /** The shard file of node {@code node} of a CSV source. */
    public static String csvShardName(int node) {
        return String.format("node-%03d.csv", node);
    }

    /** The file-name prefix of node {@code node}'s IDX pair. */
    public static String idxShardPrefix(int node) {
        return String.format("node-%03d", node);
    }

    /** Writes CSV shards of {@code data}'s loaded rows into {@code dir}. */
    public static ShardManifest writeCsv(CsvData data, Partition partition, Path dir) throws IOException {
        partition.assignment(data.dataset().rows());
        prepare(dir);
        CsvTable table = data.table();
        String separator = table.lineSeparator();
        int[] labels = data.dataset().labels();
        List<String> classes = data.dataset().classNames();
        List<ShardManifest.Shard> shards = new ArrayList<>();
        for (int node = 0; node < partition.nodes(); node++) {
            int[] rows = partition.shard(node);
            String name = csvShardName(node);
            String sha = AtomicFile.write(dir.resolve(name), out -> {
                Writer writer = new OutputStreamWriter(out, StandardCharsets.UTF_8);
                writer.write(table.headerText());
                writer.write(separator);
                for (int row : rows) {
                    writer.write(data.record(row).text());
                    writer.write(separator);
                }
                writer.flush();
            });
            shards.add(new ShardManifest.Shard(
                    node,
                    rows.length,
                    labelCounts(rows, labels, classes),
                    List.of(new ShardManifest.FileDigest(name, sha))));
        }
        ShardManifest manifest = new ShardManifest(
                "csv",
                partition.method(),
                partition.seed(),
                data.schema().label(),
                classes,
                data.dataset().rows(),
                List.of(new ShardManifest.FileDigest(fileName(table.source()), table.sha256())),
                shards);
        AtomicFile.writeString(dir.resolve(MANIFEST), manifest.toJson());
        return manifest;
    }

    /** Writes gzipped IDX shard pairs of {@code data} into {@code dir}; labels must be below {@code classes}. */
    public static ShardManifest writeIdx(IdxData data, int classes, Partition partition, Path dir) throws IOException {
        partition.assignment(data.count());
        int[] labels = PartitionSource.of(data, classes).labels();
        prepare(dir);
        List<String> classNames = PartitionSource.of(data, classes).classNames();
        List<ShardManifest.Shard> shards = new ArrayList<>();
        for (int node = 0; node < partition.nodes(); node++) {
            int[] rows = partition.shard(node);
            IdxData shard = data.subset(rows);
            String images = idxShardPrefix(node) + "-images-idx3-ubyte.gz";
            String labelFile = idxShardPrefix(node) + "-labels-idx1-ubyte.gz";
            String imagesSha = AtomicFile.write(dir.resolve(images), out -> IdxLoader.writeImages(shard, out));
            String labelsSha = AtomicFile.write(dir.resolve(labelFile), out -> IdxLoader.writeLabels(shard, out));
            shards.add(new ShardManifest.Shard(
                    node,
                    rows.length,
                    labelCounts(rows, labels, classNames),
                    List.of(
                            new ShardManifest.FileDigest(images, imagesSha),
                            new ShardManifest.FileDigest(labelFile, labelsSha))));
        }
        ShardManifest manifest = new ShardManifest(
                "idx",
                partition.method(),
                partition.seed(),
                null,
                classNames,
                data.count(),
                List.of(
                        new ShardManifest.FileDigest(fileName(data.imagesSource()), data.imagesSha256()),
                        new ShardManifest.FileDigest(fileName(data.labelsSource()), data.labelsSha256())),
                shards);
        AtomicFile.writeString(dir.resolve(MANIFEST), manifest.toJson());
        return manifest;
    }

    private static Map<String, Integer> labelCounts(int[] rows, int[] labels, List<String> classes) {
        int[] counts = new int[classes.size()];
        for (int row : rows) {
            counts[labels[row]]++;
        }
        Map<String, Integer> byName = new LinkedHashMap<>();
        for (int k = 0; k < counts.length; k++) {
            byName.put(classes.get(k), counts[k]);
        }
        return byName;
    }

    private static String fileName(Path path) {
        Path name = path.getFileName();
        return name == null ? path.toString() : name.toString();
    }

    private static void prepare(Path dir) throws IOException {
        if (Files.exists(dir) && !Files.isDirectory(dir)) {
            throw new DataException(dir + ": exists and is not a directory");
        }
        Files.createDirectories(dir);
        try (DirectoryStream<Path> entries = Files.newDirectoryStream(dir)) {
            for (Path entry : entries) {
                String name = entry.getFileName().toString();
                if (name.equals(MANIFEST) || name.startsWith("node-")) {
                    throw new DataException(
                            dir + ": already holds shards (" + name + "); remove them or choose another directory");
                }
            }
        }
    }
}
