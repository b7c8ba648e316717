package dev.chorus.node.daemon;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.chorus.gossip.identity.KeyFile;
import dev.chorus.gossip.identity.PrivateKey;
import dev.chorus.learning.data.CsvData;
import dev.chorus.learning.data.TestDatasets;
import dev.chorus.learning.partition.PartitionSource;
import dev.chorus.learning.partition.Partitioner;
import dev.chorus.learning.partition.ShardWriter;
import dev.chorus.node.NodeTestDirs;
import dev.chorus.node.api.AveragingCounters;
import dev.chorus.node.checkpoint.CheckpointStore;
import dev.chorus.node.config.ConfigException;
import dev.chorus.node.config.ConfigLoader;
import dev.chorus.node.config.NodeConfig;
import dev.chorus.node.protocol.ModelExchange;
import dev.chorus.privacy.audit.AuditVerification;
import dev.chorus.privacy.audit.EgressAuditLog;
import dev.chorus.testsupport.TestLog;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Three daemons in one JVM, bootstrapped to one another on loopback, each training logistic regression on its
 * Dirichlet(1.0) shard of WDBC for the same number of steps from the same initialization. With {@code async}
 * gossip they exchange models (bytes and merges in the metrics and the API) and end much closer to one another
 * than the same three nodes trained with {@code none}.
 */
class NodeDaemonAveragingTest {

    private static final long SEED = 20250131L;
    private static final int NODES = 3;

    @TempDir
    Path dir;

    private final List<NodeDaemon> started = new ArrayList<>();
    private final HttpClient http = HttpClient.newHttpClient();

    @AfterEach
    void stopAll() {
        started.forEach(NodeDaemon::close);
        http.close();
    }

    /** One run: the final parameters of every node and what its API showed after training. */
    private record Run(
            List<float[]> params,
            List<Map<String, Object>> status,
            List<Map<String, Object>> peers,
            List<Map<String, Object>> members) {

        double meanPairwiseDistance() {
            double sum = 0;
            int pairs = 0;
            for (int i = 0; i < params.size(); i++) {
                for (int j = i + 1; j < params.size(); j++) {
                    double d = 0;
                    for (int k = 0; k < params.get(i).length; k++) {
                        double diff = params.get(i)[k] - params.get(j)[k];
                        d += diff * diff;
                    }
                    sum += Math.sqrt(d);
                    pairs++;
                }
            }
            return sum / pairs;
        }
    }

