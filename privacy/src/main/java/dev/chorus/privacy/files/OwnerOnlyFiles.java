package dev.chorus.privacy.files;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.OpenOption;
import java.nio.file.Path;
import java.nio.file.attribute.FileAttribute;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.EnumSet;
import java.util.Set;

/**
 * Creates files with POSIX mode 0600 and directories with 0700, set by the creation call itself: a file that is
 * created world-readable and narrowed afterwards can be opened by another account in between, and keeps that open
 * descriptor. The umask can only narrow these modes further. Where the file system has no POSIX permissions (FAT,
 * some network mounts, Windows) files are created with its defaults.
 */
public final class OwnerOnlyFiles {

    /** rw------- */
    public static final Set<PosixFilePermission> FILE_MODE =
            EnumSet.of(PosixFilePermission.OWNER_READ, PosixFilePermission.OWNER_WRITE);

    /** rwx------ */
    public static final Set<PosixFilePermission> DIRECTORY_MODE = EnumSet.of(
            PosixFilePermission.OWNER_READ, PosixFilePermission.OWNER_WRITE, PosixFilePermission.OWNER_EXECUTE);

    private OwnerOnlyFiles() {}

    /** Whether the file system that holds {@code path} (or its nearest existing ancestor) has POSIX permissions. */
    public static boolean posix(Path path) throws IOException {
        Path p = path.toAbsolutePath();
        while (p != null && !Files.exists(p)) {
            p = p.getParent();
        }
        return p != null && Files.getFileStore(p).supportsFileAttributeView("posix");
    }

    /** The attributes that make a file created in {@code dir} mode 0600 from its first instant. */
    public static FileAttribute<?>[] fileAttributes(Path dir) throws IOException {
        return posix(dir)
                ? new FileAttribute<?>[] {PosixFilePermissions.asFileAttribute(FILE_MODE)}
                : new FileAttribute<?>[0];
    }

    /** The attributes that make a directory created in {@code parent} mode 0700 from its first instant. */
    public static FileAttribute<?>[] directoryAttributes(Path parent) throws IOException {
        return posix(parent)
                ? new FileAttribute<?>[] {PosixFilePermissions.asFileAttribute(DIRECTORY_MODE)}
                : new FileAttribute<?>[0];
    }

    /**
     * Creates {@code dir} and its missing ancestors, each new one mode 0700; existing directories keep their mode (an
     * operator may have opened one on purpose).
     */
    public static void createDirectories(Path dir) throws IOException {
        Deque<Path> missing = new ArrayDeque<>();
        for (Path p = dir.toAbsolutePath(); p != null && !Files.isDirectory(p); p = p.getParent()) {
            missing.push(p);
        }
        FileAttribute<?>[] attrs = directoryAttributes(dir);
        for (Path p : missing) {
            try {
                Files.createDirectory(p, attrs);
            } catch (FileAlreadyExistsException e) {
                if (!Files.isDirectory(p)) {
                    throw e; // a file of that name: Files.createDirectories would fail the same way
                }
            }
        }
    }

    /** Opens {@code file} with {@code options}; when they create it, it is created mode 0600. */
    public static FileChannel open(Path file, Set<? extends OpenOption> options) throws IOException {
        return FileChannel.open(
                file, options, fileAttributes(file.toAbsolutePath().getParent()));
    }
}
