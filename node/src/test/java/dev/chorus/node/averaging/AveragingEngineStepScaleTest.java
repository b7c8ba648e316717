package dev.chorus.node.averaging;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import dev.chorus.aggregation.AveragingMessage;
import dev.chorus.aggregation.AveragingStrategy;
import dev.chorus.aggregation.DeliveryFailure;
import dev.chorus.aggregation.LocalModel;
import dev.chorus.aggregation.ModelUpdate;
import dev.chorus.aggregation.Outbound;
import dev.chorus.aggregation.Receipt;
import dev.chorus.learning.train.TrainingStep;
import java.time.InstantSource;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.random.RandomGenerator;
import org.junit.jupiter.api.Test;

/**
 * Straggler compensation in the engine: a node whose merges bring versions four times as fast as its own steps
 * takes its steps four times as long, once it has seen enough of them; the fastest node, a strategy whose versions
 * mean something else, and a node with compensation off take them as they are; and a model replaced outside a step
 * is never scaled.
 */
class AveragingEngineStepScaleTest {

    private static final float STEP = 0.01f;

    /** Every round "merges" a consortium's model equal to this node's, but {@code ahead} versions newer. */
    private static final class FasterConsortium implements AveragingStrategy {
        final long ahead;
        final boolean keepsNewest;

        FasterConsortium(long ahead, boolean keepsNewest) {
            this.ahead = ahead;
            this.keepsNewest = keepsNewest;
        }

        @Override
        public void configure(LocalModel local, List<String> peers, RandomGenerator random, InstantSource clock) {
            local.setVersion(local.version() + ahead);
        }

        @Override
        public boolean keepsTheNewestVersion() {
            return keepsNewest;
        }

        @Override
        public Outbound pollOutbound() {
            return null;
        }

        @Override
        public int pendingOutbound() {
            return 0;
        }

        @Override
        public Receipt receive(AveragingMessage message, LocalModel local, InstantSource clock) {
            throw new AssertionError("nothing arrives here");
        }

        @Override
        public void onFailure(DeliveryFailure failure, LocalModel local, InstantSource clock) {}
    }

    private static final class NoPeers implements ExchangeTransport {
        @Override
        public List<String> peers() {
            return List.of();
        }

        @Override
        public CompletableFuture<ModelUpdate> pull(String peer, ModelUpdate offer) {
            throw new AssertionError("no peers");
        }

        @Override
        public CompletableFuture<Void> push(String peer, ModelUpdate update) {
            throw new AssertionError("no peers");
        }
    }

    /**
     * Trains {@code steps} steps of +{@link #STEP} on every parameter, one round a step, and returns how far the
     * last step moved the first parameter.
     */
    private static float lastStep(AveragingStrategy strategy, double maxScale, int steps, boolean replaceBeforeLast) {
        TestModel m = TestModel.logreg(4);
        AveragingEngine engine = new AveragingEngine(
                m.local(),
                strategy,
                new NoPeers(),
                new SnapshotBuffer(),
                AveragingEngine.Config.defaults(1).withExchangeEvery(1).withMaxStepScale(maxScale),
                InstantSource.system());
        try {
            float[] p = new float[m.model().parameterCount()];
            float before = 0;
            for (int s = 1; s <= steps; s++) {
                if (s == steps && replaceBeforeLast) {
                    m.model().copyParametersTo(p);
                    p[0] = 0.5f;
                    m.model().setParameters(p);
                    engine.parametersReplaced();
                }
                m.model().copyParametersTo(p);
                before = p[0];
                for (int i = 0; i < p.length; i++) {
                    p[i] += STEP;
                }
                m.model().setParameters(p);
                engine.afterStep(new TrainingStep(s, 0, 8, 0.5f, m.model()));
            }
            m.model().copyParametersTo(p);
            return p[0] - before;
        } finally {
            engine.close();
            m.close();
        }
    }

    @Test
    void aNodeAQuarterOfTheConsortiumsPaceTakesStepsFourTimesAsLong() {
        float moved = lastStep(new FasterConsortium(3, true), 8, 200, false);
        assertThat(moved).isCloseTo(4 * STEP, within(1e-4f));
    }

    @Test
    void theBoundCapsTheScale() {
        float moved = lastStep(new FasterConsortium(9, true), 3, 200, false);
        assertThat(moved).isCloseTo(3 * STEP, within(1e-4f));
    }

    @Test
    void noScaleForTheFastestNodeWhenOffOrWhereVersionsCountSomethingElse() {
        assertThat(lastStep(new FasterConsortium(0, true), 8, 200, false)).isCloseTo(STEP, within(1e-5f));
        assertThat(lastStep(new FasterConsortium(3, true), 1, 200, false)).isCloseTo(STEP, within(1e-5f));
        assertThat(lastStep(new FasterConsortium(3, false), 8, 200, false)).isCloseTo(STEP, within(1e-5f));
    }

    @Test
    void aModelReplacedOutsideAStepIsNotScaled() {
        // Without the notice the replacement (to 0.5) would count as the step's displacement and be scaled by 4.
        float moved = lastStep(new FasterConsortium(3, true), 8, 200, true);
        assertThat(moved).isCloseTo(STEP, within(1e-5f));
    }
}