    @Test
    void gossipExchangesModelsAndBringsNodesTogether() throws Exception {
        TestLog.figures("seed " + SEED);
        Path shards = writeShards(dir.resolve("shards"));
        Run alone = run("none", shards);
        Run gossip = run("async", shards);

        for (int i = 0; i < NODES; i++) {
            // Nodes that do not average have no model to offer and announce nothing.
            assertThat(alone.members().get(i).get("count")).isEqualTo(0L);
            // Averaging nodes hear each other's signed announcements on the consortium topic.
            Map<String, Object> m = gossip.members().get(i);
            assertThat(m.get("count")).as("node %d members", i).isEqualTo((long) NODES - 1);
            assertThat(m.get("rejected")).isEqualTo(0L);
            for (Object o : (List<?>) m.get("members")) {
                Map<?, ?> member = (Map<?, ?>) o;
                assertThat((Long) member.get("version")).isPositive();
                assertThat(member.get("architecture"))
                        .isEqualTo(((Map<?, ?>) ((List<?>) gossip.members()
                                                .get((i + 1) % NODES)
                                                .get("members"))
                                        .getFirst())
                                .get("architecture"));
                assertThat(((Map<?, ?>) member.get("metrics")).containsKey("train_loss"))
                        .isTrue();
            }
            assertThat(gossip.status().get(i).get("memberCount")).isEqualTo((long) NODES - 1);
        }
        TestLog.figures("accuracy alone "
                + alone.status().stream().map(s -> s.get("accuracy")).toList() + ", async "
                + gossip.status().stream().map(s -> s.get("accuracy")).toList());
        // Each node scores on its own validation split: some 30 rows of a label-skewed shard, on which the shared
        // model of a short run may score near chance at one node while the others score above 0.9. So the floor is
        // on the mean over nodes, which nodes that learned nothing would not reach.
        assertThat(gossip.status().stream()
                        .mapToDouble(s -> ((Number) s.get("accuracy")).doubleValue())
                        .average()
                        .orElseThrow())
                .isGreaterThan(0.6);
        for (Map<String, Object> s : alone.status()) {
            Map<?, ?> avg = (Map<?, ?>) s.get("averaging");
            assertThat(avg.get("merged")).isEqualTo(0L);
            assertThat((Map<?, ?>) s.get("bytesOut")).isEmpty();
        }
        for (int i = 0; i < NODES; i++) {
            Map<String, Object> s = gossip.status().get(i);
            assertThat(s.get("strategy")).isEqualTo("async");
            assertThat(s.get("peerCount")).as("node %d peers", i).isEqualTo((long) NODES - 1);
            Map<?, ?> avg = (Map<?, ?>) s.get("averaging");
            assertThat((Long) avg.get("rounds")).isPositive();
            assertThat((Long) avg.get("exchanges")).as("node %d exchanges", i).isPositive();
            assertThat((Long) avg.get("merged")).as("node %d merges", i).isPositive();
            assertThat((Long) ((Map<?, ?>) s.get("bytesIn")).get(ModelExchange.PROTOCOL))
                    .isPositive();
            assertThat((Long) ((Map<?, ?>) s.get("bytesOut")).get(ModelExchange.PROTOCOL))
                    .isPositive();
            assertThat(((Number) s.get("accuracy")).doubleValue()).isBetween(0.0, 1.0);
            List<?> peers = (List<?>) gossip.peers().get(i).get("peers");
            assertThat(peers).hasSize(NODES - 1);
            long mergedFromPeers = 0;
            for (Object p : peers) {
                Object m = ((Map<?, ?>) p).get("merged");
                mergedFromPeers += m == null ? 0 : (Long) m;
            }
            assertThat(mergedFromPeers).isEqualTo(avg.get("merged"));
            // The node's own exchanges are timed per peer (what pacing by speed goes by).
            assertThat(peers)
                    .as("node %d: a peer with a measured exchange time", i)
                    .anySatisfy(p -> {
                        Map<?, ?> peer = (Map<?, ?>) p;
                        assertThat(((Number) peer.get("exchangeSeconds")).doubleValue())
                                .isBetween(0.0, 30.0);
                        assertThat(peer.get("slow")).isInstanceOf(Boolean.class);
                    });
        }
        double dAlone = alone.meanPairwiseDistance();
        double dGossip = gossip.meanPairwiseDistance();
        TestLog.figures("mean pairwise parameter distance: none %.4f, async %.4f%n", dAlone, dGossip);
        assertThat(dAlone).isPositive();
        assertThat(dGossip).isLessThan(dAlone / 2);
    }

    @ParameterizedTest
    @ValueSource(strings = {"fragmented", "fedbuff", "sync"})
    void everyStrategyExchangesOverTheDaemon(String strategy) throws Exception {
        TestLog.figures("seed " + SEED);
        Run r = run(strategy, writeShards(dir.resolve("shards")));
        long merged = 0;
        for (Map<String, Object> s : r.status()) {
            assertThat(s.get("strategy")).isEqualTo(strategy);
            assertThat((Long) ((Map<?, ?>) s.get("bytesOut")).get(ModelExchange.PROTOCOL))
                    .isPositive();
            merged += (Long) ((Map<?, ?>) s.get("averaging")).get("merged");
        }
        assertThat(merged).as("updates merged by the three nodes").isPositive();
    }

    /** Models quantized on the wire still reach and merge into the other daemons. */
    @Test
    void quantizedModelsAreExchanged() throws Exception {
        Run r = run("async", writeShards(dir.resolve("shards")), List.of("averaging.dtype=int8"));
        long merged = 0;
        for (Map<String, Object> s : r.status()) {
            merged += (Long) ((Map<?, ?>) s.get("averaging")).get("merged");
        }
        assertThat(merged).as("int8 updates merged by the three nodes").isPositive();
    }

