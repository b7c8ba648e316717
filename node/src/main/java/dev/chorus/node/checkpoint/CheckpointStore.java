package dev.chorus.node.checkpoint;

import dev.chorus.learning.data.AtomicFile;
import dev.chorus.privacy.files.OwnerOnlyFiles;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.FileTime;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.LongPredicate;
import java.util.function.Predicate;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The checkpoints of one node, in one directory, named {@code ckpt-<version>.bin} with the version
 * zero-padded so that names sort like versions. {@link #save} writes atomically, dates the file at
 * the checkpoint's creation time and then prunes as the {@link Retention} says; {@link #loadLatest}
 * returns the newest usable checkpoint (checksum verifies, finite values, and for {@link #restoreLatest} the
 * caller's validation), skipping the others with one warning each. {@link
 * #rollBackTo} moves the checkpoints newer than a version aside. One writer at a time (the training
 * thread, or {@code chorus node rollback} while the node is stopped).
 */
public final class CheckpointStore {

    private static final Logger log = LoggerFactory.getLogger(CheckpointStore.class);
    private static final Pattern NAME = Pattern.compile("ckpt-(\\d{20})\\.bin");
    private static final long HOUR_MILLIS = Duration.ofHours(1).toMillis();
    private static final long DAY_MILLIS = Duration.ofDays(1).toMillis();
    private static final DateTimeFormatter ASIDE_STAMP =
            DateTimeFormatter.ofPattern("yyyyMMdd'T'HHmmss'Z'").withZone(ZoneOffset.UTC);

    /**
     * Which checkpoints survive a save: the newest {@code keep}, and of the older ones the first of each
     * UTC hour of the last {@code hourlyForHours} hours and the first of each UTC day of the last {@code
     * dailyForDays} days, so that a poisoning noticed late still has a model from before it to go back to.
     * A checkpoint's time is its file's (set to its creation time when written).
     */
    public record Retention(int keep, int hourlyForHours, int dailyForDays) {
        public Retention {
            if (keep < 1) {
                throw new IllegalArgumentException("keep must be at least 1, got " + keep);
            }
            if (hourlyForHours < 0 || dailyForDays < 0) {
                throw new IllegalArgumentException("hourly and daily retention must be >= 0");
            }
        }

        /** Only the newest {@code keep}. */
        public static Retention newest(int keep) {
            return new Retention(keep, 0, 0);
        }
    }

    private final Path dir;
    private final Retention retention;
    private final InstantSource clock;

    /** A store that keeps the newest {@code keep} checkpoints and no older ones. */
    public CheckpointStore(Path dir, int keep) {
        this(dir, Retention.newest(keep), InstantSource.system());
    }

    /** @param clock what "the last hours and days" of the retention are counted from */
    public CheckpointStore(Path dir, Retention retention, InstantSource clock) {
        this.dir = dir;
        this.retention = retention;
        this.clock = clock;
    }

    public Path directory() {
        return dir;
    }

    /** The file a checkpoint of {@code version} is written to. */
    public Path fileFor(long version) {
        return dir.resolve(String.format("ckpt-%020d.bin", version));
    }

    /**
     * Writes {@code c} (temporary file, fsync, rename, directory fsync) and prunes old ones.
     *
     * @return the file written
     */
    public Path save(Checkpoint c) throws IOException {
        OwnerOnlyFiles.createDirectories(dir);
        Path target = fileFor(c.version());
        AtomicFile.write(target, out -> CheckpointFormat.write(c, out), OwnerOnlyFiles.fileAttributes(dir));
        Files.setLastModifiedTime(target, FileTime.fromMillis(c.createdMillis()));
        syncDirectory();
        prune();
        return target;
    }

    /**
     * Why a checkpoint that verifies still cannot be resumed from, e.g. its shape does not fit the configured model;
     * null when it can.
     */
    @FunctionalInterface
    public interface Validation {
        Validation NONE = c -> null;

        String problem(Checkpoint c);
    }

    /** A checkpoint file passed over, and why, in a few words. */
    public record Skipped(Path file, String reason) {}

    /**
     * What a start finds: the newest usable checkpoint (empty when there is none) and the newer files passed over for
     * it, newest first.
     */
    public record Restore(Optional<Checkpoint> checkpoint, List<Skipped> skipped) {
        public Restore {
            skipped = List.copyOf(skipped);
        }
    }

    /**
     * The newest checkpoint that verifies, holds finite values only and passes {@code validation}; every file passed
     * over is logged (one line naming it and the reason) and listed, never deleted.
     */
    public Restore restoreLatest(Validation validation) {
        List<Skipped> skipped = new ArrayList<>();
        Optional<Checkpoint> c = newest(v -> true, c1 -> true, validation, skipped);
        return new Restore(c, skipped);
    }

    /** The newest usable checkpoint, or empty; unusable files are logged and skipped (not deleted). */
    public Optional<Checkpoint> loadLatest() {
        return newest(v -> true, c -> true);
    }

    /** The newest checkpoint of {@code version} or older that is usable; others are skipped as by {@link #loadLatest}. */
    public Optional<Checkpoint> loadNewestAtOrBefore(long version) {
        return newest(v -> v <= version, c -> true);
    }

    /** The newest usable checkpoint created at or before {@code time}. */
    public Optional<Checkpoint> loadNewestAtOrBefore(Instant time) {
        return newest(v -> true, c -> c.createdMillis() <= time.toEpochMilli());
    }

    /** The checkpoint of exactly {@code version}, when its file is there and usable. */
    public Optional<Checkpoint> load(long version) {
        return newest(v -> v == version, c -> true);
    }

    /** The versions of the checkpoint files, newest first (not verified). */
    public List<Long> versions() {
        return files().stream().map(CheckpointStore::versionOf).toList();
    }

    /**
     * Makes the checkpoint of {@code version} the newest: every newer checkpoint file is moved (not deleted) into a
     * new subdirectory {@code rolled-back-<UTC time>/}, where {@link #files} no longer sees it.
     *
     * @return the subdirectory the newer files went to; empty when there were none
     * @throws IllegalArgumentException when there is no checkpoint of {@code version}
     */
    public Optional<Path> rollBackTo(long version) throws IOException {
        if (!versions().contains(version)) {
            throw new IllegalArgumentException("no checkpoint of version " + version + " in " + dir);
        }
        List<Path> newer = files().stream().filter(f -> versionOf(f) > version).toList();
        if (newer.isEmpty()) {
            return Optional.empty();
        }
        return Optional.of(moveAside(newer, "rolled-back-"));
    }

    /**
     * Moves checkpoint files (not deleted) into a new subdirectory {@code <prefix><UTC time>/}, where {@link #files}
     * no longer sees them, e.g. unusable ones that would otherwise count against the retention of the new ones.
     *
     * @return the subdirectory
     */
    public Path moveAside(List<Path> checkpointFiles, String prefix) throws IOException {
        String stamp = ASIDE_STAMP.format(clock.instant());
        Path aside = dir.resolve(prefix + stamp);
        for (int n = 2; Files.exists(aside); n++) {
            aside = dir.resolve(prefix + stamp + "-" + n);
        }
        OwnerOnlyFiles.createDirectories(aside);
        for (Path f : checkpointFiles) {
            Files.move(f, aside.resolve(f.getFileName()), StandardCopyOption.ATOMIC_MOVE);
        }
        syncDirectory();
        return aside;
    }

    private Optional<Checkpoint> newest(LongPredicate version, Predicate<Checkpoint> accept) {
        return newest(version, accept, Validation.NONE, new ArrayList<>());
    }

    private Optional<Checkpoint> newest(
            LongPredicate version, Predicate<Checkpoint> accept, Validation validation, List<Skipped> skipped) {
        for (Path file : files()) {
            if (!version.test(versionOf(file))) {
                continue;
            }
            try {
                Checkpoint c = read(file, validation);
                if (accept.test(c)) {
                    return Optional.of(c);
                }
            } catch (IOException e) {
                log.warn("skipping checkpoint {}: {}; trying the previous one", file, e.getMessage());
                skipped.add(new Skipped(file, e.getMessage()));
            }
        }
        return Optional.empty();
    }

    /** Reads and checks one file: the checksum, the version its name gives, finite values, then {@code validation}. */
    private static Checkpoint read(Path file, Validation validation) throws IOException {
        Checkpoint c;
        try {
            c = CheckpointFormat.read(Files.readAllBytes(file));
        } catch (CorruptCheckpointException e) {
            throw e;
        } catch (IOException e) {
            throw new CorruptCheckpointException("cannot read: " + e.getMessage());
        }
        long named = versionOf(file);
        if (c.version() != named) {
            throw new CorruptCheckpointException("holds version " + c.version() + " but is named for version " + named);
        }
        String problem = nonFinite(c.parameters(), "weight");
        for (float[] slot : c.optimizerState().slots()) {
            problem = problem != null ? problem : nonFinite(slot, "optimizer state value");
        }
        if (problem == null) {
            problem = validation.problem(c);
        }
        if (problem != null) {
            throw new CorruptCheckpointException(problem);
        }
        return c;
    }

    /**
     * The first NaN or infinite value in {@code v}, described; null when all are finite. A model with one cannot train
     * again (every update from it is NaN), however sound the file.
     */
    private static String nonFinite(float[] v, String what) {
        for (int i = 0; i < v.length; i++) {
            if (!Float.isFinite(v[i])) {
                return "non-finite " + what + " (" + v[i] + " at index " + i + ")";
            }
        }
        return null;
    }

    /** The checkpoint files, newest first. */
    public List<Path> files() {
        if (!Files.isDirectory(dir)) {
            return List.of();
        }
        try (Stream<Path> s = Files.list(dir)) {
            return s.filter(p -> NAME.matcher(p.getFileName().toString()).matches())
                    .sorted(Comparator.comparing((Path p) -> p.getFileName().toString())
                            .reversed())
                    .toList();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot list checkpoints in " + dir, e);
        }
    }

    private void prune() throws IOException {
        List<Path> all = files();
        Set<Path> kept = new HashSet<>(all.subList(0, Math.min(retention.keep(), all.size())));
        long now = clock.millis();
        Map<Long, Path> hourly = new HashMap<>();
        Map<Long, Path> daily = new HashMap<>();
        // Newest first, so the last put in a bucket is its oldest checkpoint: the survivor of a bucket stays the same
        // as newer checkpoints arrive.
        for (Path f : all) {
            long t = Files.getLastModifiedTime(f).toMillis();
            if (now - t < retention.hourlyForHours() * HOUR_MILLIS) {
                hourly.put(Math.floorDiv(t, HOUR_MILLIS), f);
            }
            if (now - t < retention.dailyForDays() * DAY_MILLIS) {
                daily.put(Math.floorDiv(t, DAY_MILLIS), f);
            }
        }
        kept.addAll(hourly.values());
        kept.addAll(daily.values());
        for (Path f : all) {
            if (!kept.contains(f)) {
                Files.deleteIfExists(f);
            }
        }
    }

    /** Makes the rename durable: on Linux a directory can be opened and forced like a file. */
    private void syncDirectory() {
        try (FileChannel ch = FileChannel.open(dir, StandardOpenOption.READ)) {
            ch.force(true);
        } catch (IOException e) {
            log.debug("cannot fsync directory {}: {}", dir, e.toString());
        }
    }

    private static long versionOf(Path file) {
        Matcher m = NAME.matcher(file.getFileName().toString());
        if (!m.matches()) {
            throw new IllegalArgumentException("not a checkpoint file name: " + file);
        }
        return Long.parseLong(m.group(1));
    }
}
