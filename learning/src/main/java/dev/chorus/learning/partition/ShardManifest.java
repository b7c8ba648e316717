package dev.chorus.learning.partition;

import dev.chorus.learning.json.JsonException;
import dev.chorus.learning.json.JsonReader;
import dev.chorus.learning.json.JsonWriter;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * What a {@link ShardWriter} wrote: the source files and their hashes, the method and seed, and
 * for each node its files, rows and label counts. Stored as {@code manifest.json}:
 *
 * <pre>{@code
 * {"version": 1, "format": "csv", "method": "dirichlet:0.5", "seed": 42, "nodes": 3,
 *  "label": "Diagnosis", "classes": ["B", "M"], "rows": 569,
 *  "source": [{"file": "wdbc.csv", "sha256": "..."}],
 *  "shards": [{"node": 0, "rows": 190, "labelCounts": {"B": 120, "M": 70},
 *              "files": [{"file": "node-000.csv", "sha256": "..."}]}, ...]}
 * }</pre>
 *
 * IDX shard sets have {@code "format": "idx"}, no {@code label}, and two files per node (images,
 * then labels).
 *
 * @param format {@code csv} or {@code idx}
 * @param method the partition method string
 * @param seed the partition seed
 * @param label the label column of a CSV source, or {@code null}
 * @param classes the class names, in class order
 * @param rows rows partitioned
 * @param source the source files
 * @param shards one entry per node
 */
public record ShardManifest(
        String format,
        String method,
        long seed,
        String label,
        List<String> classes,
        int rows,
        List<FileDigest> source,
        List<Shard> shards) {

    /** Version of the manifest layout. */
    public static final int VERSION = 1;

    public ShardManifest {
        classes = List.copyOf(classes);
        source = List.copyOf(source);
        shards = List.copyOf(shards);
    }

    /**
     * A file and its SHA-256.
     *
     * @param file the file name (relative to the manifest's directory for shards)
     * @param sha256 lower-case hex SHA-256 of the file's bytes
     */
    public record FileDigest(String file, String sha256) {}

    /**
     * One node's shard.
     *
     * @param node the node index, from 0
     * @param rows rows in the shard
     * @param labelCounts rows per class name, in class order
     * @param files the shard's files
     */
    public record Shard(int node, int rows, Map<String, Integer> labelCounts, List<FileDigest> files) {
        public Shard {
            labelCounts = java.util.Collections.unmodifiableMap(new LinkedHashMap<>(labelCounts));
            files = List.copyOf(files);
        }
    }

    /** The manifest as pretty-printed JSON, ending with a newline. */
    public String toJson() {
        StringBuilder sb = new StringBuilder();
        JsonWriter w = JsonWriter.pretty(sb);
        w.beginObject();
        w.member("version", VERSION);
        w.member("format", format);
        w.member("method", method);
        w.member("seed", seed);
        w.member("nodes", shards.size());
        if (label != null) {
            w.member("label", label);
        }
        w.name("classes").beginArray();
        classes.forEach(w::value);
        w.endArray();
        w.member("rows", rows);
        w.name("source");
        writeFiles(w, source);
        w.name("shards").beginArray();
        for (Shard shard : shards) {
            w.beginObject();
            w.member("node", shard.node());
            w.member("rows", shard.rows());
            w.name("labelCounts").beginObject();
            shard.labelCounts().forEach((name, count) -> w.member(name, count));
            w.endObject();
            w.name("files");
            writeFiles(w, shard.files());
            w.endObject();
        }
        w.endArray();
        w.endObject();
        w.finish();
        return sb.append('\n').toString();
    }

    private static void writeFiles(JsonWriter w, List<FileDigest> files) {
        w.beginArray();
        for (FileDigest file : files) {
            w.beginObject()
                    .member("file", file.file())
                    .member("sha256", file.sha256())
                    .endObject();
        }
        w.endArray();
    }

    /** Reads a {@code manifest.json}. */
    public static ShardManifest read(Path file) throws IOException {
        try {
            return parse(Files.readString(file));
        } catch (JsonException e) {
            throw new JsonException(file + ": " + e.getMessage());
        }
    }

    /** Parses manifest JSON; throws {@link JsonException} if a member is missing or of the wrong type. */
    public static ShardManifest parse(String json) {
        Map<String, Object> root = JsonReader.parseObject(json);
        long version = number(root, "version");
        if (version != VERSION) {
            throw new JsonException("manifest version " + version + ", expected " + VERSION);
        }
        List<String> classes = new ArrayList<>();
        for (Object name : list(root, "classes")) {
            classes.add(stringValue(name, "classes"));
        }
        List<Shard> shards = new ArrayList<>();
        for (Object entry : list(root, "shards")) {
            Map<String, Object> shard = object(entry, "shards");
            Map<String, Integer> counts = new LinkedHashMap<>();
            object(shard.get("labelCounts"), "labelCounts")
                    .forEach((name, count) -> counts.put(name, (int) longValue(count, "labelCounts")));
            shards.add(new Shard(
                    (int) number(shard, "node"), (int) number(shard, "rows"), counts, files(shard.get("files"))));
        }
        Object label = root.get("label");
        return new ShardManifest(
                string(root, "format"),
                string(root, "method"),
                number(root, "seed"),
                label == null ? null : stringValue(label, "label"),
                classes,
                (int) number(root, "rows"),
                files(root.get("source")),
                shards);
    }

    private static List<FileDigest> files(Object value) {
        List<FileDigest> files = new ArrayList<>();
        if (!(value instanceof List<?> entries)) {
            throw new JsonException("manifest: expected a list of files");
        }
        for (Object entry : entries) {
            Map<String, Object> file = object(entry, "files");
            files.add(new FileDigest(string(file, "file"), string(file, "sha256")));
        }
        return files;
    }

    private static String string(Map<String, Object> object, String name) {
        return stringValue(object.get(name), name);
    }

    private static String stringValue(Object value, String name) {
        if (!(value instanceof String s)) {
            throw new JsonException("manifest: \"" + name + "\" must be a string");
        }
        return s;
    }

    private static long number(Map<String, Object> object, String name) {
        return longValue(object.get(name), name);
    }

    private static long longValue(Object value, String name) {
        if (!(value instanceof Long l)) {
            throw new JsonException("manifest: \"" + name + "\" must be an integer");
        }
        return l;
    }

    private static List<?> list(Map<String, Object> object, String name) {
        if (!(object.get(name) instanceof List<?> l)) {
            throw new JsonException("manifest: \"" + name + "\" must be a list");
        }
        return l;
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> object(Object value, String name) {
        if (!(value instanceof Map<?, ?> m)) {
            throw new JsonException("manifest: entries of \"" + name + "\" must be objects");
        }
        return (Map<String, Object>) m;
    }
}
