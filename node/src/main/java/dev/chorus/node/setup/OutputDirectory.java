package dev.chorus.node.setup;

import dev.chorus.privacy.files.OwnerOnlyFiles;
import java.io.IOException;
import java.nio.file.AccessDeniedException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.NotDirectoryException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * A directory that a command writes its results to, named by an option: created and tried for writing before any
 * long work starts, so that a run is never lost to an output path that was wrong from the start.
 */
public final class OutputDirectory {

    private OutputDirectory() {}

    /**
     * Creates {@code dir} (and its missing parents) and checks that a file can be written in it.
     *
     * @param option the option that named the directory, for the message
     * @throws UserError naming the option, the path and the reason when the directory cannot be used
     */
    public static Path create(String option, Path dir) {
        return create(option, dir, false);
    }

    /**
     * As {@link #create}, the directories it creates mode 0700: for a node's data directory, which holds its key,
     * checkpoints and audit log.
     */
    public static Path createOwnerOnly(String option, Path dir) {
        return create(option, dir, true);
    }

    private static Path create(String option, Path dir, boolean ownerOnly) {
        if (dir.toString().isEmpty()) {
            throw new UserError(option + ": the path is empty; name a directory");
        }
        try {
            if (ownerOnly) {
                OwnerOnlyFiles.createDirectories(dir);
            } else {
                Files.createDirectories(dir);
            }
        } catch (FileAlreadyExistsException e) {
            throw new UserError(option + " " + dir + ": a file of that name exists; name a directory");
        } catch (IOException e) {
            Path file = fileAncestor(dir);
            throw new UserError(option + " " + dir + ": cannot create the directory ("
                    + (file != null ? file + " is a file" : reason(e)) + ")");
        }
        try {
            Path probe = Files.createTempFile(dir, ".chorus-write-check", ".tmp");
            Files.delete(probe);
        } catch (IOException e) {
            throw new UserError(option + " " + dir + ": cannot write in the directory (" + reason(e) + ")");
        }
        return dir;
    }

    /**
     * Checks, as {@link #create} does, that {@code dir} can be created and written, then removes the directories the
     * check created: for a command that writes its results only at the end of a long run, and should leave nothing
     * behind when it fails before then.
     */
    public static void check(String option, Path dir) {
        List<Path> missing = new ArrayList<>();
        if (!dir.toString().isEmpty()) {
            for (Path p = dir.toAbsolutePath(); p != null && !Files.exists(p); p = p.getParent()) {
                missing.add(p);
            }
        }
        create(option, dir);
        for (Path p : missing) {
            try {
                Files.deleteIfExists(p);
            } catch (IOException e) {
                return; // not empty after all (created meanwhile by someone else): leave it
            }
        }
    }

    /**
     * Removes {@code path} and everything under it, as far as it can: the clean-up of a command that failed after
     * creating files, which reports that failure rather than one of its own.
     */
    public static void removeTree(Path path) {
        if (!Files.exists(path, java.nio.file.LinkOption.NOFOLLOW_LINKS)) {
            return;
        }
        try (java.util.stream.Stream<Path> all = Files.walk(path)) {
            for (Path p : all.sorted(java.util.Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(p);
            }
        } catch (IOException | java.io.UncheckedIOException e) {
            // Left in place: the original failure is what the user needs to see.
        }
    }

    /** The nearest existing ancestor of {@code dir} when it is a regular file (so nothing can be created under it). */
    private static Path fileAncestor(Path dir) {
        for (Path p = dir.toAbsolutePath().getParent(); p != null; p = p.getParent()) {
            if (Files.exists(p)) {
                return Files.isRegularFile(p) ? p : null;
            }
        }
        return null;
    }

    /**
     * Why a file operation failed, in a few lower-case words for a message ("no such file or directory",
     * "permission denied"), without Java class names.
     */
    public static String reason(IOException e) {
        if (e instanceof NoSuchFileException) {
            return "no such file or directory";
        }
        if (e instanceof AccessDeniedException) {
            return "permission denied";
        }
        if (e instanceof FileAlreadyExistsException) {
            return "it already exists";
        }
        if (e instanceof NotDirectoryException) {
            return "not a directory";
        }
        String text = e instanceof FileSystemException fs ? fs.getReason() : e.getMessage();
        if (text == null || text.isBlank()) {
            return "input/output error";
        }
        return text.substring(0, 1).toLowerCase(Locale.ROOT) + text.substring(1);
    }
}
