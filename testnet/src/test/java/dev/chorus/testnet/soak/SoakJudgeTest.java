package dev.chorus.testnet.soak;

import static org.assertj.core.api.Assertions.assertThat;

import dev.chorus.testnet.faults.FaultReport;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.function.IntToLongFunction;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** The soak's judgement on made-up series: flat, noisy, leaking, spiking, stalled and cut short. */
class SoakJudgeTest {

    private static final long MIB = 1L << 20;

    /** 4 nodes, a round a minute for {@code rounds} minutes; node 2's heap from {@code heapOfNode2}. */
    private static List<SoakSample> run(int rounds, IntToLongFunction heapOfNode2, long seed) {
        SplittableRandom rnd = new SplittableRandom(seed);
        List<SoakSample> samples = new ArrayList<>();
        for (int r = 0; r < rounds; r++) {
            for (int n = 0; n < 4; n++) {
                long heap = n == 2 ? heapOfNode2.applyAsLong(r) : 40 * MIB + rnd.nextLong(4 * MIB);
                samples.add(new SoakSample(
                        n,
                        r,
                        250 * MIB + rnd.nextLong(5 * MIB),
                        40 + rnd.nextInt(2),
                        70 + rnd.nextInt(3),
                        heap,
                        1000L * (r + 1),
                        3));
            }
        }
        return samples;
    }

    @ParameterizedTest
    @ValueSource(longs = {1, 2, 3, 4, 5})
    void flatNoisySeriesPass(long seed) {
        FaultReport r = SoakJudge.judge(run(60, k -> 40 * MIB + (k * 7919 % 5) * MIB / 2, seed), 4, 10, 0.10, null);
        assertThat(r.passed()).as(r.verdict()).isTrue();
        assertThat(r.verdict()).startsWith("soak: passed: ");
        assertThat(r.rows()).isEqualTo(60);
    }

    @Test
    void aSlowLeakFailsAndNamesTheNodeAndResource() {
        // 0.4% a minute: 50 minutes after the warm-up it is 20% over.
        FaultReport r = SoakJudge.judge(run(60, k -> (long) (40 * MIB * (1 + 0.004 * k)), 7), 4, 10, 0.10, null);
        assertThat(r.passed()).isFalse();
        assertThat(r.failures()).singleElement().asString().startsWith("node-002 heap after GC: median ");
        assertThat((String) r.figures().get("heap after GC, worst node's largest drift %"))
                .endsWith("(node-002)");
        assertThat((Double) r.figures().get("heap after GC, all nodes, trend % per hour"))
                .isGreaterThan(5.0);
    }

    @Test
    void aSpikeOfOneRoundPassesThroughTheMedian() {
        FaultReport r = SoakJudge.judge(run(40, k -> k == 25 ? 90 * MIB : 40 * MIB, 8), 4, 10, 0.10, null);
        assertThat(r.passed()).as(r.verdict()).isTrue();
    }

    @Test
    void aStepThatStaysFails() {
        FaultReport r = SoakJudge.judge(run(40, k -> k >= 25 ? 50 * MIB : 40 * MIB, 9), 4, 10, 0.10, null);
        assertThat(r.failures())
                .singleElement()
                .asString()
                .contains("node-002 heap after GC")
                .contains("+25.0%");
    }

    @Test
    void aNodeThatStopsTrainingFails() {
        List<SoakSample> samples = new ArrayList<>();
        for (SoakSample s : run(30, k -> 40 * MIB, 10)) {
            samples.add(
                    s.node() == 1
                            ? new SoakSample(
                                    1,
                                    s.minutes(),
                                    s.residentBytes(),
                                    s.threads(),
                                    s.openFds(),
                                    s.heapAfterGcBytes(),
                                    Math.min(s.steps(), 5000),
                                    s.peers())
                            : s);
        }
        FaultReport r = SoakJudge.judge(samples, 4, 10, 0.10, null);
        assertThat(r.failures())
                .containsExactly("node-001 stopped training: 5000 steps at minute 10.0 and at minute 29.0");
    }

    @Test
    void aSoakCutShortFailsWithItsReason() {
        FaultReport r = SoakJudge.judge(run(30, k -> 40 * MIB, 11), 4, 10, 0.10, "at minute 30: node-003 is gone");
        assertThat(r.verdict()).isEqualTo("soak: failed: the soak stopped early: at minute 30: node-003 is gone");
        FaultReport tooShort = SoakJudge.judge(run(11, k -> 40 * MIB, 11), 4, 10, 0.10, null);
        assertThat(tooShort.verdict()).contains("fewer than two sampling rounds after the 10.0-minute warm-up (1)");
    }

    @Test
    void mediansWindowsAndSlope() {
        double[] m = SoakJudge.medians(new double[] {1, 9, 2, Double.NaN, 3}, 3);
        assertThat(m[0]).isNaN();
        assertThat(m[1]).isNaN();
        assertThat(m).startsWith(Double.NaN, Double.NaN, 2.0);
        assertThat(m[3]).isEqualTo(5.5);
        assertThat(m[4]).isEqualTo(2.5);
        assertThat(SoakJudge.window(100)).isEqualTo(SoakJudge.WINDOW);
        assertThat(SoakJudge.window(6)).isEqualTo(2);
        assertThat(SoakJudge.window(2)).isEqualTo(1);
        assertThat(SoakJudge.slope(new double[] {0, 1, 2, 3}, new double[] {5, 7, 9, 11}))
                .isEqualTo(2.0);
    }

    @Test
    void csvHasAHeaderAndARowPerSample() {
        String csv = SoakJudge.csv(run(3, k -> 40 * MIB, 12));
        List<String> lines = csv.lines().toList();
        assertThat(lines).hasSize(1 + 12);
        assertThat(lines.getFirst())
                .isEqualTo("node,minute,resident_bytes,threads,open_fds,heap_after_gc_bytes,steps,peers");
        assertThat(lines.get(1)).startsWith("node-000,0.00,").endsWith(",1000,3");
    }
}
