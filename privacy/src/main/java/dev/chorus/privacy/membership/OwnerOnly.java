package dev.chorus.privacy.membership;

import dev.chorus.privacy.files.OwnerOnlyFiles;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.attribute.FileAttribute;
import java.nio.file.attribute.PosixFilePermission;
import java.util.EnumSet;
import java.util.Set;

/**
 * Files that hold secrets (the CA key, a passphrase) are readable and writable by their owner only, POSIX mode 0600;
 * where the file system has no POSIX permissions there is nothing to check.
 */
final class OwnerOnly {

    static final Set<PosixFilePermission> MODE = OwnerOnlyFiles.FILE_MODE;

    private OwnerOnly() {}

    /**
     * Refuses {@code file} when its group or others have any permission on it: a key or passphrase that another
     * account could read is no longer the institution's alone.
     */
    static void check(Path file, String what) {
        try {
            if (!Files.getFileStore(file).supportsFileAttributeView("posix")) {
                return;
            }
            Set<PosixFilePermission> perms = Files.getPosixFilePermissions(file);
            Set<PosixFilePermission> extra = EnumSet.noneOf(PosixFilePermission.class);
            extra.addAll(perms);
            extra.removeAll(MODE);
            extra.remove(PosixFilePermission.OWNER_EXECUTE);
            if (!extra.isEmpty()) {
                throw new MembershipException(what + " " + file + " has mode " + octal(perms)
                        + "; it must be readable by its owner only: run chmod 600 " + file);
            }
        } catch (NoSuchFileException e) {
            throw new MembershipException(what + " " + file + " does not exist", e);
        } catch (IOException e) {
            throw new MembershipException("cannot read " + what + " " + file + ": " + Pem.reason(e), e);
        }
    }

    /** The creation attribute that makes a new file 0600 from its first instant, where POSIX permissions exist. */
    static FileAttribute<?>[] creationAttributes(Path dir) throws IOException {
        return OwnerOnlyFiles.fileAttributes(dir);
    }

    /** {@code 0644} for rw-r--r--. */
    static String octal(Set<PosixFilePermission> perms) {
        int mode = 0;
        for (PosixFilePermission p : perms) {
            mode |= 1 << (8 - p.ordinal());
        }
        return String.format("%04o", mode);
    }
}
