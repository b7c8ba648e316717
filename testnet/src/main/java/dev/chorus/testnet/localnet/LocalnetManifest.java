package dev.chorus.testnet.localnet;

import dev.chorus.learning.data.AtomicFile;
import dev.chorus.learning.json.JsonReader;
import dev.chorus.learning.json.JsonWriter;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * {@code DIR/testnet.json}: the node processes of a local testnet, written by {@code up} after each node starts
 * (so that {@code down} finds every process even when {@code up} failed half-way) and read by {@code down}.
 *
 * @param nodes the started nodes, in start order
 * @param namespaces the network namespaces of a {@code --netns} testnet, which {@code down} deletes; empty on
 *     loopback
 * @param hostLink the root namespace's veth into a {@code --netns} testnet; null on loopback
 */
public record LocalnetManifest(List<Node> nodes, List<String> namespaces, String hostLink) {

    /** The file name in the testnet directory. */
    public static final String FILE = "testnet.json";

    /**
     * One node process.
     *
     * @param name {@code node-000}, ...
     * @param dir its data directory
     * @param pid its process id
     * @param startedAt when the process started, as the OS reports it (guards against a reused pid); null when
     *     unknown
     * @param peerId its peer id
     * @param listen its full listen multiaddr
     * @param api the base URL of its HTTP API
     */
    public record Node(String name, Path dir, long pid, Instant startedAt, String peerId, String listen, String api) {}

    public LocalnetManifest {
        nodes = List.copyOf(nodes);
        namespaces = List.copyOf(namespaces);
    }

    /** A testnet on loopback. */
    public LocalnetManifest(List<Node> nodes) {
        this(nodes, List.of(), null);
    }

    public void write(Path dir) throws IOException {
        StringBuilder sb = new StringBuilder();
        JsonWriter w = JsonWriter.pretty(sb);
        w.beginObject();
        w.member("version", 1);
        w.name("nodes").beginArray();
        for (Node n : nodes) {
            w.beginObject();
            w.member("name", n.name());
            w.member("dir", n.dir().toString());
            w.member("pid", n.pid());
            if (n.startedAt() != null) {
                w.member("startedAt", n.startedAt().toString());
            }
            w.member("peerId", n.peerId());
            w.member("listen", n.listen());
            w.member("api", n.api());
            w.endObject();
        }
        w.endArray();
        if (!namespaces.isEmpty()) {
            w.name("namespaces").beginArray();
            for (String ns : namespaces) {
                w.value(ns);
            }
            w.endArray();
        }
        if (hostLink != null) {
            w.member("hostLink", hostLink);
        }
        w.endObject();
        w.finish();
        sb.append('\n');
        AtomicFile.writeString(dir.resolve(FILE), sb.toString());
    }

    /**
     * Reads {@code dir/testnet.json}.
     *
     * @throws IllegalArgumentException naming the problem when the file is not a testnet manifest
     */
    public static LocalnetManifest read(Path dir) throws IOException {
        Path file = dir.resolve(FILE);
        Map<String, Object> root = JsonReader.parseObject(java.nio.file.Files.readString(file));
        if (!(root.get("nodes") instanceof List<?> list)) {
            throw new IllegalArgumentException(file + ": no \"nodes\" array");
        }
        List<Node> nodes = new ArrayList<>();
        for (Object o : list) {
            if (!(o instanceof Map<?, ?> m) || !(m.get("pid") instanceof Long pid)) {
                throw new IllegalArgumentException(file + ": a node without a pid");
            }
            Object started = m.get("startedAt");
            nodes.add(new Node(
                    String.valueOf(m.get("name")),
                    Path.of(String.valueOf(m.get("dir"))),
                    pid,
                    started == null ? null : Instant.parse(started.toString()),
                    String.valueOf(m.get("peerId")),
                    String.valueOf(m.get("listen")),
                    String.valueOf(m.get("api"))));
        }
        List<String> namespaces = new ArrayList<>();
        if (root.get("namespaces") instanceof List<?> names) {
            for (Object o : names) {
                if (!(o instanceof String ns) || !ns.matches("chorus[0-9]{1,3}-(sw|[0-9]{1,2})")) {
                    throw new IllegalArgumentException(file + ": not a testnet namespace: " + o);
                }
                namespaces.add(ns);
            }
        }
        Object hostLink = root.get("hostLink");
        return new LocalnetManifest(nodes, namespaces, hostLink == null ? null : hostLink.toString());
    }
}
