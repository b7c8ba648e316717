package dev.chorus.testnet;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** The time per step that a testnet node is paced to. */
class StepPaceTest {

    @Test
    void withoutABoundOnlyStragglersArePacedAtTheirFactorOfTheOthersMean() {
        StepPace pace = new StepPace(0);
        assertThat(pace.targetNanos(1, 1_000)).isZero();
        // Before any report, a straggler goes by its own busy time.
        assertThat(pace.targetNanos(5, 1_000)).isEqualTo(5_000);
        pace.record(2_000);
        assertThat(pace.targetNanos(5, 1_000)).isEqualTo(10_000);
        assertThat(pace.targetNanos(1, 1_000)).isZero();
    }

    @Test
    void aBoundHoldsUnimpairedNodesToItsTimePerStepAndStragglersToTheirFactorOfIt() {
        StepPace pace = new StepPace(5_000);
        assertThat(pace.targetNanos(1, 1_000)).isEqualTo(5_000);
        pace.record(1_000);
        // The others are busy 1 us a step but take 5 us with the bound: a straggler at 4 takes 20 us.
        assertThat(pace.targetNanos(4, 1_000)).isEqualTo(20_000);
        // Where the others are slower than the bound, their own time counts.
        StepPace slow = new StepPace(5_000);
        slow.record(8_000);
        assertThat(slow.targetNanos(4, 1_000)).isEqualTo(32_000);
        assertThat(slow.targetNanos(1, 8_000)).isEqualTo(5_000);
    }

    @Test
    void aNodeBehindItsPaceMakesUpToTheCreditOfItByNotPausing() {
        long step = 2_000_000;
        // A step 30 ms late: the next 15 fast steps (1 ms each against 2) owe nothing, the 16th owes a pause again.
        long owed = StepPace.owed(0, step, step + 30_000_000);
        assertThat(owed).isEqualTo(-30_000_000);
        for (int i = 0; i < 15; i++) {
            owed = StepPace.owed(owed, step, step / 2);
        }
        assertThat(owed).isEqualTo(-15_000_000);
        assertThat(StepPace.owed(-1_000_000, step, step / 2)).isZero();
        // A stretch a second behind (the JIT at work) is made up by 100 ms only.
        assertThat(StepPace.owed(0, step, step + 1_000_000_000)).isEqualTo(-StepPace.CREDIT_NANOS);
        assertThat(StepPace.owed(-StepPace.CREDIT_NANOS, step, step + 5_000_000))
                .isEqualTo(-StepPace.CREDIT_NANOS);
    }

    @Test
    void aStragglerMayHaveTakenTheUnimpairedNodesMeanCountOverItsFactor() {
        StepPace pace = new StepPace(0, 4);
        assertThat(pace.pacesByCount()).isTrue();
        assertThat(new StepPace(0, 0).pacesByCount()).isFalse();
        for (int i = 0; i < 4_000; i++) {
            pace.countStep();
        }
        // Four unimpaired nodes took 1000 steps each: a straggler at 5 may have taken 200, however short a step is.
        assertThat(pace.allowedSteps(5)).isEqualTo(200.0);
        assertThat(pace.allowedSteps(2.5)).isEqualTo(400.0);
    }

    @Test
    void aStragglerBehindItsAllowanceMakesUpOnlyTheCredit() {
        // 50 steps behind with a credit of 10: the offset leaves it 10 behind.
        double offset = StepPace.creditOffset(0, 200, 150, 10);
        assertThat(200 - offset - 150).isEqualTo(10.0);
        // Within the credit, or ahead, the offset stays.
        assertThat(StepPace.creditOffset(offset, 250, 205, 10)).isEqualTo(offset);
        assertThat(StepPace.creditOffset(0, 200, 205, 10)).isZero();
    }
}
