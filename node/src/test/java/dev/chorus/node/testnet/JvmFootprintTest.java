package dev.chorus.node.testnet;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class JvmFootprintTest {

    /** A clock that moves only when slept on, and a compile counter that grows at given times. */
    private static final class FakeJit {
        long nanos;
        final double stopsGrowingAt;

        FakeJit(double stopsGrowingAtSeconds) {
            this.stopsGrowingAt = stopsGrowingAtSeconds;
        }

        double compiled() {
            double t = nanos / 1e9;
            // one compilation finishes every 0.2 s until stopsGrowingAt
            return Math.floor(Math.min(t, stopsGrowingAt) / 0.2) * 0.05;
        }
    }

    @Test
    void waitsUntilNothingHasBeenCompiledForTheQuietTime() throws InterruptedException {
        FakeJit jit = new FakeJit(3.0);
        double waited = JvmFootprint.awaitCompilerIdle(
                jit::compiled,
                () -> jit.nanos,
                ms -> jit.nanos += ms * 1_000_000,
                Duration.ofSeconds(1),
                Duration.ofSeconds(60));
        // the last compilation finishes at 3.0 s; a second of quiet after it ends the wait
        assertThat(waited).isBetween(4.0, 4.2);
    }

    @Test
    void returnsAfterTheQuietTimeWhenTheCompilersAreIdle() throws InterruptedException {
        FakeJit jit = new FakeJit(0);
        double waited = JvmFootprint.awaitCompilerIdle(
                jit::compiled,
                () -> jit.nanos,
                ms -> jit.nanos += ms * 1_000_000,
                Duration.ofSeconds(1),
                Duration.ofSeconds(60));
        assertThat(waited).isBetween(1.0, 1.1);
    }

    @Test
    void givesUpAtTheLimitWhenCompilationNeverStops() throws InterruptedException {
        FakeJit jit = new FakeJit(Double.POSITIVE_INFINITY);
        double waited = JvmFootprint.awaitCompilerIdle(
                jit::compiled,
                () -> jit.nanos,
                ms -> jit.nanos += ms * 1_000_000,
                Duration.ofSeconds(1),
                Duration.ofSeconds(10));
        assertThat(waited).isBetween(10.0, 10.1);
    }

    @Test
    void returnsAtOnceWhereTheJvmDoesNotCountCompilationTime() throws InterruptedException {
        long[] slept = {0};
        double waited = JvmFootprint.awaitCompilerIdle(
                () -> Double.NaN, () -> 0L, ms -> slept[0] += ms, Duration.ofSeconds(1), Duration.ofSeconds(10));
        assertThat(waited).isZero();
        assertThat(slept[0]).isZero();
    }
}
