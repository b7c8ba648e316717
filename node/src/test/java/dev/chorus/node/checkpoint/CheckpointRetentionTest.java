package dev.chorus.node.checkpoint;

import static org.assertj.core.api.Assertions.assertThat;

import dev.chorus.learning.optim.OptimizerSnapshot;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The thinned retention on a fake clock, and moving newer checkpoints aside. */
class CheckpointRetentionTest {

    private static final Instant START = Instant.parse("2025-03-01T00:00:00Z");

    @TempDir
    Path dir;

    /** A clock the test moves. */
    private static final class FakeClock implements InstantSource {
        Instant now = START;

        @Override
        public Instant instant() {
            return now;
        }
    }

    private static Checkpoint at(long version, Instant when) {
        return new Checkpoint(
                version,
                version,
                when.toEpochMilli(),
                "mlp:8",
                "sgd",
                new float[] {version, 1, 2},
                new OptimizerSnapshot(version, new float[0][]),
                Map.of("loss", 0.3));
    }

    @Test
    void keepsTheNewestThenOneAnHourForADayThenOneADayForAWeek() throws IOException {
        FakeClock clock = new FakeClock();
        CheckpointStore store = new CheckpointStore(dir, new CheckpointStore.Retention(3, 24, 7), clock);
        // Ten days of a checkpoint every 10 minutes.
        long version = 0;
        Instant end = START.plus(Duration.ofDays(10));
        while (clock.now.isBefore(end)) {
            store.save(at(++version, clock.now));
            clock.now = clock.now.plus(Duration.ofMinutes(10));
        }
        Instant now = clock.now;
        List<Instant> times =
                store.files().stream().map(CheckpointRetentionTest::time).toList();
        // The newest three, 10 minutes apart.
        assertThat(Duration.between(times.get(2), times.get(0))).isEqualTo(Duration.ofMinutes(20));
        // One for each of the last 24 hours (the first of each), one for each of the last 7 days: no two in an
        // hour past the newest three, no more than a day between two for a week, nothing older.
        long hourly = times.stream()
                .filter(t -> Duration.between(t, now).compareTo(Duration.ofHours(24)) < 0)
                .count();
        assertThat(hourly).isBetween(24L, 3L + 24);
        for (int i = 3; i + 1 < times.size(); i++) {
            Duration gap = Duration.between(times.get(i + 1), times.get(i));
            assertThat(gap).isLessThanOrEqualTo(Duration.ofDays(1));
            if (Duration.between(times.get(i), now).compareTo(Duration.ofHours(23)) < 0) {
                assertThat(gap).isEqualTo(Duration.ofHours(1));
            }
        }
        assertThat(Duration.between(times.getLast(), now)).isLessThanOrEqualTo(Duration.ofDays(7));
        assertThat(Duration.between(times.getLast(), now)).isGreaterThan(Duration.ofDays(6));
        assertThat(times.size()).isLessThanOrEqualTo(3 + 24 + 7);
        // Survivors stay: an hour's first checkpoint is still there an hour later.
        Instant firstOfLastFullHour = times.stream()
                .filter(t -> Duration.between(t, now).compareTo(Duration.ofHours(2)) > 0)
                .findFirst()
                .orElseThrow();
        for (int i = 0; i < 6; i++) {
            store.save(at(++version, clock.now));
            clock.now = clock.now.plus(Duration.ofMinutes(10));
        }
        assertThat(store.files().stream().map(CheckpointRetentionTest::time)).contains(firstOfLastFullHour);
    }

    @Test
    void withoutThinningOnlyTheNewestAreKept() throws IOException {
        FakeClock clock = new FakeClock();
        CheckpointStore store = new CheckpointStore(dir, CheckpointStore.Retention.newest(2), clock);
        for (int v = 1; v <= 5; v++) {
            store.save(at(v, clock.now));
            clock.now = clock.now.plus(Duration.ofHours(3));
        }
        assertThat(store.versions()).containsExactly(5L, 4L);
    }

    @Test
    void rollingBackMovesTheNewerCheckpointsAsideAndFindsByTime() throws IOException {
        FakeClock clock = new FakeClock();
        CheckpointStore store = new CheckpointStore(dir, CheckpointStore.Retention.newest(10), clock);
        for (int v = 1; v <= 5; v++) {
            store.save(at(v * 100L, START.plus(Duration.ofMinutes(v))));
        }
        assertThat(store.loadNewestAtOrBefore(START.plusSeconds(150))
                        .orElseThrow()
                        .version())
                .isEqualTo(200);
        assertThat(store.loadNewestAtOrBefore(START)).isEmpty();
        assertThat(store.loadNewestAtOrBefore(350).orElseThrow().version()).isEqualTo(300);

        Path aside = store.rollBackTo(300).orElseThrow();
        assertThat(store.versions()).containsExactly(300L, 200L, 100L);
        assertThat(store.loadLatest().orElseThrow().version()).isEqualTo(300);
        assertThat(aside.getParent()).isEqualTo(dir);
        assertThat(aside.getFileName().toString()).isEqualTo("rolled-back-20250301T000000Z");
        try (var files = Files.list(aside)) {
            assertThat(files.map(f -> f.getFileName().toString()))
                    .containsExactlyInAnyOrder("ckpt-00000000000000000400.bin", "ckpt-00000000000000000500.bin");
        }
        assertThat(store.rollBackTo(300)).isEmpty();
    }

    private static Instant time(Path f) {
        try {
            return Files.getLastModifiedTime(f).toInstant();
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }
}
