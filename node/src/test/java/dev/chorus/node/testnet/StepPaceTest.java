package dev.chorus.node.testnet;

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
}
