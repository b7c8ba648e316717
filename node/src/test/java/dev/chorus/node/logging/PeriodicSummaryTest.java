package dev.chorus.node.logging;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class PeriodicSummaryTest {

    private final AtomicLong nanos = new AtomicLong(5_000_000_000L);
    private final List<PeriodicSummary.Summary> lines = new ArrayList<>();
    private final PeriodicSummary summary = new PeriodicSummary(Duration.ofMinutes(1), nanos::get, lines::add);

    private void advanceSeconds(long s) {
        nanos.addAndGet(s * 1_000_000_000L);
    }

    @Test
    void theFirstEventComesAtOnceThenOneLineAPeriod() {
        summary.record("BUSY: inbound queue full", "peer-a");
        assertThat(lines).hasSize(1);
        assertThat(lines.getFirst().period()).isZero();
        assertThat(lines.getFirst().describe("peer")).isEqualTo("BUSY: inbound queue full x1 (1 peer)");
        for (int i = 0; i < 1000; i++) {
            advanceSeconds(0); // a burst within the period
            summary.record("BUSY: inbound queue full", i % 3 == 0 ? "peer-a" : "peer-b");
            summary.record("TOO_LARGE: body over the limit", "peer-c");
        }
        assertThat(lines).as("nothing more within the period").hasSize(1);
        advanceSeconds(59);
        summary.flushIfDue();
        assertThat(lines).hasSize(1);
        advanceSeconds(1);
        summary.flushIfDue();
        assertThat(lines).hasSize(2);
        PeriodicSummary.Summary s = lines.get(1);
        assertThat(s.period()).isEqualTo(Duration.ofSeconds(60));
        assertThat(s.events()).isEqualTo(2000);
        assertThat(s.kinds())
                .isEqualTo(Map.of(
                        "BUSY: inbound queue full", new PeriodicSummary.Count(1000, 2),
                        "TOO_LARGE: body over the limit", new PeriodicSummary.Count(1000, 1)));
        assertThat(s.describe("peer"))
                .isEqualTo("BUSY: inbound queue full x1000 (2 peers); TOO_LARGE: body over the limit x1000 (1 peer)");
        summary.flushIfDue();
        summary.flush();
        assertThat(lines).as("nothing counted since: no line").hasSize(2);
    }

    @Test
    void anEventAfterAQuietPeriodComesAtOnceAndFlushTellsTheRest() {
        summary.record("a", "p");
        advanceSeconds(600);
        summary.record("a", "p");
        assertThat(lines).hasSize(2);
        assertThat(lines.get(1).period()).isEqualTo(Duration.ofSeconds(600));
        summary.record("a", "q");
        summary.flush();
        assertThat(lines).hasSize(3);
        assertThat(lines.get(2).kinds()).isEqualTo(Map.of("a", new PeriodicSummary.Count(1, 1)));
    }

    @Test
    void saysWhetherASourceIsNewSoThatEachIsLoggedOnce() {
        assertThat(summary.record("clamped", "peer-a")).isTrue();
        assertThat(summary.record("clamped", "peer-a")).isFalse();
        assertThat(summary.record("clamped", "peer-b")).isTrue();
        advanceSeconds(3600);
        assertThat(summary.record("clamped", "peer-a"))
                .as("still known a period later")
                .isFalse();
    }

    @Test
    void manyKindsAndSourcesTakeBoundedMemory() {
        summary.record("first", "p");
        for (int i = 0; i < 100; i++) {
            summary.record("reason " + i, "peer-" + i);
        }
        for (int i = 0; i < 2 * PeriodicSummary.MAX_SOURCES; i++) {
            summary.record("reason 0", "peer-" + i);
        }
        summary.flush();
        Map<String, PeriodicSummary.Count> kinds = lines.getLast().kinds();
        assertThat(kinds).hasSize(PeriodicSummary.MAX_KINDS).containsKey("other");
        assertThat(kinds.values().stream()
                        .mapToLong(PeriodicSummary.Count::events)
                        .sum())
                .isEqualTo(100 + 2L * PeriodicSummary.MAX_SOURCES);
        assertThatThrownBy(() -> new PeriodicSummary(Duration.ZERO, nanos::get, lines::add))
                .hasMessageContaining("period must be positive");
    }
}
