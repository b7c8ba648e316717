package dev.chorus.privacy.audit;

import dev.chorus.privacy.audit.EgressRecord.Sent;
import dev.chorus.privacy.files.OwnerOnlyFiles;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.security.MessageDigest;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HexFormat;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The egress audit log: every outbound payload as one hash-chained JSON line (see {@link EgressRecord}) in
 * {@code egress-YYYYMMDD-SEQ.jsonl} files under one directory, where {@code YYYYMMDD} is the UTC day of the file's
 * records and {@code SEQ} the seq of its first record.
 *
 * <p><b>Threads.</b> {@link #begin} and {@link Payload#update} run on the sender's thread: the bytes are hashed
 * where they are, never copied. {@link Payload#finish} puts the finished record on a bounded queue that one writer
 * thread drains; the writer assigns the seq, chains the hash and appends the line.
 *
 * <p><b>A full queue.</b> An audit log should not lose records, so a sender whose record finds the queue full waits
 * for room (back-pressure on the sender) - but at most {@link Options#maxBlock()}, since the sender may be a
 * network event loop that must not stall forever. A record that still finds no room is counted as dropped
 * ({@link #dropped()}), a warning is logged, and the writer appends an {@code audit-dropped} record with the count
 * and the bytes as soon as it can: a loss is visible in the chain itself, never silent.
 *
 * <p><b>Durability.</b> Each line is written with one {@code write} call as soon as it is dequeued, so a crash of
 * the process loses nothing the writer has dequeued. The file is forced to the disk ({@code fsync}) at most every
 * {@link Options#syncInterval()} while records arrive, when a file is rotated, and on {@link #close}: a power loss
 * can lose the records of the last sync interval. A line torn by a crash is found at the next start, cut off, and
 * recorded as an {@code audit-recovered} record (with its length and hash) before anything else.
 *
 * <p><b>Bounded.</b> A new file starts each UTC day and whenever a file would exceed {@link Options#maxFileBytes()}.
 * Files whose day is more than {@link Options#retentionDays()} days ago are deleted; when all files together exceed
 * {@link Options#maxTotalBytes()} the oldest are deleted early, each with a warning. The file being written is never
 * deleted.
 */
public final class EgressAuditLog implements EgressRecorder, AutoCloseable {

    private static final System.Logger LOG = System.getLogger(EgressAuditLog.class.getName());
    private static final Pattern FILE_NAME = Pattern.compile("egress-(\\d{8})-(\\d{12})\\.jsonl");
    private static final DateTimeFormatter DAY = DateTimeFormatter.BASIC_ISO_DATE;
    private static final HexFormat HEX = HexFormat.of();
    private static final String LOCK_FILE = ".lock";
    /** Longer lines are not records the log writes; the verifier stops at them instead of buffering them. */
    static final int MAX_LINE_BYTES = 64 * 1024;

    /** Tells the writer to stop; compared by identity, never written. */
    private static final Sent STOP = new Sent(Instant.EPOCH, "", "", "audit-stop", 0, "", NO_VERSION);

    /**
     * How the log is bounded and paced.
     *
     * @param retentionDays days a file is kept after its day ends (at least 1)
     * @param maxTotalBytes cap on all files together
     * @param maxFileBytes size at which a new file starts (at most {@code maxTotalBytes})
     * @param queueCapacity records waiting for the writer
     * @param maxBlock how long a sender waits for room in a full queue before the record is counted as dropped
     * @param syncInterval how often the file is forced to the disk while records arrive
     * @param clock the time of records and of retention
     * @param warnings where warnings go (file pruned for size, records dropped, write failures)
     */
    public record Options(
            int retentionDays,
            long maxTotalBytes,
            long maxFileBytes,
            int queueCapacity,
            Duration maxBlock,
            Duration syncInterval,
            InstantSource clock,
            Consumer<String> warnings) {

        public Options {
            if (retentionDays < 1) {
                throw new IllegalArgumentException("retentionDays must be at least 1, got " + retentionDays);
            }
            if (maxFileBytes < 4096 || maxFileBytes > maxTotalBytes) {
                throw new IllegalArgumentException("maxFileBytes must lie in [4096, maxTotalBytes], got " + maxFileBytes
                        + " (total " + maxTotalBytes + ")");
            }
            if (queueCapacity < 1) {
                throw new IllegalArgumentException("queueCapacity must be at least 1");
            }
            Objects.requireNonNull(maxBlock, "maxBlock");
            Objects.requireNonNull(syncInterval, "syncInterval");
            Objects.requireNonNull(clock, "clock");
            Objects.requireNonNull(warnings, "warnings");
        }

        /** 90 days, 1 GiB in files of at most 64 MiB, 65536 queued records, 2 s of back-pressure, sync every 1 s. */
        public static Options defaults() {
            return new Options(
                    90,
                    1L << 30,
                    64L << 20,
                    65536,
                    Duration.ofSeconds(2),
                    Duration.ofSeconds(1),
                    InstantSource.system(),
                    w -> LOG.log(System.Logger.Level.WARNING, w));
        }

        /** Keeps {@code days} days and at most {@code maxTotal} bytes, in files of at most an eighth of it. */
        public Options withRetention(int days, long maxTotal) {
            return new Options(
                    days,
                    maxTotal,
                    Math.max(4096, Math.min(64L << 20, maxTotal / 8)),
                    queueCapacity,
                    maxBlock,
                    syncInterval,
                    clock,
                    warnings);
        }

        public Options withFileBytes(long max) {
            return new Options(
                    retentionDays, maxTotalBytes, max, queueCapacity, maxBlock, syncInterval, clock, warnings);
        }

        public Options withQueue(int capacity, Duration block) {
            return new Options(
                    retentionDays, maxTotalBytes, maxFileBytes, capacity, block, syncInterval, clock, warnings);
        }

        public Options withClock(InstantSource c) {
            return new Options(
                    retentionDays, maxTotalBytes, maxFileBytes, queueCapacity, maxBlock, syncInterval, c, warnings);
        }

        public Options withWarnings(Consumer<String> w) {
            return new Options(
                    retentionDays, maxTotalBytes, maxFileBytes, queueCapacity, maxBlock, syncInterval, clock, w);
        }
    }

    private final Path dir;
    private final Options options;
    /** Finished payloads on their way to the writer. */
    private final BlockingQueue<Sent> queue;

    private final FileChannel lockChannel;
    private final FileLock lock;
    private final Thread writer;
    private final AtomicLong written = new AtomicLong();
    private final AtomicLong bytesWritten = new AtomicLong();
    private final AtomicLong dropped = new AtomicLong();
    private final Object dropLock = new Object();
    private long unreportedDrops; // guarded by dropLock
    private long unreportedDroppedBytes; // guarded by dropLock
    private volatile boolean closed;

    // Writer thread state.
    private long nextSeq;
    private String head = EgressRecord.GENESIS;
    private volatile String publishedHead = EgressRecord.GENESIS;
    private FileChannel current;
    private Path currentPath;
    private LocalDate currentDay;
    private long currentSize;
    private long lastSyncNanos = System.nanoTime();
    private boolean unsynced;
    private LocalDate lastPruneDay;
    private String recovered; // note of an audit-recovered record to write first, or null
    private String recoveredSha;
    private long recoveredBytes;

    private EgressAuditLog(Path dir, Options options) {
        this.dir = dir;
        this.options = options;
        this.queue = new ArrayBlockingQueue<>(options.queueCapacity());
        try {
            OwnerOnlyFiles.createDirectories(dir);
            lockChannel = OwnerOnlyFiles.open(
                    dir.resolve(LOCK_FILE), Set.of(StandardOpenOption.CREATE, StandardOpenOption.WRITE));
        } catch (IOException e) {
            throw new AuditLogException("cannot open the audit log in " + dir + ": " + e.getMessage(), e);
        }
        FileLock l;
        try {
            l = lockChannel.tryLock();
        } catch (IOException | OverlappingFileLockException e) {
            l = null;
        }
        if (l == null) {
            closeQuietly(lockChannel);
            throw new AuditLogException("the audit log in " + dir + " is in use by another process");
        }
        lock = l;
        try {
            resume();
            prune();
        } catch (IOException | RuntimeException e) {
            closeQuietly(current);
            closeQuietly(lockChannel);
            if (e instanceof AuditLogException a) {
                throw a;
            }
            throw new AuditLogException("cannot open the audit log in " + dir + ": " + e.getMessage(), e);
        }
        writer = new Thread(this::drain, "chorus-egress-audit");
        writer.setDaemon(true);
        writer.start();
    }

    /**
     * Opens (or creates) the log in {@code dir} and continues its chain.
     *
     * @throws AuditLogException when the directory cannot be used or its newest record cannot be read
     */
    public static EgressAuditLog open(Path dir, Options options) {
        return new EgressAuditLog(dir, options);
    }

    public Path directory() {
        return dir;
    }

    /** Records appended so far by this instance. */
    public long written() {
        return written.get();
    }

    /** Bytes of the records appended so far by this instance: how fast the log grows. */
    public long bytesWritten() {
        return bytesWritten.get();
    }

    /** Bytes of the log's files in its directory now (what counts against the cap). */
    public long sizeOnDisk() {
        try (java.util.stream.Stream<Path> files = Files.list(dir)) {
            return files.filter(Files::isRegularFile)
                    .mapToLong(f -> {
                        try {
                            return Files.size(f);
                        } catch (IOException e) {
                            return 0; // deleted by pruning meanwhile
                        }
                    })
                    .sum();
        } catch (IOException e) {
            return -1;
        }
    }

    /** Payloads that found the queue full for longer than {@link Options#maxBlock()} (or came after close). */
    public long dropped() {
        return dropped.get();
    }

    /** Records waiting for the writer. */
    public int queued() {
        return queue.size();
    }

    /** The hash of the newest record written, as far as the writer has got. */
    public String head() {
        return publishedHead;
    }

    // ------------------------------------------------------------------ recording (any thread)

    @Override
    public Payload begin(String peer, String protocol, String kind, long version) {
        Objects.requireNonNull(peer, "peer");
        Objects.requireNonNull(protocol, "protocol");
        if (kind == null || kind.isEmpty() || kind.startsWith("audit-")) {
            throw new IllegalArgumentException("kind must be non-empty and not start with audit-: " + kind);
        }
        return new Recording(peer, protocol, kind, version < 0 ? NO_VERSION : version);
    }

    private final class Recording implements Payload {
        private final String peer;
        private final String protocol;
        private final String kind;
        private final long version;
        private final MessageDigest md = EgressRecord.newSha256();
        private long bytes;
        private boolean finished;

        Recording(String peer, String protocol, String kind, long version) {
            this.peer = peer;
            this.protocol = protocol;
            this.kind = kind;
            this.version = version;
        }

        @Override
        public void update(byte[] b, int offset, int length) {
            md.update(b, offset, length);
            bytes += length;
        }

        @Override
        public void update(ByteBuffer b) {
            bytes += b.remaining();
            md.update(b);
        }

        @Override
        public void finish() {
            if (finished) {
                return;
            }
            finished = true;
            enqueue(new Sent(
                    options.clock().instant().truncatedTo(ChronoUnit.MILLIS),
                    peer,
                    protocol,
                    kind,
                    bytes,
                    HEX.formatHex(md.digest()),
                    version));
        }
    }

    private void enqueue(Sent p) {
        if (closed) {
            dropped.incrementAndGet();
            options.warnings()
                    .accept("egress audit log is closed: " + p.kind() + " of " + p.bytes() + " bytes to " + p.peer()
                            + " was not recorded");
            return;
        }
        boolean queued = queue.offer(p);
        if (!queued) {
            try {
                queued = queue.offer(p, options.maxBlock().toNanos(), TimeUnit.NANOSECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        if (!queued) {
            long n = dropped.incrementAndGet();
            synchronized (dropLock) {
                unreportedDrops++;
                unreportedDroppedBytes += p.bytes();
            }
            if (Long.bitCount(n) == 1) { // 1, 2, 4, 8...: enough to be seen, never a flood
                options.warnings()
                        .accept("egress audit queue full for " + options.maxBlock() + ": " + n
                                + " payload(s) not recorded so far; an audit-dropped record will say so");
            }
        }
    }

    // ------------------------------------------------------------------ the writer thread

    private void drain() {
        List<Sent> batch = new ArrayList<>();
        boolean stopping = false;
        try {
            writeRecovered();
        } catch (InterruptedException e) {
            stopping = true;
        }
        while (!stopping) {
            try {
                Sent first = queue.poll(options.syncInterval().toNanos(), TimeUnit.NANOSECONDS);
                if (first != null) {
                    batch.add(first);
                    queue.drainTo(batch, 1024);
                }
                for (Sent p : batch) {
                    if (p == STOP) {
                        stopping = true;
                        continue;
                    }
                    appendWithRetry(p, stopping);
                }
                batch.clear();
                writeDropsRecord(stopping);
                maybeSync(stopping);
                LocalDate today = day(options.clock().instant());
                if (!today.equals(lastPruneDay)) {
                    prune();
                }
            } catch (InterruptedException e) {
                stopping = true;
            } catch (IOException | RuntimeException e) {
                options.warnings().accept("egress audit writer: " + e);
            }
        }
        // Payloads finished while close() ran.
        queue.drainTo(batch);
        try {
            for (Sent p : batch) {
                if (p != STOP) {
                    appendWithRetry(p, true);
                }
            }
            writeDropsRecord(true);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        try {
            if (current != null) {
                current.force(false);
                current.close();
            }
        } catch (IOException e) {
            options.warnings().accept("egress audit log: cannot sync " + currentPath + " on close: " + e.getMessage());
        }
    }

    private void writeDropsRecord(boolean stopping) throws InterruptedException {
        long n, b;
        synchronized (dropLock) {
            n = unreportedDrops;
            b = unreportedDroppedBytes;
            unreportedDrops = 0;
            unreportedDroppedBytes = 0;
        }
        if (n > 0) {
            String note = n + " payload(s) of " + b + " bytes in all were sent but not recorded: the audit queue stayed"
                    + " full for " + options.maxBlock();
            appendWithRetry(new Sent(now(), "", "", EgressRecord.KIND_DROPPED, b, "", NO_VERSION), note, stopping);
        }
    }

    private void appendWithRetry(Sent p, boolean stopping) throws InterruptedException {
        appendWithRetry(p, null, stopping);
    }

    /** The record of a torn line cut off at open comes first, before any payload. */
    private void writeRecovered() throws InterruptedException {
        if (recovered != null) {
            String note = recovered;
            recovered = null;
            appendWithRetry(
                    new Sent(now(), "", "", EgressRecord.KIND_RECOVERED, recoveredBytes, recoveredSha, NO_VERSION),
                    note,
                    false);
        }
    }

    /** Appends one record; on an I/O error waits and retries (the queue then back-pressures the senders). */
    private void appendWithRetry(Sent p, String note, boolean stopping) throws InterruptedException {
        for (int attempt = 0; ; attempt++) {
            try {
                append(p, note);
                return;
            } catch (IOException e) {
                if (stopping || attempt >= 1000) {
                    dropped.incrementAndGet();
                    options.warnings()
                            .accept("egress audit log: cannot write to " + currentPath + ", record lost: "
                                    + e.getMessage());
                    return;
                }
                if (attempt == 0) {
                    options.warnings()
                            .accept("egress audit log: cannot write to " + currentPath + " (" + e.getMessage()
                                    + "); retrying every second");
                }
                Thread.sleep(1000);
            }
        }
    }

    private void append(Sent p, String note) throws IOException {
        EgressRecord r = EgressRecord.chain(nextSeq, p, note, head);
        byte[] line = r.line().getBytes(StandardCharsets.UTF_8);
        LocalDate d = day(p.time());
        if (current == null
                || d.isAfter(currentDay)
                || (currentSize > 0 && currentSize + line.length > options.maxFileBytes())) {
            // Records reach the writer in finish order, so a time a little before midnight may follow one after
            // it: such a record stays in the newer day's file rather than reopening the older one.
            rotate(currentDay == null || d.isAfter(currentDay) ? d : currentDay);
        }
        long before = currentSize;
        ByteBuffer buf = ByteBuffer.wrap(line);
        try {
            while (buf.hasRemaining()) {
                current.write(buf);
            }
        } catch (IOException e) {
            try {
                current.truncate(before);
            } catch (IOException ignored) {
                // the verifier will report the torn line; the next start cuts it off
            }
            throw e;
        }
        currentSize += line.length;
        bytesWritten.addAndGet(line.length);
        head = r.hash();
        publishedHead = head;
        nextSeq++;
        unsynced = true;
        written.incrementAndGet();
    }

    private void rotate(LocalDate d) throws IOException {
        if (current != null) {
            current.force(false);
            current.close();
            current = null;
            unsynced = false;
        }
        Path p = dir.resolve(fileName(d, nextSeq));
        current = OwnerOnlyFiles.open(
                p, Set.of(StandardOpenOption.CREATE, StandardOpenOption.WRITE, StandardOpenOption.APPEND));
        currentPath = p;
        currentDay = d;
        currentSize = current.size();
        prune();
    }

    private void maybeSync(boolean force) throws IOException {
        if (current != null
                && unsynced
                && (force
                        || System.nanoTime() - lastSyncNanos
                                >= options.syncInterval().toNanos())) {
            current.force(false);
            unsynced = false;
            lastSyncNanos = System.nanoTime();
        }
    }

    /**
     * Deletes files past retention, then the oldest while the others and a full current file together would exceed
     * the cap (so the directory never holds more than the cap); never the current file.
     */
    private void prune() throws IOException {
        LocalDate today = day(options.clock().instant());
        lastPruneDay = today;
        List<LogFile> files = list(dir);
        long total = options.maxFileBytes(); // room for the current file, whether it exists yet or not
        for (LogFile f : files) {
            if (!f.path().equals(currentPath)) {
                total += f.size();
            }
        }
        for (LogFile f : files) {
            if (f.path().equals(currentPath)) {
                break;
            }
            if (f.day().plusDays(options.retentionDays()).isBefore(today)) {
                Files.deleteIfExists(f.path());
                total -= f.size();
                LOG.log(
                        System.Logger.Level.INFO,
                        "egress audit log: deleted {0}: older than {1} days",
                        f.path().getFileName(),
                        options.retentionDays());
            } else if (total > options.maxTotalBytes()) {
                Files.deleteIfExists(f.path());
                total -= f.size();
                options.warnings()
                        .accept("egress audit log over its size cap of " + options.maxTotalBytes() + " bytes: deleted "
                                + f.path().getFileName() + " (" + f.size() + " bytes, records from seq "
                                + f.firstSeq() + ") before its retention of " + options.retentionDays()
                                + " days; raise the cap to keep more");
            }
        }
    }

    private Instant now() {
        return options.clock().instant().truncatedTo(ChronoUnit.MILLIS);
    }

    // ------------------------------------------------------------------ resuming the chain at open

    /** Finds the newest complete record to chain after; cuts a torn last line off and remembers to record that. */
    private void resume() throws IOException {
        List<LogFile> files = list(dir);
        for (int i = files.size() - 1; i >= 0; i--) {
            LogFile f = files.get(i);
            Tail t = tail(f.path());
            if (i == files.size() - 1 && t.torn() != null) {
                long lines = countLines(f.path(), t.completeBytes());
                try (FileChannel ch = FileChannel.open(f.path(), StandardOpenOption.WRITE)) {
                    ch.truncate(t.completeBytes());
                    ch.force(true);
                }
                recovered = "cut " + t.torn().length + " bytes of an incomplete record after line " + lines + " of "
                        + f.path().getFileName() + ", left by a crash mid-write";
                recoveredSha = HEX.formatHex(EgressRecord.newSha256().digest(t.torn()));
                recoveredBytes = t.torn().length;
                options.warnings().accept("egress audit log: " + recovered);
            }
            if (t.last() != null) {
                EgressRecord r;
                try {
                    r = EgressRecord.parse(t.last());
                } catch (IllegalArgumentException e) {
                    throw new AuditLogException("the newest record in " + f.path() + " is unreadable (" + e.getMessage()
                            + "); run 'chorus audit verify' and move the damaged files away");
                }
                nextSeq = r.seq() + 1;
                head = r.hash();
                publishedHead = head;
                break;
            }
        }
        if (!files.isEmpty()) {
            LogFile last = files.getLast();
            LocalDate today = day(options.clock().instant());
            long size = Files.size(last.path());
            boolean empty = size == 0;
            // Continue today's newest file, unless it is full or an empty file whose name names another seq.
            if (last.day().equals(today) && size < options.maxFileBytes() && (!empty || last.firstSeq() == nextSeq)) {
                current = FileChannel.open(last.path(), StandardOpenOption.WRITE, StandardOpenOption.APPEND);
                currentPath = last.path();
                currentDay = today;
                currentSize = size;
            }
        }
    }

    /**
     * The end of a file.
     *
     * @param last the last newline-terminated line (without the newline), or null when there is none
     * @param torn bytes after the last newline, or null
     * @param completeBytes the file's length without the torn bytes
     */
    private record Tail(String last, byte[] torn, long completeBytes) {}

    private static Tail tail(Path p) throws IOException {
        try (FileChannel ch = FileChannel.open(p, StandardOpenOption.READ)) {
            long size = ch.size();
            int n = (int) Math.min(size, 2L * MAX_LINE_BYTES + 2);
            ByteBuffer buf = ByteBuffer.allocate(n);
            while (buf.hasRemaining() && ch.read(buf, size - n + buf.position()) >= 0) {
                // read until full
            }
            byte[] b = buf.array();
            int lastNl = lastIndexOf(b, n - 1);
            byte[] torn = null;
            if (lastNl < n - 1) {
                if (lastNl < 0 && size > n) {
                    throw new AuditLogException(p + " ends in " + n + "+ bytes without a newline: not an audit log");
                }
                torn = java.util.Arrays.copyOfRange(b, lastNl + 1, n);
            }
            long complete = size - (torn == null ? 0 : torn.length);
            if (lastNl < 0) {
                return new Tail(null, torn, complete);
            }
            int prevNl = lastIndexOf(b, lastNl - 1);
            if (prevNl < 0 && size > n) {
                throw new AuditLogException(
                        p + " has a line longer than " + MAX_LINE_BYTES + " bytes: not an audit log");
            }
            return new Tail(new String(b, prevNl + 1, lastNl - prevNl - 1, StandardCharsets.UTF_8), torn, complete);
        }
    }

    private static int lastIndexOf(byte[] b, int from) {
        for (int i = from; i >= 0; i--) {
            if (b[i] == '\n') {
                return i;
            }
        }
        return -1;
    }

    private static long countLines(Path p, long limit) throws IOException {
        long lines = 0, read = 0;
        try (InputStream in = Files.newInputStream(p)) {
            byte[] buf = new byte[1 << 16];
            int n;
            while (read < limit && (n = in.read(buf, 0, (int) Math.min(buf.length, limit - read))) > 0) {
                for (int i = 0; i < n; i++) {
                    if (buf[i] == '\n') {
                        lines++;
                    }
                }
                read += n;
            }
        }
        return lines;
    }

    // ------------------------------------------------------------------ close

    /** Writes every queued record, forces the file to the disk and releases the directory. Idempotent. */
    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        try {
            queue.put(STOP);
            writer.join(Duration.ofSeconds(60));
            if (writer.isAlive()) {
                options.warnings()
                        .accept("egress audit writer did not finish within 60 s; " + queue.size()
                                + " record(s) may be lost");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } finally {
            try {
                lock.release();
            } catch (IOException ignored) {
                // closing the channel releases it too
            }
            closeQuietly(lockChannel);
        }
    }

    // ------------------------------------------------------------------ reading and verifying

    /** A log file, from its name. */
    record LogFile(Path path, LocalDate day, long firstSeq, long size) {}

    static String fileName(LocalDate day, long firstSeq) {
        return String.format(java.util.Locale.ROOT, "egress-%s-%012d.jsonl", DAY.format(day), firstSeq);
    }

    /** The log files in {@code dir}, oldest first (by the seq of their first record). */
    static List<LogFile> list(Path dir) throws IOException {
        List<LogFile> out = new ArrayList<>();
        try (DirectoryStream<Path> ds = Files.newDirectoryStream(dir, "egress-*.jsonl")) {
            for (Path p : ds) {
                Matcher m = FILE_NAME.matcher(p.getFileName().toString());
                if (!m.matches() || !Files.isRegularFile(p)) {
                    continue;
                }
                LocalDate d;
                try {
                    d = LocalDate.parse(m.group(1), DAY);
                } catch (RuntimeException e) {
                    continue;
                }
                long size;
                try {
                    size = Files.size(p);
                } catch (NoSuchFileException e) {
                    continue;
                }
                out.add(new LogFile(p, d, Long.parseLong(m.group(2)), size));
            }
        }
        out.sort(Comparator.comparingLong(LogFile::firstSeq).thenComparing(LogFile::day));
        return out;
    }

    /**
     * Walks every file of the log in {@code dir} and checks the chain: each line a well-formed record whose hash
     * matches its content, seqs consecutive, each {@code prev} the hash of the record before, each file starting at
     * the seq its name says. Stops at the first broken record.
     *
     * @throws AuditLogException when {@code dir} cannot be read
     */
    public static AuditVerification verify(Path dir) {
        List<String> notices = new ArrayList<>();
        String[] problem = {null};
        long[] count = {0};
        long[] first = {-1};
        long[] last = {-1};
        String[] head = {EgressRecord.GENESIS};
        int files = walk(dir, (loc, r) -> {
            if (problem[0] != null) {
                return false;
            }
            if (loc.error() != null) {
                problem[0] = loc + ": " + loc.error();
                return false;
            }
            if (count[0] == 0) {
                first[0] = r.seq();
                if (!r.prev().equals(EgressRecord.GENESIS) || r.seq() != 0) {
                    notices.add(loc + ": the chain starts at seq " + r.seq()
                            + ": older files were deleted (retention or size cap)");
                }
            } else if (r.seq() != last[0] + 1) {
                problem[0] = loc + ": seq " + r.seq() + " where " + (last[0] + 1)
                        + " was expected: a record was deleted, reordered or inserted";
                return false;
            } else if (!r.prev().equals(head[0])) {
                problem[0] = loc + ": prev does not match the hash of the record before (seq " + last[0]
                        + "): a record was edited, deleted or reordered";
                return false;
            }
            if (loc.firstInFile() && r.seq() != loc.file().firstSeq()) {
                problem[0] = loc + ": the file name says its first record is seq "
                        + loc.file().firstSeq() + ", found seq " + r.seq()
                        + ": records were deleted at the start of the file";
                return false;
            }
            if (r.isAuditEvent()) {
                notices.add(loc + ": " + r.kind() + ": " + r.note());
            }
            count[0]++;
            last[0] = r.seq();
            head[0] = r.hash();
            return true;
        });
        return new AuditVerification(files, count[0], first[0], last[0], head[0], problem[0], notices);
    }

    /**
     * Every record of the log in {@code dir}, oldest first; a torn last line (a crash mid-write) is skipped.
     *
     * @throws AuditLogException at the first line that is not a valid record, naming it as {@code FILE:LINE}
     */
    public static void read(Path dir, Consumer<EgressRecord> sink) {
        walk(dir, (loc, r) -> {
            if (loc.error() != null) {
                if (loc.torn()) {
                    return false;
                }
                throw new AuditLogException(loc + ": " + loc.error() + " (run 'chorus audit verify')");
            }
            sink.accept(r);
            return true;
        });
    }

    /** Where a line is, and what was wrong with it (null when it parsed). */
    record Location(LogFile file, long line, boolean firstInFile, boolean torn, String error) {
        @Override
        public String toString() {
            return file.path().getFileName() + ":" + line;
        }
    }

    private interface LineVisitor {
        /** Returns false to stop. */
        boolean visit(Location loc, EgressRecord record);
    }

    /** Calls {@code v} for each line of each file, in order; returns the number of files. */
    private static int walk(Path dir, LineVisitor v) {
        List<LogFile> files;
        try {
            if (!Files.isDirectory(dir)) {
                throw new AuditLogException("no audit log directory at " + dir);
            }
            files = list(dir);
        } catch (IOException e) {
            throw new AuditLogException("cannot read " + dir + ": " + e.getMessage(), e);
        }
        for (int fi = 0; fi < files.size(); fi++) {
            LogFile f = files.get(fi);
            boolean lastFile = fi == files.size() - 1;
            try (InputStream in = Files.newInputStream(f.path())) {
                Lines lines = new Lines(in);
                byte[] buf = new byte[MAX_LINE_BYTES + 1];
                long lineNo = 0;
                while (true) {
                    int n = lines.next(buf);
                    if (n < 0) {
                        break;
                    }
                    lineNo++;
                    Location loc;
                    EgressRecord r = null;
                    if (n > MAX_LINE_BYTES) {
                        loc = new Location(
                                f, lineNo, lineNo == 1, false, "line longer than " + MAX_LINE_BYTES + " bytes");
                    } else if (!lines.terminated) {
                        String why = lastFile
                                ? "incomplete last record (" + n + " bytes without a newline): the node stopped"
                                        + " mid-write; its next start cuts it off and records that it did"
                                : "incomplete record (" + n + " bytes without a newline) at the end of a file that is"
                                        + " not the newest";
                        loc = new Location(f, lineNo, lineNo == 1, lastFile, why);
                    } else {
                        String text = new String(buf, 0, n, StandardCharsets.UTF_8);
                        String error = null;
                        try {
                            r = EgressRecord.parse(text);
                        } catch (IllegalArgumentException e) {
                            error = e.getMessage();
                        }
                        loc = new Location(f, lineNo, lineNo == 1, false, error);
                    }
                    if (!v.visit(loc, r)) {
                        return fi + 1;
                    }
                    if (!lines.terminated) {
                        break;
                    }
                }
            } catch (NoSuchFileException e) {
                // pruned while we read
            } catch (IOException e) {
                throw new AuditLogException("cannot read " + f.path() + ": " + e.getMessage(), e);
            }
        }
        return files.size();
    }

    /** The lines of a file, read in blocks. */
    private static final class Lines {
        private final InputStream in;
        private final byte[] block = new byte[1 << 16];
        private int pos;
        private int lim;
        /** Whether the line {@link #next} returned ended with a newline. */
        boolean terminated;

        Lines(InputStream in) {
            this.in = in;
        }

        /**
         * Copies the next line, without its newline, into {@code buf}.
         *
         * @return its length; {@code buf.length} when it is longer (the rest is left unread); -1 at the end
         */
        int next(byte[] buf) throws IOException {
            int n = 0;
            terminated = false;
            while (true) {
                if (pos == lim) {
                    lim = Math.max(0, in.read(block));
                    pos = 0;
                    if (lim == 0) {
                        return n == 0 ? -1 : n;
                    }
                }
                int i = pos;
                while (i < lim && block[i] != '\n') {
                    i++;
                }
                int take = Math.min(i - pos, buf.length - n);
                System.arraycopy(block, pos, buf, n, take);
                n += take;
                pos += take;
                if (n == buf.length) {
                    return n;
                }
                if (i < lim) {
                    pos = i + 1;
                    terminated = true;
                    return n;
                }
            }
        }
    }

    private static LocalDate day(Instant t) {
        return LocalDate.ofInstant(t, ZoneOffset.UTC);
    }

    private static void closeQuietly(AutoCloseable c) {
        if (c == null) {
            return;
        }
        try {
            c.close();
        } catch (Exception ignored) {
            // nothing more to do
        }
    }
}
