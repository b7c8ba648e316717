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
 * mean something else, and a node with compensation off take them as they are; a model replaced outside a step
 * is never scaled; and replies behind this node's version count against its pace where pushes behind do not.
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

    /**
     * Pulls from one peer every round (at most one pull outstanding) and merges what arrives, replies and pushes alike,
     * by taking the newer version.
     */
    private static final class NewestOfWhatArrives implements AveragingStrategy {
        final boolean pulls;
        boolean pulling;
        Outbound queued;

        NewestOfWhatArrives(boolean pulls) {
            this.pulls = pulls;
        }

        @Override
        public void configure(LocalModel local, List<String> peers, RandomGenerator random, InstantSource clock) {
            if (pulls && !pulling) {
                pulling = true;
                queued =
                        new Outbound("peer", new dev.chorus.aggregation.PullRequest(local.id(), local.version(), null));
            }
        }

        @Override
        public boolean keepsTheNewestVersion() {
            return true;
        }

        @Override
        public Outbound pollOutbound() {
            Outbound o = queued;
            queued = null;
            return o;
        }

        @Override
        public int pendingOutbound() {
            return queued == null ? 0 : 1;
        }

        @Override
        public Receipt receive(AveragingMessage message, LocalModel local, InstantSource clock) {
            pulling = false;
            return receiveUnsolicited(message, local, clock);
        }

        @Override
        public Receipt receiveUnsolicited(AveragingMessage message, LocalModel local, InstantSource clock) {
            local.setVersion(Math.max(local.version(), ((ModelUpdate) message).version()));
            return Receipt.merged();
        }

        @Override
        public void onFailure(DeliveryFailure failure, LocalModel local, InstantSource clock) {
            pulling = false;
        }
    }

    /** One peer, whose answers to pulls the test gives: each pull's future waits in {@link #pulls}. */
    private static final class OnePeer implements ExchangeTransport {
        final java.util.concurrent.BlockingQueue<CompletableFuture<ModelUpdate>> pulls =
                new java.util.concurrent.LinkedBlockingQueue<>();

        @Override
        public List<String> peers() {
            return List.of("peer");
        }

        @Override
        public CompletableFuture<ModelUpdate> pull(String peer, ModelUpdate offer) {
            CompletableFuture<ModelUpdate> answer = new CompletableFuture<>();
            pulls.add(answer);
            return answer;
        }

        @Override
        public CompletableFuture<Void> push(String peer, ModelUpdate update) {
            throw new AssertionError("this strategy only pulls");
        }
    }

    /**
     * 400 steps, one merge every other step: versions alternately 12 ahead and 12 behind this node's, as replies to
     * its pulls or as pushes. Returns the engine's scale at the end.
     */
    private static double scaleAfterMergesAheadAndBehind(boolean asReplies) throws InterruptedException {
        TestModel m = TestModel.logreg(4);
        LocalModel local = m.local();
        OnePeer peer = new OnePeer();
        AveragingEngine engine = new AveragingEngine(
                local,
                new NewestOfWhatArrives(asReplies),
                peer,
                new SnapshotBuffer(),
                // The drift bound holds each step until the reply answered after the step before has landed.
                AveragingEngine.Config.defaults(1)
                        .withExchangeEvery(2)
                        .withMaxDriftSteps(1)
                        .withMaxStepScale(8),
                InstantSource.system());
        try {
            for (int s = 1; s <= 400; s++) {
                engine.afterStep(new TrainingStep(s, 0, 8, 0.5f, m.model()));
                if (s % 2 == 1) {
                    continue;
                }
                long v = Math.max(0, local.version() + (s % 4 == 0 ? 12 : -12));
                ModelUpdate u = ModelUpdate.full("peer", v, 8, local.params().clone());
                if (asReplies) {
                    // The round this step began pulled; the next step merges the answer.
                    CompletableFuture<ModelUpdate> answer = peer.pulls.poll(10, java.util.concurrent.TimeUnit.SECONDS);
                    assertThat(answer).as("the pull of step %d", s).isNotNull();
                    answer.complete(u);
                } else {
                    assertThat(engine.offer(u)).isTrue();
                }
            }
            return engine.stepScale();
        } finally {
            engine.close();
            m.close();
        }
    }

    @Test
    void repliesBehindThisNodeCountAgainstItsPaceAndPushesBehindDoNot() throws InterruptedException {
        // Replies: the jumps of 12 and the gaps of 12 behind cancel, and the node is as fast as its peer.
        assertThat(scaleAfterMergesAheadAndBehind(true)).isEqualTo(1.0);
        // Pushes may have waited in their sender's queue: only the jumps count, 12 versions every 4 steps.
        assertThat(scaleAfterMergesAheadAndBehind(false)).isGreaterThan(3.0);
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
