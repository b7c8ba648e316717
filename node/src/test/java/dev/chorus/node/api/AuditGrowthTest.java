package dev.chorus.node.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.time.Instant;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class AuditGrowthTest {

    private final AtomicLong now = new AtomicLong(1_700_000_000_000L);
    private final AtomicLong written = new AtomicLong();
    private final AtomicLong onDisk = new AtomicLong(100L << 20);
    private final AuditGrowth growth =
            new AuditGrowth(written::get, onDisk::get, 1024L << 20, () -> Instant.ofEpochMilli(now.get()));

    private void minutes(long m, long bytesPerMinute) {
        for (long i = 0; i < m; i++) {
            now.addAndGet(60_000);
            written.addAndGet(bytesPerMinute);
            onDisk.addAndGet(bytesPerMinute);
            growth.estimate();
        }
    }

    @Test
    void unknownBeforeASecondThenTheRateSinceTheStart() {
        AuditGrowth.Estimate e = growth.estimate();
        assertThat(e.bytesPerHour()).isNaN();
        assertThat(e.daysUntilCap()).isNaN();
        assertThat(e.sizeBytes()).isEqualTo(100L << 20);
        minutes(10, 1L << 20);
        e = growth.estimate();
        assertThat(e.bytesPerHour()).isCloseTo(60.0 * (1 << 20), within(1.0));
        // 1024 - 110 MiB left at 60 MiB an hour.
        assertThat(e.daysUntilCap()).isCloseTo(914.0 / 60 / 24, within(1e-9));
    }

    @Test
    void theRateFollowsTheLastHourNotTheWholeRun() {
        minutes(120, 10L << 20); // a busy start
        minutes(90, 0); // then quiet for longer than the window
        AuditGrowth.Estimate e = growth.estimate();
        assertThat(e.bytesPerHour()).isZero();
        assertThat(e.daysUntilCap()).isInfinite();
        minutes(61, 1L << 10);
        assertThat(growth.estimate().bytesPerHour()).isCloseTo(60.0 * (1 << 10), within(60.0 * (1 << 10) * 0.02));
    }

    @Test
    void aLogPastItsCapHasNoDaysLeft() {
        onDisk.set(2048L << 20);
        minutes(5, 1000);
        assertThat(growth.estimate().daysUntilCap()).isZero();
    }
}
