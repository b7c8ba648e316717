package dev.chorus.gossip.identity;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.AccessDeniedException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.FileAttribute;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.EnumSet;
import java.util.Locale;
import java.util.Set;

/**
 * The node's identity key on disk: the raw {@code PrivateKey} protobuf (the same bytes js-libp2p's
 * {@code privateKeyToProtobuf} writes), in a file created with POSIX mode 0600. A file that group or
 * others may read or write is refused, as is one whose content is not a valid key.
 */
public final class KeyFile {
    private static final Set<PosixFilePermission> OWNER_ONLY =
            EnumSet.of(PosixFilePermission.OWNER_READ, PosixFilePermission.OWNER_WRITE);
    private static final long MAX_FILE_BYTES = 4096;

    private KeyFile() {}

    /** Loads the key in {@code path}, or creates a fresh one there if the file does not exist. */
    public static PrivateKey loadOrCreate(Path path) {
        if (Files.exists(path, LinkOption.NOFOLLOW_LINKS)) {
            return load(path);
        }
        PrivateKey key = PrivateKey.generate();
        try {
            create(path, key);
        } catch (KeyFileException e) {
            if (e.getCause() instanceof FileAlreadyExistsException) {
                return load(path); // created concurrently by another process
            }
            throw e;
        }
        return key;
    }

    public static PrivateKey load(Path path) {
        if (Files.isDirectory(path)) {
            throw new KeyFileException("key file " + path + " is a directory, not a key file");
        }
        try {
            checkPermissions(path);
            long size = Files.size(path);
            if (size > MAX_FILE_BYTES) {
                throw new KeyFileException(
                        "key file " + path + " is corrupt: " + size + " bytes is too large for a key");
            }
            byte[] bytes = Files.readAllBytes(path);
            try {
                return PrivateKey.fromProtobuf(bytes);
            } catch (InvalidKeyException e) {
                throw new KeyFileException("key file " + path + " is corrupt: " + e.getMessage(), e);
            }
        } catch (NoSuchFileException e) {
            throw new KeyFileException("key file " + path + " does not exist", e);
        } catch (IOException e) {
            throw new KeyFileException("cannot read key file " + path + ": " + reason(e), e);
        }
    }

    /** Writes {@code key} to a new file with mode 0600; fails if the file exists. */
    public static void create(Path path, PrivateKey key) {
        byte[] bytes = key.toProtobuf();
        try {
            Path parent = path.toAbsolutePath().getParent();
            if (parent != null) {
                if (Files.exists(parent) && !Files.isDirectory(parent)) {
                    throw new KeyFileException(
                            "cannot create key file " + path + ": " + parent + " is a file, not a directory");
                }
                try {
                    Files.createDirectories(parent);
                } catch (IOException e) {
                    throw new KeyFileException(
                            "cannot create key file " + path + ": cannot create " + parent + " (" + reason(e) + ")", e);
                }
            }
            boolean posix = Files.getFileStore(parent).supportsFileAttributeView("posix");
            FileAttribute<?>[] attrs = posix
                    ? new FileAttribute<?>[] {PosixFilePermissions.asFileAttribute(OWNER_ONLY)}
                    : new FileAttribute<?>[0];
            Files.createFile(path, attrs);
            if (posix) {
                // The umask may have narrowed the mode further, never widened it; set it exactly.
                Files.setPosixFilePermissions(path, OWNER_ONLY);
            }
            try (OutputStream out = Files.newOutputStream(path, StandardOpenOption.WRITE, StandardOpenOption.SYNC)) {
                out.write(bytes);
            }
        } catch (FileAlreadyExistsException e) {
            throw new KeyFileException("key file " + path + " already exists", e);
        } catch (IOException e) {
            throw new KeyFileException("cannot create key file " + path + ": " + reason(e), e);
        } finally {
            java.util.Arrays.fill(bytes, (byte) 0);
        }
    }

    /** Why a file operation failed, in a few lower-case words, without Java class names. */
    private static String reason(IOException e) {
        if (e instanceof NoSuchFileException) {
            return "no such file or directory";
        }
        if (e instanceof AccessDeniedException) {
            return "permission denied";
        }
        if (e instanceof FileAlreadyExistsException) {
            return "a file of that name exists";
        }
        String text = e instanceof FileSystemException fs ? fs.getReason() : e.getMessage();
        if (text == null || text.isBlank()) {
            return "input/output error";
        }
        return text.substring(0, 1).toLowerCase(Locale.ROOT) + text.substring(1);
    }

    private static void checkPermissions(Path path) throws IOException {
        if (!Files.getFileStore(path).supportsFileAttributeView("posix")) {
            return;
        }
        Set<PosixFilePermission> perms = Files.getPosixFilePermissions(path);
        Set<PosixFilePermission> extra = EnumSet.copyOf(perms);
        extra.removeAll(OWNER_ONLY);
        extra.remove(PosixFilePermission.OWNER_EXECUTE);
        if (!extra.isEmpty()) {
            throw new KeyFileException("key file " + path + " has permissions " + PosixFilePermissions.toString(perms)
                    + "; it must be readable by its owner only (chmod 600 " + path + ")");
        }
    }
}