    /**
     * {@code sync} holds a fast node at the barrier until a slow one has contributed: the fast node never gets
     * more than a round ahead. When the slow node stops, the fast one waits out {@code
     * averaging.round_timeout_seconds} (12 s here) and trains on.
     */
    @Test
    void syncHoldsTheFastNodeAtTheRoundBarrier() throws Exception {
        Path shards = writeShards(dir.resolve("shards"));
        PrivateKey fastKey = PrivateKey.generate();
        PrivateKey slowKey = PrivateKey.generate();
        String participants = "averaging.participants=[" + fastKey.peerId() + ", " + slowKey.peerId() + "]";
        NodeDaemon fast = startNode(
                "fast",
                fastKey,
                shards.resolve(ShardWriter.csvShardName(0)),
                // Longer than the slow node's start and a contribution's retries (up to 8 s apart), so that only
                // the slow node's stop below makes the fast one give up on a round.
                List.of(participants, "training.pause_ms=0", "averaging.round_timeout_seconds=12"));
        NodeDaemon slow = startNode(
                "slow",
                slowKey,
                shards.resolve(ShardWriter.csvShardName(1)),
                List.of(
                        participants,
                        "training.pause_ms=40",
                        "network.bootstrap=[" + fast.listenAddrs().getFirst() + "]"));
        NodeDaemonTest.waitFor(
                "40 steps of the slow node",
                Duration.ofSeconds(60),
                () -> slow.metrics().steps() >= 40);
        for (int i = 0; i < 20; i++) {
            long fastSteps = fast.metrics().steps();
            long slowSteps = slow.metrics().steps();
            assertThat(fastSteps)
                    .as("the fast node's steps against the slow node's %d", slowSteps)
                    .isLessThanOrEqualTo(slowSteps + 2 * 2);
            Thread.sleep(25);
        }
        assertThat(fast.metrics().steps()).isGreaterThanOrEqualTo(36);
        slow.close();
        long atClose = fast.metrics().steps();
        NodeDaemonTest.waitFor(
                "the fast node training on without the slow one",
                Duration.ofSeconds(60),
                () -> fast.metrics().steps() > atClose + 100);
        AveragingCounters.Waits waits = fast.metrics().averaging().waits();
        assertThat(waits.roundTimeouts()).isPositive();
        assertThat(waits.barrierWaitSeconds())
                .as("one round timeout of 12 s at least")
                .isGreaterThanOrEqualTo(12);
    }

    /**
     * {@code sync} with {@code training.epochs}: the node with fewer epochs finishes first and then keeps
     * contributing (with weight 0) to the rounds the other begins, so the other trains all its epochs without a
     * single round timeout (30 s here; before, it waited one out and then trained alone).
     */
    @Test
    void aSyncNodeThatFinishedItsEpochsKeepsTheOthersRoundsGoing() throws Exception {
        Path shards = writeShards(dir.resolve("shards"));
        PrivateKey shortKey = PrivateKey.generate();
        PrivateKey longKey = PrivateKey.generate();
        String participants = "averaging.participants=[" + shortKey.peerId() + ", " + longKey.peerId() + "]";
        NodeDaemon brief = startNode(
                "short",
                shortKey,
                shards.resolve(ShardWriter.csvShardName(0)),
                List.of(participants, "training.epochs=1", "averaging.round_timeout_seconds=30"));
        NodeDaemon longer = startNode(
                "long",
                longKey,
                shards.resolve(ShardWriter.csvShardName(1)),
                List.of(
                        participants,
                        "training.epochs=4",
                        "averaging.round_timeout_seconds=30",
                        "network.bootstrap=[" + brief.listenAddrs().getFirst() + "]"));
        assertThat(brief.awaitTraining(Duration.ofSeconds(60))).isTrue();
        long briefRounds = brief.metrics().averaging().rounds();
        long briefSteps = brief.metrics().steps();
        assertThat(longer.awaitTraining(Duration.ofSeconds(120))).isTrue();
        assertThat(longer.metrics().steps()).isGreaterThan(3 * briefSteps);
        assertThat(longer.metrics().averaging().waits().roundTimeouts())
                .as("rounds the longer-training node gave up on")
                .isZero();
        assertThat(brief.metrics().averaging().rounds())
                .as("rounds of the finished node after its training")
                .isGreaterThan(briefRounds);
        assertThat(brief.metrics().steps()).isEqualTo(briefSteps);
    }

    /**
     * {@code async} with {@code training.epochs}: once its epochs are done the node serves its model with a sample
     * count of 0, as the finished {@code sync} node above contributes with weight 0; a node stopped from outside
     * is not retired (it resumes with its data at its next start).
     */
    @Test
    void anAsyncNodeThatFinishedItsEpochsServesItsModelWithWeightZero() throws Exception {
        Path shards = writeShards(dir.resolve("shards"));
        NodeDaemon brief = startNode(
                "short",
                PrivateKey.generate(),
                shards.resolve(ShardWriter.csvShardName(0)),
                List.of("averaging.strategy=async", "training.epochs=1"));
        assertThat(brief.awaitTraining(Duration.ofSeconds(60))).isTrue();
        assertThat(brief.metrics().steps()).isPositive();
        assertThat(brief.averagingEngine().localModel().sampleCount()).isZero();

        NodeDaemon stopped = startNode(
                "stopped",
                PrivateKey.generate(),
                shards.resolve(ShardWriter.csvShardName(1)),
                List.of("averaging.strategy=async"));
        stopped.close();
        assertThat(stopped.awaitTraining(Duration.ofSeconds(60))).isTrue();
        assertThat(stopped.averagingEngine().localModel().sampleCount()).isPositive();
    }

