package dev.chorus.node.averaging;

import static org.assertj.core.api.Assertions.assertThat;

import dev.chorus.aggregation.AveragingMessage;
import dev.chorus.aggregation.AveragingStrategy;
import dev.chorus.aggregation.DeliveryFailure;
import dev.chorus.aggregation.LocalModel;
import dev.chorus.aggregation.ModelUpdate;
import dev.chorus.aggregation.Outbound;
import dev.chorus.aggregation.Receipt;
import dev.chorus.aggregation.async.GossipAveraging;
import dev.chorus.aggregation.weighting.UpdateWeighting;
import dev.chorus.gossip.core.Stream;
import dev.chorus.gossip.host.Host;
import dev.chorus.gossip.host.HostConfig;
import dev.chorus.gossip.identity.PrivateKey;
import dev.chorus.gossip.multiaddr.Multiaddr;
import dev.chorus.learning.data.Dataset;
import dev.chorus.learning.data.Standardizer;
import dev.chorus.learning.data.TestDatasets;
import dev.chorus.learning.data.TrainTestSplit;
import dev.chorus.learning.eval.Evaluation;
import dev.chorus.learning.model.ModelSpec;
import dev.chorus.learning.model.Sequential;
import dev.chorus.learning.optim.OptimizerSpec;
import dev.chorus.learning.tensor.TensorBackend;
import dev.chorus.learning.tensor.TensorBackends;
import dev.chorus.learning.train.Trainer;
import dev.chorus.learning.train.TrainingConfig;
import dev.chorus.learning.train.TrainingStats;
import dev.chorus.node.daemon.NodeAveraging;
import dev.chorus.node.protocol.ArchitectureHash;
import dev.chorus.node.protocol.Dtype;
import dev.chorus.node.protocol.ErrorCode;
import dev.chorus.node.protocol.ModelBodyEncoder;
import dev.chorus.node.protocol.ModelExchange;
import dev.chorus.privacy.audit.EgressRecorder;
import dev.chorus.testsupport.TestLog;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.time.Duration;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.random.RandomGenerator;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Real hosts on loopback, each training logistic regression on its shard of WDBC, averaging through
 * {@link AveragingEngine} with asynchronous push-pull gossip.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class AveragingEngineLoopbackTest {

    private static final long SEED = 11;
    private static final int EPOCHS = 60;
    private static final double ACCURACY_BOUND = 0.90;

    private static Dataset train;
    private static Dataset test;

    private final List<AutoCloseable> closing = new ArrayList<>();

    @BeforeAll
    static void load() {
        TestLog.figures("seed " + SEED);
        Dataset all = TestDatasets.wdbc().dataset();
        TrainTestSplit split = TrainTestSplit.stratified(all.labels(), all.classes(), 0.25, SEED);
        Dataset rawTrain = all.subset(split.train());
        Standardizer s = Standardizer.fit(rawTrain);
        train = s.apply(rawTrain);
        test = s.apply(all.subset(split.test()));
    }

    @AfterEach
    void close() throws Exception {
        for (AutoCloseable c : closing.reversed()) {
            c.close();
        }
    }

    private static Dataset shard(int k, int of) {
        int n = (train.rows() - k + of - 1) / of;
        int[] rows = new int[n];
        for (int i = 0; i < n; i++) {
            rows[i] = k + i * of;
        }
        return train.subset(rows);
    }

    /**
     * Records which senders' updates reached the strategy (and so, possibly, the model), and which of them came as
     * replies to this node's pulls ({@code receive}) or unasked ({@code receiveUnsolicited}).
     */
    private static final class RecordingStrategy implements AveragingStrategy {
        final AveragingStrategy delegate;
        final Set<String> senders = ConcurrentHashMap.newKeySet();
        final Set<String> replySenders = ConcurrentHashMap.newKeySet();
        final Set<String> unsolicitedSenders = ConcurrentHashMap.newKeySet();

        RecordingStrategy(AveragingStrategy delegate) {
            this.delegate = delegate;
        }

        @Override
        public void configure(LocalModel local, List<String> peers, RandomGenerator random, InstantSource clock) {
            delegate.configure(local, peers, random, clock);
        }

        @Override
        public Outbound pollOutbound() {
            return delegate.pollOutbound();
        }

        @Override
        public int pendingOutbound() {
            return delegate.pendingOutbound();
        }

        @Override
        public AveragingMessage pollAbandoned() {
            return delegate.pollAbandoned();
        }

        @Override
        public long patienceDeadlineMillis() {
            return delegate.patienceDeadlineMillis();
        }

        @Override
        public Receipt receive(AveragingMessage message, LocalModel local, InstantSource clock) {
            senders.add(message.sender());
            replySenders.add(message.sender());
            return delegate.receive(message, local, clock);
        }

        @Override
        public Receipt receiveUnsolicited(AveragingMessage message, LocalModel local, InstantSource clock) {
            senders.add(message.sender());
            unsolicitedSenders.add(message.sender());
            return delegate.receiveUnsolicited(message, local, clock);
        }

        @Override
        public void onFailure(DeliveryFailure failure, LocalModel local, InstantSource clock) {
            delegate.onFailure(failure, local, clock);
        }

        @Override
        public void mergeArrived(LocalModel local) {
            delegate.mergeArrived(local);
        }
    }

    private record NodeResult(float[] params, double accuracy, double stepsPerSecond, AveragingEngine engine) {}

    private final class Node {
        final Trainer trainer;
        final Sequential model;
        final Dataset data;
        final Host host;
        final NodeAveraging averaging;
        final AveragingEngine engine;
        final RecordingStrategy strategy;
        volatile TrainingStats stats;

        Node(int index, int of, boolean exchange, long sleepMillisPerStep, int epochs) {
            TensorBackend backend = TensorBackends.create("reference", 1);
            closing.add(backend);
            data = shard(index, of);
            model = ModelSpec.parse("logreg").build(backend, data.cols(), data.classes(), SEED + 100 * index);
            trainer = new Trainer(
                    model,
                    OptimizerSpec.parse("sgd:lr=0.05,momentum=0.9").create(),
                    new TrainingConfig(epochs, 16, SEED + index));
            trainer.addStepListener(step -> {
                try {
                    Thread.sleep(sleepMillisPerStep); // stands in for the compute of a real model
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            });
            if (exchange) {
                host = Host.start(HostConfig.defaults(PrivateKey.generate())
                                .withListenAddrs(List.of(Multiaddr.parse("/ip4/127.0.0.1/tcp/0")))
                                .withGracePeriod(Duration.ofMillis(100)))
                        .join();
                closing.add(host);
                strategy = new RecordingStrategy(new GossipAveraging(new GossipAveraging.Config(
                        GossipAveraging.Mode.PUSH_PULL, UpdateWeighting.uniform(), Duration.ofSeconds(2))));
                averaging = NodeAveraging.start(
                        host,
                        model,
                        0,
                        data.rows(),
                        strategy,
                        new NodeAveraging.Settings(
                                AveragingEngine.Config.defaults(SEED + index).withExchangeEvery(4),
                                ModelExchange.Config.defaults(),
                                EgressRecorder.NONE));
                engine = averaging.engine();
                trainer.addStepListener(engine);
                closing.add(averaging);
            } else {
                host = null;
                averaging = null;
                engine = null;
                strategy = null;
            }
        }

        Thread start() {
            Thread t =
                    new Thread(() -> stats = trainer.train(data), "train-" + (host == null ? "solo" : host.peerId()));
            t.start();
            return t;
        }

        NodeResult result() {
            float[] p = new float[model.parameterCount()];
            model.copyParametersTo(p);
            Evaluation e = Evaluation.of(test.labels(), model.predictProbabilities(test), test.classes());
            return new NodeResult(p, e.accuracy(), stats.steps() / stats.seconds(), engine);
        }
    }

    private static void connectAll(List<Node> nodes) {
        for (int i = 0; i < nodes.size(); i++) {
            for (int j = i + 1; j < nodes.size(); j++) {
                nodes.get(i)
                        .host
                        .connect(nodes.get(j).host.listenAddrs().get(0))
                        .join();
            }
        }
    }

    private static double meanPairwiseDistance(List<float[]> ps) {
        double sum = 0;
        int pairs = 0;
        for (int i = 0; i < ps.size(); i++) {
            for (int j = i + 1; j < ps.size(); j++) {
                double d = 0;
                for (int k = 0; k < ps.get(i).length; k++) {
                    double x = ps.get(i)[k] - ps.get(j)[k];
                    d += x * x;
                }
                sum += Math.sqrt(d);
                pairs++;
            }
        }
        return sum / pairs;
    }

    private List<NodeResult> run(List<Node> nodes) throws InterruptedException {
        List<Thread> threads = new ArrayList<>();
        for (Node n : nodes) {
            threads.add(n.start());
        }
        for (Thread t : threads) {
            t.join();
        }
        List<NodeResult> out = new ArrayList<>();
        for (Node n : nodes) {
            out.add(n.result());
        }
        return out;
    }

    @Test
    void modelsMoveTowardConsensusAndHostileUpdatesNeverReachThem() throws Exception {
        List<Node> solo = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            solo.add(new Node(i, 4, false, 1, EPOCHS));
        }
        List<NodeResult> alone = run(solo);

        List<Node> nodes = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            nodes.add(new Node(i, 4, true, 1, EPOCHS));
        }
        connectAll(nodes);

        // a hostile peer: a model of another architecture, and raw bodies with NaN values
        Node target = nodes.get(0);
        Host hostile = Host.start(HostConfig.defaults(PrivateKey.generate())
                        .withListenAddrs(List.of(Multiaddr.parse("/ip4/127.0.0.1/tcp/0"))))
                .join();
        closing.add(hostile);
        hostile.connect(target.host.listenAddrs().get(0)).join();
        int dim = target.model.parameterCount();
        byte[] arch = ArchitectureHash.of(target.model);
        ModelExchange wrongArch = new ModelExchange(
                hostile,
                ArchitectureHash.of("mlp:8", dim, 2, dim),
                dim,
                ModelExchange.Config.defaults(),
                new SnapshotBuffer(),
                null);
        AtomicBoolean training = new AtomicBoolean(true);
        Thread attacker = new Thread(() -> {
            while (training.get()) {
                float[] huge = new float[dim];
                java.util.Arrays.fill(huge, 1e6f);
                wrongArch
                        .push(target.host.peerId().toBase58(), ModelUpdate.full("h", 1 << 30, 1 << 30, huge))
                        .exceptionally(e -> null)
                        .join();
                ModelBodyEncoder e =
                        new ModelBodyEncoder(arch, ModelUpdate.full("h", 1, 1, new float[dim]), Dtype.F32, 1024, null);
                byte[] header = e.headerFrame();
                byte[] chunk = e.nextChunkFrame();
                ByteBuffer.wrap(chunk).order(ByteOrder.LITTLE_ENDIAN).putFloat(16, Float.NaN);
                try {
                    Stream s = hostile.newStream(target.host.peerId(), ModelExchange.PROTOCOL)
                            .join();
                    s.write(header).join();
                    s.write(chunk).join();
                    s.closeWrite().join();
                    s.readToEnd(4096).exceptionally(x -> null).join();
                    s.reset();
                    Thread.sleep(10);
                } catch (RuntimeException | InterruptedException ignored) {
                    // refusals may reset the stream; keep attacking
                }
            }
        });
        attacker.start();
        List<NodeResult> together = run(nodes);
        training.set(false);
        attacker.join();

        double apart =
                meanPairwiseDistance(alone.stream().map(NodeResult::params).toList());
        double close =
                meanPairwiseDistance(together.stream().map(NodeResult::params).toList());
        TestLog.figures("mean pairwise distance: %.4f without exchange, %.4f with%n", apart, close);
        for (NodeResult r : together) {
            AveragingEngine.Stats s = r.engine().stats();
            TestLog.figures(
                    "accuracy %.4f, %.0f steps/s, rounds %d, sent %d, failures %d, accepted %d, bytes out %d in %d%n",
                    r.accuracy(),
                    r.stepsPerSecond(),
                    s.rounds(),
                    s.outgoing().sent(),
                    s.outgoing().sendFailures(),
                    s.incoming().accepted(),
                    s.traffic().bytesSent(),
                    s.traffic().bytesReceived());
            assertThat(r.accuracy()).isGreaterThanOrEqualTo(ACCURACY_BOUND);
            assertThat(s.incoming().accepted()).isPositive();
            assertThat(s.traffic().bytesSent()).isPositive();
        }
        assertThat(close).isLessThan(apart * 0.5);
        for (Node n : nodes) {
            // Push-pull: each node's pulls bring replies, and its peers' pulls bring their offers, told apart.
            assertThat(n.strategy.replySenders).as("replies to its pulls").isNotEmpty();
            assertThat(n.strategy.unsolicitedSenders)
                    .as("offers with its peers' pulls")
                    .isNotEmpty();
        }

        ModelExchange targetExchange = target.averaging.exchange();
        TestLog.figures(
                "hostile refused: %d wrong architecture, %d invalid values%n",
                targetExchange.refusals(ErrorCode.WRONG_ARCHITECTURE),
                targetExchange.refusals(ErrorCode.INVALID_VALUES));
        assertThat(targetExchange.refusals(ErrorCode.WRONG_ARCHITECTURE)).isPositive();
        assertThat(targetExchange.refusals(ErrorCode.INVALID_VALUES)).isPositive();
        assertThat(target.strategy.senders).doesNotContain(hostile.peerId().toBase58());
        // Its faults banned it: its later streams were reset unread, and it is never chosen for an exchange.
        assertThat(targetExchange.standing().banned(hostile.peerId().toBase58()))
                .isTrue();
        assertThat(targetExchange.standing().bans()).isEqualTo(1);
        assertThat(targetExchange.bannedStreams()).isPositive();
        assertThat(targetExchange.peers()).doesNotContain(hostile.peerId().toBase58());
        for (float v : together.get(0).params()) {
            assertThat(Math.abs(v)).isLessThan(1e5f);
        }
    }

    @Test
    void aPeerClaimingAHugeVersionMovesTheLocalVersionOnlyByTheBoundedLead() throws Exception {
        Node target = new Node(0, 1, true, 1, 10);
        Host inflater = Host.start(HostConfig.defaults(PrivateKey.generate())
                        .withListenAddrs(List.of(Multiaddr.parse("/ip4/127.0.0.1/tcp/0"))))
                .join();
        closing.add(inflater);
        inflater.connect(target.host.listenAddrs().get(0)).join();
        int dim = target.model.parameterCount();
        ModelExchange x = new ModelExchange(
                inflater,
                ArchitectureHash.of(target.model),
                dim,
                ModelExchange.Config.defaults(),
                new SnapshotBuffer(),
                null);
        AtomicBoolean training = new AtomicBoolean(true);
        Thread attacker = new Thread(() -> {
            while (training.get()) {
                x.push(target.host.peerId().toBase58(), ModelUpdate.full("i", Long.MAX_VALUE - 1, 10, new float[dim]))
                        .exceptionally(e -> null)
                        .join();
                try {
                    Thread.sleep(20);
                } catch (InterruptedException e) {
                    return;
                }
            }
        });
        attacker.start();
        NodeResult r = run(List.of(target)).getFirst();
        training.set(false);
        attacker.join();
        AveragingEngine.Stats s = r.engine().stats();
        long version = target.engine.localModel().version();
        TestLog.figures(
                "steps %d, inflated updates %d received, %d clamped; local version %d%n",
                s.steps(), s.incoming().received(), s.incoming().versionsClamped(), version);
        assertThat(s.incoming().versionsClamped()).isPositive();
        long lead = AveragingEngine.Config.defaults(0).maxVersionLead();
        // Each clamped update lifts the version by at most the lead; steps lift it by one each.
        assertThat(version).isLessThanOrEqualTo(s.steps() + s.incoming().versionsClamped() * lead);
        assertThat(version).isLessThan(Long.MAX_VALUE / 2);
    }

    @Test
    void aStragglerDoesNotSlowTheFastNodes() throws Exception {
        List<Node> fast = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            fast.add(new Node(i, 4, true, 1, EPOCHS));
        }
        connectAll(fast);
        double baseline = run(fast).stream()
                .mapToDouble(NodeResult::stepsPerSecond)
                .average()
                .orElseThrow();

        List<Node> mixed = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            mixed.add(new Node(i, 4, true, 1, EPOCHS));
        }
        Node straggler = new Node(3, 4, true, 25, 1000);
        mixed.add(straggler);
        connectAll(mixed);
        Thread slow = straggler.start();
        List<NodeResult> withStraggler = run(mixed.subList(0, 3));
        straggler.trainer.requestStop();
        slow.join();
        double fastWithStraggler = withStraggler.stream()
                .mapToDouble(NodeResult::stepsPerSecond)
                .average()
                .orElseThrow();
        double stragglerRate = straggler.stats.steps() / straggler.stats.seconds();
        TestLog.figures(
                "fast nodes: %.0f steps/s alone, %.0f steps/s with a straggler at %.0f steps/s (ratio %.2f)%n",
                baseline, fastWithStraggler, stragglerRate, fastWithStraggler / baseline);
        assertThat(stragglerRate).isLessThan(baseline / 4); // it really is a straggler
        assertThat(fastWithStraggler / baseline).isGreaterThan(0.5);
        assertThat(straggler.engine.stats().incoming().accepted()
                        + withStraggler.get(0).engine().stats().incoming().accepted())
                .isPositive();
    }
}
