package dev.chorus.node.daemon;

import dev.chorus.gossip.identity.KeyFile;
import dev.chorus.gossip.identity.PrivateKey;
import dev.chorus.learning.data.CsvData;
import dev.chorus.learning.data.TestDatasets;
import dev.chorus.learning.partition.PartitionSource;
import dev.chorus.learning.partition.Partitioner;
import dev.chorus.learning.partition.ShardWriter;
import dev.chorus.learning.train.StepListener;
import dev.chorus.node.NodeTestDirs;
import dev.chorus.node.config.ConfigLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.function.IntFunction;
import java.util.stream.Collectors;

/**
 * Daemons on loopback that each train on their own shard of WDBC, started one after another, each bootstrapped to
 * those started before it: the set-up the multi-node daemon tests share. Closing it stops every daemon it started,
 * the last first (a daemon a test closed already is closed again harmlessly).
 */
final class ShardedDaemons implements AutoCloseable {

    private final List<NodeDaemon> started = new ArrayList<>();

    /** Writes WDBC split by {@code partition} (e.g. {@code iid}, {@code dirichlet:1.0}) into {@code nodes} shards. */
    static Path writeShards(Path out, String partition, int nodes, long seed) throws Exception {
        CsvData csv = TestDatasets.wdbc();
        ShardWriter.writeCsv(csv, Partitioner.parse(partition).partition(PartitionSource.of(csv), nodes, seed), out);
        return out;
    }

    /** {@code n} fresh identities. */
    static List<PrivateKey> keys(int n) {
        List<PrivateKey> keys = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            keys.add(PrivateKey.generate());
        }
        return keys;
    }

    /** The override that names {@code keys} as {@code averaging.participants}. */
    static String participants(List<PrivateKey> keys) {
        return "averaging.participants=["
                + keys.stream().map(k -> k.peerId().toString()).collect(Collectors.joining(", ")) + "]";
    }

    /** Starts one node per shard with {@code overrides.apply(i)}; see the other overload. */
    List<NodeDaemon> startChain(Path root, Path shards, List<PrivateKey> keys, IntFunction<List<String>> overrides)
            throws Exception {
        return startChain(root, shards, keys, overrides, i -> List.of());
    }

    /**
     * Starts node {@code i} (for each of {@code keys}) in {@code root/node-i} with identity {@code keys.get(i)},
     * training on shard {@code i} of {@code shards}, with {@code overrides.apply(i)} and the step listeners {@code
     * listeners.apply(i)}; each node is bootstrapped to the nodes this call started before it.
     */
    List<NodeDaemon> startChain(
            Path root,
            Path shards,
            List<PrivateKey> keys,
            IntFunction<List<String>> overrides,
            IntFunction<List<StepListener>> listeners)
            throws Exception {
        List<NodeDaemon> nodes = new ArrayList<>();
        List<String> addresses = new ArrayList<>();
        for (int i = 0; i < keys.size(); i++) {
            Path home = root.resolve("node-" + i);
            Files.createDirectories(home);
            KeyFile.create(home.resolve("identity.key"), keys.get(i));
            Path yaml = home.resolve("node.yaml");
            Files.writeString(
                    yaml,
                    NodeTestDirs.baseYaml()
                            .replace("path: wdbc.csv", "path: " + shards.resolve(ShardWriter.csvShardName(i))));
            List<String> all = new ArrayList<>(overrides.apply(i));
            if (!addresses.isEmpty()) {
                all.add("network.bootstrap=[" + String.join(", ", addresses) + "]");
            }
            NodeDaemon d = NodeDaemon.start(ConfigLoader.load(yaml, all), listeners.apply(i));
            started.add(d);
            nodes.add(d);
            addresses.add(d.listenAddrs().getFirst());
        }
        return nodes;
    }

    @Override
    public void close() {
        for (int i = started.size() - 1; i >= 0; i--) {
            started.get(i).close();
        }
    }
}