    private NodeDaemon startNode(String name, PrivateKey key, Path shard, List<String> extra) throws Exception {
        Path home = dir.resolve(name);
        Files.createDirectories(home);
        KeyFile.create(home.resolve("identity.key"), key);
        Path yaml = home.resolve("node.yaml");
        Files.writeString(yaml, NodeTestDirs.baseYaml().replace("path: wdbc.csv", "path: " + shard));
        List<String> overrides = new ArrayList<>(List.of(
                "training.seed=" + SEED,
                "checkpoint.every_steps=1000",
                "averaging.strategy=sync",
                "averaging.every_steps=2"));
        overrides.addAll(extra);
        NodeDaemon d = NodeDaemon.start(ConfigLoader.load(yaml, overrides));
        started.add(d);
        return d;
    }

    /**
     * Straggler compensation between two async daemons: the node that pauses between its steps hears of versions far
     * ahead of its own steps and scales its steps up to the bound; the fast node's scale stays about 1.
     */
    @Test
    void aSlowAsyncDaemonScalesItsStepsAndTheFastOneDoesNot() throws Exception {
        Path shards = writeShards(dir.resolve("shards"));
        NodeDaemon fast = startNode(
                "fast",
                PrivateKey.generate(),
                shards.resolve(ShardWriter.csvShardName(0)),
                List.of("averaging.strategy=async", "training.pause_ms=0", "averaging.straggler_compensation=3"));
        NodeDaemon slow = startNode(
                "slow",
                PrivateKey.generate(),
                shards.resolve(ShardWriter.csvShardName(1)),
                List.of(
                        "averaging.strategy=async",
                        "training.pause_ms=40",
                        "averaging.straggler_compensation=3",
                        "network.bootstrap=[" + fast.listenAddrs().getFirst() + "]"));
        NodeDaemonTest.waitFor(
                "the slow node's steps scaled to the bound",
                Duration.ofSeconds(60),
                () -> slow.metrics().averaging().stepScale() > 2.5);
        assertThat(slow.metrics().averaging().stepScale()).isLessThanOrEqualTo(3.0);
        assertThat(fast.metrics().averaging().stepScale()).isLessThan(1.5);
        assertThat(fast.metrics().steps())
                .as("the fast node is the faster")
                .isGreaterThan(4 * slow.metrics().steps());
    }

    @Test
    void strategiesThatNamePeersNeedThem() throws Exception {
        Path yaml = NodeTestDirs.create(dir, "");
        assertThatThrownBy(() -> ConfigLoader.load(yaml, List.of("averaging.strategy=sync")))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("averaging.participants: required by averaging.strategy sync");
        assertThatThrownBy(() -> ConfigLoader.load(yaml, List.of("averaging.strategy=fedbuff")))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("averaging.aggregator: required by averaging.strategy fedbuff");
        assertThatThrownBy(() -> ConfigLoader.load(yaml, List.of("averaging.aggregator=nope")))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("averaging.aggregator: 'nope' is not a peer id");
        String a = PrivateKey.generate().peerId().toString();
        String b = PrivateKey.generate().peerId().toString();
        NodeConfig notListed = ConfigLoader.load(
                yaml, List.of("averaging.strategy=sync", "averaging.participants=[" + a + ", " + b + "]"));
        assertThatThrownBy(() -> NodeDaemon.start(notListed))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("averaging.participants: this node's peer id");
    }

    private Run run(String strategy, Path shards) throws Exception {
        return run(strategy, shards, List.of());
    }

