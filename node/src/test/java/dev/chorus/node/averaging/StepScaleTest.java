package dev.chorus.node.averaging;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** The pace ratio read from version growth, its bounds, and the displacement it scales. */
class StepScaleTest {

    /**
     * A node whose version grows r times as fast as its own steps (merges with a consortium r times its pace, at
     * random moments) settles at r, or at the bound when r is above it.
     */
    @ParameterizedTest(name = "seed {0}")
    @ValueSource(longs = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10})
    void aSlowNodeSettlesAtTheConsortiumsPaceOverItsOwnWithinTheBound(long seed) {
        SplittableRandom r = new SplittableRandom(seed);
        double ratio = 1 + r.nextDouble() * 11;
        double max = 2 + r.nextInt(9);
        StepScale scale = new StepScale(max);
        double owed = 0;
        for (int step = 0; step < 20_000; step++) {
            owed += ratio - 1;
            long gain = 1;
            // A merge on about one step in three brings the versions the consortium took meanwhile.
            if (r.nextInt(3) == 0) {
                gain += (long) owed;
                owed -= (long) owed;
            }
            scale.afterStep(gain);
        }
        assertThat(scale.factor()).isCloseTo(Math.min(ratio, max), within(0.06 * Math.min(ratio, max)));
    }

    /**
     * Eight nodes that keep the larger merged version, exchanging with a random peer every ten steps. Of the same mean
     * pace but running in bursts, they stay near 1, where counting only the jumps reads the bursts as pace (checked
     * here too); one node at a quarter of the pace still reads about 4.
     */
    @ParameterizedTest(name = "seed {0}")
    @ValueSource(longs = {1, 2, 3, 4, 5})
    void nodesOfOnePaceRunningInBurstsStayNearOneAndAStragglerReadsItsRatio(long seed) {
        double[] equal = simulateConsortium(seed, new double[] {1, 1, 1, 1, 1, 1, 1, 1}, true);
        double[] jumpsOnly = simulateConsortium(seed, new double[] {1, 1, 1, 1, 1, 1, 1, 1}, false);
        double[] straggler = simulateConsortium(seed, new double[] {1, 1, 1, 1, 1, 1, 1, 0.25}, true);
        for (int i = 0; i < 8; i++) {
            assertThat(equal[i]).as("node %d of equal pace", i).isLessThan(1.1);
            assertThat(jumpsOnly[i]).as("node %d, jumps only", i).isGreaterThan(1.3);
        }
        for (int i = 0; i < 7; i++) {
            assertThat(straggler[i]).as("fast node %d beside a straggler", i).isLessThan(1.1);
        }
        assertThat(straggler[7]).as("the straggler").isBetween(3.0, 6.0);
    }

    /**
     * Each tick a node steps with probability half its pace times a burst factor redrawn every 50 ticks; every ten own
     * steps it sends its version to a random peer (3 ticks away), whose version comes back as a reply 6 ticks later; a
     * node takes in what arrived at its next step, keeping the larger version, and tells its scale of the replies, as
     * the engine does. Returns each node's factor after 20,000 ticks; {@code behindToo} false leaves out
     * {@link StepScale#heard}.
     */
    private static double[] simulateConsortium(long seed, double[] pace, boolean behindToo) {
        SplittableRandom r = new SplittableRandom(seed);
        int n = pace.length;
        int latency = 3;
        long[] version = new long[n];
        long[] steps = new long[n];
        double[] burst = new double[n];
        java.util.Arrays.fill(burst, 1);
        StepScale[] scales = new StepScale[n];
        List<List<long[]>> inbox = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            scales[i] = new StepScale(8);
            inbox.add(new ArrayList<>());
        }
        List<long[]> inFlight = new ArrayList<>(); // {arrival tick, recipient, version, 1 for a reply}
        for (int tick = 0; tick < 20_000; tick++) {
            if (tick % 50 == 0) {
                for (int i = 0; i < n; i++) {
                    burst[i] = new double[] {0.2, 1, 1.8}[r.nextInt(3)];
                }
            }
            for (int i = 0; i < n; i++) {
                if (r.nextDouble() >= 0.5 * pace[i] * burst[i]) {
                    continue;
                }
                long before = version[i];
                for (long[] m : inbox.get(i)) {
                    if (behindToo && m[3] == 1) {
                        scales[i].heard(m[2] - before, 1);
                    }
                    version[i] = Math.max(version[i], m[2]);
                }
                inbox.get(i).clear();
                version[i]++;
                scales[i].afterStep(version[i] - before);
                if (++steps[i] % 10 == 0) {
                    int peer = (i + 1 + r.nextInt(n - 1)) % n;
                    inFlight.add(new long[] {tick + latency, peer, version[i], 0});
                    inFlight.add(new long[] {tick + 2 * latency, i, version[peer], 1});
                }
            }
            for (var it = inFlight.iterator(); it.hasNext(); ) {
                long[] m = it.next();
                if (m[0] <= tick) {
                    inbox.get((int) m[1]).add(m);
                    it.remove();
                }
            }
        }
        double[] factors = new double[n];
        for (int i = 0; i < n; i++) {
            factors[i] = scales[i].factor();
        }
        return factors;
    }

    @Test
    void aMergeOfVersionsBehindCountsAgainstTheRatioWithinTheBound() {
        StepScale scale = new StepScale(8);
        for (int step = 0; step < 100; step++) {
            scale.afterStep(3);
        }
        assertThat(scale.factor()).isEqualTo(3.0);
        // Two fragments of a tenth, 30 and 20 versions behind: a fifth of their mean gap, 5, against the ratio.
        scale.heard(-30, 0.1);
        scale.heard(-20, 0.1);
        scale.afterStep(1);
        assertThat(scale.factor()).isCloseTo((300 + 1 - 5) / 101.0, within(1e-9));
        // A whole model far behind counts for at most the bound (max - 1 = 7) per step since the last counted merge.
        scale.heard(-1_000_000, 1);
        scale.afterStep(1);
        assertThat(scale.factor()).isCloseTo((296 + 1 - 7) / 102.0, within(1e-9));
        // A merge that also brought a version ahead is counted by its jump alone.
        scale.heard(-40, 1);
        scale.heard(5, 1);
        scale.afterStep(6);
        assertThat(scale.factor()).isCloseTo((290 + 6) / 103.0, within(1e-9));
    }

    @Test
    void theFastestNodeAndANodeThatHearsOfNoOneScaleNothing() {
        StepScale fastest = new StepScale(8);
        StepScale alone = new StepScale(8);
        SplittableRandom r = new SplittableRandom(3);
        for (int step = 0; step < 5_000; step++) {
            // The fastest node's version is its own steps, and now and then a peer one or two ahead.
            fastest.afterStep(1 + (r.nextInt(50) == 0 ? r.nextInt(3) : 0));
            alone.afterStep(1);
        }
        assertThat(fastest.factor()).isBetween(1.0, 1.05);
        assertThat(alone.factor()).isEqualTo(1.0);
    }

    @Test
    void noRatioBeforeEnoughStepsAndNoneWhenOff() {
        StepScale early = new StepScale(8);
        StepScale off = new StepScale(1);
        for (int step = 0; step < StepScale.MIN_STEPS - 1; step++) {
            early.afterStep(5);
            off.afterStep(5);
        }
        assertThat(early.factor()).isEqualTo(1.0);
        early.afterStep(5);
        assertThat(early.factor()).isEqualTo(5.0);
        for (int step = 0; step < 1000; step++) {
            off.afterStep(5);
        }
        assertThat(off.factor()).isEqualTo(1.0);
        assertThat(off.enabled()).isFalse();
    }

    /**
     * A version far ahead in one merge (a late joiner, a peer claiming a large version) counts for at most the bound
     * per step since the last jump: the factor stays within the bound and returns to 1 once steady.
     */
    @Test
    void oneHugeJumpIsBoundedAndForgotten() {
        StepScale scale = new StepScale(8);
        for (int step = 0; step < 200; step++) {
            scale.afterStep(1);
        }
        scale.afterStep(100_001);
        assertThat(scale.factor()).isLessThanOrEqualTo(8.0).isGreaterThan(1.0);
        for (int step = 0; step < 10 * StepScale.WINDOW_STEPS; step++) {
            scale.afterStep(1);
        }
        assertThat(scale.factor()).isLessThan(1.01);
    }

    @Test
    void scalesTheDisplacementFromTheAnchorAndNothingWithoutOne() {
        StepScale scale = new StepScale(8);
        for (int step = 0; step < 100; step++) {
            scale.afterStep(4);
        }
        float[] params = {1f, -2f, 3f};
        scale.scale(params);
        assertThat(params).as("no anchor yet").containsExactly(1f, -2f, 3f);

        scale.anchor(new float[] {1f, -2f, 3f});
        float[] moved = {1.5f, -2f, 2f};
        scale.scale(moved);
        assertThat(moved).containsExactly(3f, -2f, -1f);

        scale.forget();
        float[] again = {1.5f, -2f, 2f};
        scale.scale(again);
        assertThat(again).as("anchor forgotten: the parameters were replaced").containsExactly(1.5f, -2f, 2f);
    }

    @Test
    void refusesABoundBelowOneOrNotFinite() {
        for (double bad : new double[] {0.5, 0, -1, Double.NaN, Double.POSITIVE_INFINITY}) {
            assertThatThrownBy(() -> new StepScale(bad))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("at least 1");
        }
    }
}
