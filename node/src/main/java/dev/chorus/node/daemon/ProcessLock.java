package dev.chorus.node.daemon;

import dev.chorus.privacy.files.OwnerOnlyFiles;
import java.io.Closeable;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Optional;
import java.util.Set;

/**
 * An exclusive lock on a file, held for the life of a node, with the holder's PID written in it so that whoever is
 * refused can name the holder. The operating system releases the lock when the process ends, however it ends (a
 * {@code kill -9} leaves no stale lock to clean up); the file itself stays, and is reused by the next holder.
 */
final class ProcessLock implements Closeable {

    /** Another process, or another node in this one, holds the lock. */
    static final class HeldException extends Exception {
        private final transient Optional<Long> holder;

        HeldException(Optional<Long> holder) {
            super("held" + holder.map(pid -> " by pid " + pid).orElse(""));
            this.holder = holder;
        }

        /** The holder's PID, when the lock file names one. */
        Optional<Long> holder() {
            return holder;
        }
    }

    private final FileChannel channel;
    private final FileLock lock;

    private ProcessLock(FileChannel channel, FileLock lock) {
        this.channel = channel;
        this.lock = lock;
    }

    /**
     * Takes the lock on {@code file} (created mode 0600 when missing) and writes this process's PID in it.
     *
     * @throws HeldException when another holder has it
     * @throws IOException when the file cannot be created or locked at all
     */
    static ProcessLock acquire(Path file) throws HeldException, IOException {
        FileChannel ch = OwnerOnlyFiles.open(
                file, Set.of(StandardOpenOption.CREATE, StandardOpenOption.READ, StandardOpenOption.WRITE));
        FileLock l;
        try {
            l = ch.tryLock();
        } catch (OverlappingFileLockException e) {
            l = null; // held by this process: another node started in the same JVM
        } catch (IOException e) {
            ch.close();
            throw e;
        }
        if (l == null) {
            Optional<Long> holder = readPid(ch);
            ch.close();
            throw new HeldException(holder);
        }
        try {
            byte[] pid = (ProcessHandle.current().pid() + "\n").getBytes(StandardCharsets.US_ASCII);
            ch.truncate(0);
            ch.write(ByteBuffer.wrap(pid), 0);
            ch.force(false);
        } catch (IOException e) {
            l.release();
            ch.close();
            throw e;
        }
        return new ProcessLock(ch, l);
    }

    private static Optional<Long> readPid(FileChannel ch) {
        try {
            ByteBuffer buf = ByteBuffer.allocate(32);
            ch.read(buf, 0);
            String text = new String(buf.array(), 0, buf.position(), StandardCharsets.US_ASCII).strip();
            return text.matches("\\d{1,18}") ? Optional.of(Long.parseLong(text)) : Optional.empty();
        } catch (IOException e) {
            return Optional.empty();
        }
    }

    @Override
    public void close() throws IOException {
        try {
            lock.release();
        } finally {
            channel.close();
        }
    }
}
