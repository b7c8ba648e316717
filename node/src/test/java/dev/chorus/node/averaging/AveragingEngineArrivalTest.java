package dev.chorus.node.averaging;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import dev.chorus.aggregation.AveragingStrategy;
import dev.chorus.aggregation.ModelFragmentation;
import dev.chorus.aggregation.ModelUpdate;
import dev.chorus.aggregation.weighting.UpdateWeighting;
import dev.chorus.learning.train.TrainingStep;
import java.time.Duration;
import java.time.InstantSource;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * What a peer sends is in the trainer's model from the step that takes it in, whichever gossip strategy gathers it:
 * the steps trained next, a snapshot taken after that step and the model a node ends with once its last step is
 * done all include it. The strategies are built as the daemon and the testnet build them ({@link AveragingKind}); a
 * model under 8192 parameters makes the fragmented strategy send it whole, as one fragment.
 */
class AveragingEngineArrivalTest {

    private static final int FEATURES = 4;
    private static final float OFFSET = 2f;

    /** A transport with one peer, whose pushes and pulls never complete (nothing comes back from them). */
    private static final class SilentTransport implements ExchangeTransport {
        @Override
        public List<String> peers() {
            return List.of("peer-b");
        }

        @Override
        public CompletableFuture<ModelUpdate> pull(String peer, ModelUpdate offer) {
            return new CompletableFuture<>();
        }

        @Override
        public CompletableFuture<Void> push(String peer, ModelUpdate update) {
            return new CompletableFuture<>();
        }
    }

    private static StrategySettings settings() {
        return new StrategySettings(
                UpdateWeighting.uniform(),
                Duration.ofSeconds(30),
                new StrategySettings.Fragmenting(0, 3, 11, true),
                new StrategySettings.Buffering(null, 5),
                Set.of(),
                StrategySettings.Robustness.NONE,
                StrategySettings.Screening.off());
    }

    /** Peer b's model, {@link #OFFSET} above {@code own} everywhere, as the strategy takes it from a peer. */
    private static ModelUpdate peerModel(AveragingStrategy strategy, float[] own) {
        float[] theirs = own.clone();
        for (int i = 0; i < theirs.length; i++) {
            theirs[i] += OFFSET;
        }
        if (strategy.fragmentation().isEmpty()) {
            return ModelUpdate.full("peer-b", 0, 100, theirs);
        }
        ModelFragmentation cut = strategy.fragmentation().orElseThrow();
        assertThat(cut.fragmentCount()).as("fragments of a small model").isEqualTo(1);
        return ModelUpdate.fragment("peer-b", 0, 100, own.length, cut.indices(0), cut.gather(0, theirs));
    }

    @ParameterizedTest
    @EnumSource(
            value = AveragingKind.class,
            names = {"ASYNC", "FRAGMENTED"})
    void aPeersModelIsInTheTrainersModelFromTheStepThatTakesItIn(AveragingKind kind) {
        TestModel m = TestModel.logreg(FEATURES);
        AveragingStrategy strategy = kind.create(settings(), "peer-a", m.params().length);
        float[] own = m.params().clone();
        // Rounds every 10 steps: step 1 takes the peer's model in, and is not the start of a round.
        AveragingEngine engine = new AveragingEngine(
                m.local(),
                strategy,
                new SilentTransport(),
                new SnapshotBuffer(),
                AveragingEngine.Config.defaults(1).withExchangeEvery(10),
                InstantSource.system());
        try {
            assertThat(engine.offer(peerModel(strategy, own))).isTrue();
            engine.afterStep(new TrainingStep(1, 0, 8, 0.5f, m.model()));

            assertThat(engine.stats().incoming().accepted()).isEqualTo(1);
            float[] after = new float[own.length];
            m.model().copyParametersTo(after);
            // Equal weights: the average of the two models, half the offset above this node's own.
            for (int i = 0; i < own.length; i++) {
                assertThat(after[i]).as("%s, coordinate %d", kind, i).isCloseTo(own[i] + OFFSET / 2, within(1e-5f));
            }
        } finally {
            engine.close();
            m.close();
        }
    }

    /**
     * Once training has ended the node serves its model with a sample count of 0: the values and version peers pull
     * stay those it trained to, and peers that weight by sample count no longer move towards them.
     */
    @ParameterizedTest
    @EnumSource(
            value = AveragingKind.class,
            names = {"ASYNC", "FRAGMENTED"})
    void aRetiredNodeServesItsModelWithASampleCountOfZero(AveragingKind kind) throws Exception {
        TestModel m = TestModel.logreg(FEATURES);
        AveragingStrategy strategy = kind.create(settings(), "peer-a", m.params().length);
        SnapshotBuffer served = new SnapshotBuffer();
        AveragingEngine engine = new AveragingEngine(
                m.local(),
                strategy,
                new SilentTransport(),
                served,
                AveragingEngine.Config.defaults(1).withExchangeEvery(10),
                InstantSource.system());
        try {
            long samples;
            long version;
            float[] values;
            try (SnapshotBuffer.Lease before = served.acquire()) {
                samples = before.sampleCount();
                version = before.version();
                values = before.values().clone();
            }
            assertThat(samples).as("a training node's count").isPositive();

            engine.retire();

            try (SnapshotBuffer.Lease after = served.acquire()) {
                assertThat(after.sampleCount()).isZero();
                assertThat(after.version()).isEqualTo(version);
                assertThat(after.values()).containsExactly(values);
            }
            assertThat(engine.localModel().sampleCount()).isZero();
        } finally {
            engine.close();
            m.close();
        }
    }
}
