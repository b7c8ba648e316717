package dev.chorus.learning.data;

import java.io.BufferedOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.channels.Channels;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.FileAttribute;
import java.security.DigestOutputStream;
import java.security.MessageDigest;
import java.util.Set;
import java.util.concurrent.ThreadLocalRandom;

/**
 * Writes a file so that readers see either its old content or the complete new one, never a
 * partial file: the content goes to a hidden temporary file in the target's directory, which is
 * flushed to disk and then renamed over the target. If writing fails, the temporary file is
 * deleted and the target is left as it was.
 */
public final class AtomicFile {

    /** Produces a file's content. */
    @FunctionalInterface
    public interface Content {
        void writeTo(OutputStream out) throws IOException;
    }

    private AtomicFile() {}

    /**
     * Writes {@code target} atomically and returns the SHA-256 (hex) of the bytes written. The
     * target's directory must exist.
     */
    public static String write(Path target, Content content) throws IOException {
        return write(target, content, new FileAttribute<?>[0]);
    }

    /**
     * As {@link #write(Path, Content)}, the temporary file (and so the target) created with {@code attributes}, e.g.
     * owner-only permissions: set at creation, the content is never readable with wider ones.
     */
    public static String write(Path target, Content content, FileAttribute<?>... attributes) throws IOException {
        Path dir = target.toAbsolutePath().getParent();
        String tmpName = "." + target.getFileName() + "."
                + Long.toHexString(ThreadLocalRandom.current().nextLong()) + ".tmp";
        Path tmp = dir.resolve(tmpName);
        boolean moved = false;
        try {
            MessageDigest digest = Sha256.newDigest();
            try (FileChannel channel = FileChannel.open(
                    tmp, Set.of(StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE), attributes)) {
                OutputStream out = new DigestOutputStream(
                        new BufferedOutputStream(Channels.newOutputStream(channel), 1 << 16), digest);
                content.writeTo(out);
                out.flush();
                channel.force(true);
            }
            try {
                Files.move(tmp, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
            } catch (AtomicMoveNotSupportedException e) {
                throw new IOException("cannot rename atomically into " + dir + ": " + e.getMessage(), e);
            }
            moved = true;
            return Sha256.hex(digest);
        } finally {
            if (!moved) {
                Files.deleteIfExists(tmp);
            }
        }
    }

    /** Writes {@code text} as UTF-8, atomically; returns its SHA-256. */
    public static String writeString(Path target, String text) throws IOException {
        byte[] bytes = text.getBytes(StandardCharsets.UTF_8);
        return write(target, out -> out.write(bytes));
    }
}