    private Run run(String strategy, Path shards, List<String> extra) throws Exception {
        List<NodeDaemon> nodes = new ArrayList<>();
        List<String> addrs = new ArrayList<>();
        List<PrivateKey> keys = new ArrayList<>();
        for (int i = 0; i < NODES; i++) {
            keys.add(PrivateKey.generate());
        }
        for (int i = 0; i < NODES; i++) {
            Path home = dir.resolve(strategy).resolve("node-" + i);
            Files.createDirectories(home);
            KeyFile.create(home.resolve("identity.key"), keys.get(i));
            Path yaml = home.resolve("node.yaml");
            Files.writeString(
                    yaml,
                    NodeTestDirs.baseYaml()
                            .replace("path: wdbc.csv", "path: " + shards.resolve(ShardWriter.csvShardName(i))));
            List<String> overrides = new ArrayList<>(List.of(
                    "training.seed=" + SEED,
                    "training.epochs=15",
                    // These runs test what the strategies exchange, over a short run of about 200 steps: a
                    // schedule annealing over them (the default once epochs are set) would leave the models
                    // half-trained for reasons that are not the strategies'.
                    "training.lr_schedule=constant",
                    "averaging.max_drift_steps=0",
                    "averaging.weighting=uniform",
                    "training.pause_ms=8",
                    "checkpoint.every_steps=1000",
                    "averaging.strategy=" + strategy,
                    "averaging.every_steps=2",
                    // A run of under two seconds: the default pace of a few exchanges a second per peer would
                    // leave a handful of exchanges in it, too few to show what the strategy does with them.
                    "averaging.max_exchanges_per_second_per_peer=0",
                    "averaging.announce_every_seconds=0.3"));
            overrides.addAll(extra);
            if (strategy.equals("fedbuff")) {
                overrides.add("averaging.aggregator=" + keys.getFirst().peerId());
                overrides.add("averaging.buffer_size=2");
            }
            if (strategy.equals("sync")) {
                // Shards differ in size, so the nodes end their epochs after different numbers of rounds; the
                // others stop waiting for a finished one after this.
                overrides.add("averaging.round_timeout_seconds=2");
                overrides.add("averaging.participants=["
                        + String.join(
                                ", ",
                                keys.stream().map(k -> k.peerId().toString()).toList()) + "]");
            }
            if (!addrs.isEmpty()) {
                overrides.add("network.bootstrap=[" + String.join(", ", addrs) + "]");
            }
            NodeDaemon d = NodeDaemon.start(ConfigLoader.load(yaml, overrides));
            started.add(d);
            nodes.add(d);
            addrs.add(d.listenAddrs().getFirst());
        }
        for (NodeDaemon d : nodes) {
            assertThat(d.awaitTraining(Duration.ofSeconds(60))).isTrue();
        }
        List<Map<String, Object>> status = new ArrayList<>();
        List<Map<String, Object>> peers = new ArrayList<>();
        List<Map<String, Object>> members = new ArrayList<>();
        for (NodeDaemon d : nodes) {
            status.add(get(d, "/api/status"));
            peers.add(get(d, "/api/peers"));
            members.add(get(d, "/api/members"));
        }
        List<float[]> params = new ArrayList<>();
        for (NodeDaemon d : nodes) {
            d.close();
            params.add(new CheckpointStore(d.config().checkpointDir(), 3)
                    .loadLatest()
                    .orElseThrow()
                    .parameters());
        }
        for (NodeDaemon d : nodes) { // every byte sent on the model protocol is in the egress audit log
            AuditVerification v = EgressAuditLog.verify(d.config().auditDir());
            assertThat(v.ok()).as(v.problem()).isTrue();
            long[] audited = {0};
            long[] announced = {0};
            EgressAuditLog.read(d.config().auditDir(), rec -> {
                if (rec.protocol().equals(ModelExchange.PROTOCOL)) {
                    audited[0] += rec.bytes();
                }
                if (rec.kind().equals("announcement")) {
                    announced[0]++;
                }
            });
            // every announcement published on the consortium topic is recorded too
            assertThat(announced[0] > 0).isEqualTo(!strategy.equals("none"));
            long sent = d.metrics().bytesOut().getOrDefault(ModelExchange.PROTOCOL, 0L);
            // A write cut short by the close is recorded as handed to the stream, so the log may hold a little more.
            assertThat(audited[0]).as("bytes in the audit log").isGreaterThanOrEqualTo(sent);
            assertThat(audited[0] > 0).isEqualTo(!strategy.equals("none"));
        }
        return new Run(params, status, peers, members);
    }

    private Map<String, Object> get(NodeDaemon d, String path) throws Exception {
        HttpResponse<String> r = http.send(
                HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + d.apiPort() + path))
                        .build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(r.statusCode()).isEqualTo(200);
        return dev.chorus.learning.json.JsonReader.parseObject(r.body());
    }

    private static Path writeShards(Path out) throws Exception {
        CsvData csv = TestDatasets.wdbc();
        ShardWriter.writeCsv(
                csv, Partitioner.parse("dirichlet:1.0").partition(PartitionSource.of(csv), NODES, SEED), out);
        return out;
    }
}
