package dev.chorus.node.checkpoint;

import dev.chorus.learning.data.AtomicFile;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The checkpoints of one node, in one directory, named {@code ckpt-<version>.bin} with the version
 * zero-padded so that names sort like versions. {@link #save} writes atomically and then deletes
 * all but the newest {@code keep}; {@link #loadLatest} returns the newest checkpoint whose checksum
 * verifies, skipping corrupt ones with a warning. One writer at a time (the training thread).
 */
public final class CheckpointStore {

    private static final Logger log = LoggerFactory.getLogger(CheckpointStore.class);
    private static final Pattern NAME = Pattern.compile("ckpt-(\\d{20})\\.bin");

    private final Path dir;
    private final int keep;

    public CheckpointStore(Path dir, int keep) {
        if (keep < 1) {
            throw new IllegalArgumentException("keep must be at least 1, got " + keep);
        }
        this.dir = dir;
        this.keep = keep;
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
        Files.createDirectories(dir);
        Path target = fileFor(c.version());
        AtomicFile.write(target, out -> CheckpointFormat.write(c, out));
        syncDirectory();
        prune();
        return target;
    }

    /** The newest checkpoint that verifies, or empty; corrupt files are logged and skipped (not deleted). */
    public Optional<Checkpoint> loadLatest() {
        for (Path file : files()) {
            try {
                Checkpoint c = CheckpointFormat.read(Files.readAllBytes(file));
                long named = versionOf(file);
                if (c.version() != named) {
                    throw new CorruptCheckpointException(
                            "holds version " + c.version() + " but is named for version " + named);
                }
                return Optional.of(c);
            } catch (IOException e) {
                log.warn("skipping checkpoint {}: {}; trying the previous one", file, e.getMessage());
            }
        }
        return Optional.empty();
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
        List<Path> all = new ArrayList<>(files());
        for (int i = keep; i < all.size(); i++) {
            Files.deleteIfExists(all.get(i));
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
