package dev.chorus.testnet;

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

    @Test
    void compilersAreBusyWhileTheyWorkedMoreThanTheShareOfTheLatestWindow() {
        var jit = new JvmFootprint.CompilerActivity(Duration.ofSeconds(10), 0.05);
        long s = 1_000_000_000L;
        jit.record(0, 100.0);
        assertThat(jit.busy()).as("one reading").isFalse();
        // 2 s of compilation in the first 10 s: busy
        jit.record(10 * s, 102.0);
        assertThat(jit.busy()).isTrue();
        // readings each second from 11 to 20 s, 0.1 s of compilation in all: the window from 10 to 20 s is quiet
        for (int t = 11; t <= 20; t++) {
            jit.record(t * s, t < 15 ? 102.0 : 102.1);
        }
        assertThat(jit.busy()).as("0.1 s in 10 s").isFalse();
        // 0.6 s more within the last 10 s: over 5% again
        jit.record(21 * s, 102.7);
        assertThat(jit.busy()).as("0.7 s from 11 to 21 s").isTrue();
    }

    @Test
    void compilersAreNeverBusyWhereTheJvmDoesNotCountCompilationTime() {
        var jit = new JvmFootprint.CompilerActivity(Duration.ofSeconds(1), 0.05);
        jit.record(0, Double.NaN);
        jit.record(2_000_000_000L, Double.NaN);
        assertThat(jit.busy()).isFalse();
    }

    @Test
    void theWarmUpWindowIsAThirdOfTheWarmUpBetweenOneAndTenSeconds() {
        assertThat(Testnet.warmUpWindow(Duration.ofSeconds(1))).isEqualTo(Duration.ofSeconds(1));
        assertThat(Testnet.warmUpWindow(Duration.ofSeconds(6))).isEqualTo(Duration.ofSeconds(2));
        assertThat(Testnet.warmUpWindow(Duration.ofSeconds(30))).isEqualTo(Duration.ofSeconds(10));
        assertThat(Testnet.warmUpWindow(Duration.ofSeconds(120))).isEqualTo(Duration.ofSeconds(10));
    }
}
