package dev.chorus.privacy.audit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.MessageDigest;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.HexFormat;
import java.util.List;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** The log on real files: what it writes, what the verifier catches, retention, back-pressure, many writers. */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class EgressAuditLogTest {

    private static final String PROTOCOL = "/chorus/model/1.0.0";
    private static final Instant T0 = Instant.parse("2026-11-30T10:00:00Z");

    @TempDir
    Path dir;

    private final List<String> warnings = new CopyOnWriteArrayList<>();

    /** A clock the test moves; the writer thread can be held inside it to fill the queue. */
    static final class TestClock implements InstantSource {
        final AtomicReference<Instant> now = new AtomicReference<>(T0);
        volatile CountDownLatch gate; // while set, the writer thread waits here
        final CountDownLatch writerHeld = new CountDownLatch(1);

        @Override
        public Instant instant() {
            CountDownLatch g = gate;
            if (g != null && Thread.currentThread().getName().equals("chorus-egress-audit")) {
                writerHeld.countDown();
                try {
                    g.await();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
            return now.get();
        }

        void plusDays(int d) {
            now.updateAndGet(t -> t.plus(Duration.ofDays(d)));
        }
    }

    private final TestClock clock = new TestClock();

    private EgressAuditLog.Options options() {
        return EgressAuditLog.Options.defaults().withClock(clock).withWarnings(warnings::add);
    }

    private static byte[] payload(long seed, int n) {
        byte[] b = new byte[n];
        new SplittableRandom(seed).nextBytes(b);
        return b;
    }

    private static String sha256(byte[] b) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(b));
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    private void writeRecords(int n) {
        try (EgressAuditLog log = EgressAuditLog.open(dir, options())) {
            for (int i = 0; i < n; i++) {
                log.record("peer-" + (i % 3), PROTOCOL, "model-body", payload(i, 100 + i), i);
            }
        }
    }

    private List<Path> files() throws IOException {
        try (Stream<Path> s = Files.list(dir)) {
            return s.filter(p -> p.getFileName().toString().startsWith("egress-"))
                    .sorted()
                    .toList();
        }
    }

    private Path onlyFile() throws IOException {
        assertThat(files()).hasSize(1);
        return files().get(0);
    }

    private List<EgressRecord> records() {
        List<EgressRecord> out = new ArrayList<>();
        EgressAuditLog.read(dir, out::add);
        return out;
    }

    @Test
    void recordsWhatWasSentAndVerifies() throws IOException {
        byte[] body = payload(1, 5000);
        try (EgressAuditLog log = EgressAuditLog.open(dir, options())) {
            EgressRecorder.Payload p = log.begin("peerA", PROTOCOL, "model-body", 7);
            p.update(body, 0, 1000); // in pieces, as frames go out
            p.update(ByteBuffer.wrap(body, 1000, 4000));
            p.finish();
            p.finish(); // idempotent
            log.record(
                    "peerB", PROTOCOL, "error-frame", "no".getBytes(StandardCharsets.UTF_8), EgressRecorder.NO_VERSION);
            ByteBuffer ann = ByteBuffer.wrap(payload(2, 300));
            ann.position(10);
            log.record("peerC", "/meshsub/1.1.0", "announcement", ann, 8);
            assertThat(ann.position()).isEqualTo(10); // not consumed
        }
        List<EgressRecord> rs = records();
        assertThat(rs).hasSize(3);
        EgressRecord r = rs.get(0);
        assertThat(r.seq()).isZero();
        assertThat(r.time()).isEqualTo(T0);
        assertThat(r.peer()).isEqualTo("peerA");
        assertThat(r.protocol()).isEqualTo(PROTOCOL);
        assertThat(r.kind()).isEqualTo("model-body");
        assertThat(r.bytes()).isEqualTo(5000);
        assertThat(r.sha256()).isEqualTo(sha256(body));
        assertThat(r.version()).isEqualTo(7);
        assertThat(r.prev()).isEqualTo(EgressRecord.GENESIS);
        assertThat(rs.get(1).version()).isEqualTo(EgressRecorder.NO_VERSION);
        assertThat(rs.get(1).prev()).isEqualTo(r.hash());
        byte[] annBytes = payload(2, 300);
        assertThat(rs.get(2).bytes()).isEqualTo(290);
        assertThat(rs.get(2).sha256()).isEqualTo(sha256(java.util.Arrays.copyOfRange(annBytes, 10, 300)));

        String text = Files.readString(onlyFile());
        assertThat(text).startsWith("{\"seq\":0,\"time\":\"2026-11-30T10:00:00Z\",\"peer\":\"peerA\"");
        assertThat(text).contains("\"version\":null");
        assertThat(onlyFile().getFileName().toString()).isEqualTo("egress-20261130-000000000000.jsonl");

        AuditVerification v = EgressAuditLog.verify(dir);
        assertThat(v.ok()).as(v.problem()).isTrue();
        assertThat(v.records()).isEqualTo(3);
        assertThat(v.firstSeq()).isZero();
        assertThat(v.lastSeq()).isEqualTo(2);
        assertThat(v.head()).isEqualTo(rs.get(2).hash());
        assertThat(v.notices()).isEmpty();
    }

    @Test
    void theDirectoryAndEveryFileInItAreOwnerOnlyFromCreation() throws IOException {
        Path audit = dir.resolve("data").resolve("audit");
        try (EgressAuditLog log = EgressAuditLog.open(audit, options())) {
            log.record("peerA", PROTOCOL, "model-body", payload(1, 10), 1);
        }
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(audit)))
                .isEqualTo("rwx------");
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(audit.getParent())))
                .isEqualTo("rwx------");
        try (Stream<Path> s = Files.list(audit)) {
            List<Path> created = s.toList();
            assertThat(created).anyMatch(p -> p.getFileName().toString().startsWith("egress-"));
            for (Path p : created) {
                assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(p)))
                        .as(p.getFileName().toString())
                        .isEqualTo("rw-------");
            }
        }
    }

    @Test
    void resumesTheChainAfterARestart() {
        writeRecords(3);
        writeRecords(2);
        AuditVerification v = EgressAuditLog.verify(dir);
        assertThat(v.ok()).as(v.problem()).isTrue();
        assertThat(v.records()).isEqualTo(5);
        assertThat(records()).extracting(EgressRecord::seq).containsExactly(0L, 1L, 2L, 3L, 4L);
    }

    @Test
    void anEditedLineIsDetected() throws IOException {
        writeRecords(5);
        Path f = onlyFile();
        List<String> lines = new ArrayList<>(Files.readAllLines(f));
        lines.set(2, lines.get(2).replace("\"bytes\":102", "\"bytes\":12"));
        Files.write(f, lines);
        AuditVerification v = EgressAuditLog.verify(dir);
        assertThat(v.ok()).isFalse();
        assertThat(v.problem()).startsWith(f.getFileName() + ":3: hash does not match");
        assertThat(v.records()).isEqualTo(2);
    }

    @Test
    void anEditedLineWithARecomputedHashBreaksTheNextLink() throws IOException {
        writeRecords(5);
        Path f = onlyFile();
        List<String> lines = new ArrayList<>(Files.readAllLines(f));
        EgressRecord r = EgressRecord.parse(lines.get(1));
        EgressRecord forged = EgressRecord.chain(
                r.seq(),
                new EgressRecord.Sent(r.time(), r.peer(), r.protocol(), r.kind(), 1, r.sha256(), r.version()),
                null,
                r.prev());
        lines.set(1, forged.line().strip());
        Files.write(f, lines);
        AuditVerification v = EgressAuditLog.verify(dir);
        assertThat(v.problem()).startsWith(f.getFileName() + ":3: prev does not match");
    }

    @Test
    void aDeletedLineIsDetected() throws IOException {
        writeRecords(5);
        Path f = onlyFile();
        List<String> lines = new ArrayList<>(Files.readAllLines(f));
        lines.remove(2);
        Files.write(f, lines);
        AuditVerification v = EgressAuditLog.verify(dir);
        assertThat(v.problem())
                .isEqualTo(f.getFileName() + ":3: seq 3 where 2 was expected: a record was deleted,"
                        + " reordered or inserted");
    }

    @Test
    void aDeletedFirstLineIsDetectedByTheFileName() throws IOException {
        writeRecords(3);
        Path f = onlyFile();
        List<String> lines = new ArrayList<>(Files.readAllLines(f));
        lines.remove(0);
        Files.write(f, lines);
        AuditVerification v = EgressAuditLog.verify(dir);
        assertThat(v.problem()).startsWith(f.getFileName() + ":1: the file name says its first record is seq 0");
    }

    @Test
    void reorderedLinesAreDetected() throws IOException {
        writeRecords(5);
        Path f = onlyFile();
        List<String> lines = new ArrayList<>(Files.readAllLines(f));
        Collections.swap(lines, 1, 2);
        Files.write(f, lines);
        AuditVerification v = EgressAuditLog.verify(dir);
        assertThat(v.problem()).startsWith(f.getFileName() + ":2: seq 2 where 1 was expected");
    }

    @Test
    void aTornLastLineIsReportedThenCutAndRecordedAtTheNextStart() throws IOException {
        writeRecords(4);
        Path f = onlyFile();
        byte[] all = Files.readAllBytes(f);
        int cut = 40;
        Files.write(f, java.util.Arrays.copyOf(all, all.length - cut)); // the last line loses its end and newline
        String lastLine = Files.readAllLines(f).getLast();

        AuditVerification v = EgressAuditLog.verify(dir);
        assertThat(v.ok()).isFalse();
        assertThat(v.problem()).startsWith(f.getFileName() + ":4: incomplete last record");
        assertThat(v.records()).isEqualTo(3);
        assertThat(records()).hasSize(3); // the reader skips it

        byte[] torn = lastLine.getBytes(StandardCharsets.UTF_8);
        try (EgressAuditLog log = EgressAuditLog.open(dir, options())) {
            log.record("peer-x", PROTOCOL, "fragment", payload(9, 64), 11);
        }
        assertThat(warnings).anySatisfy(w -> assertThat(w).contains("cut " + torn.length + " bytes"));
        v = EgressAuditLog.verify(dir);
        assertThat(v.ok()).as(v.problem()).isTrue();
        assertThat(v.records()).isEqualTo(5);
        assertThat(v.notices()).singleElement().satisfies(n -> assertThat(n)
                .contains(":4: audit-recovered: cut " + torn.length + " bytes of an incomplete record after"
                        + " line 3 of " + f.getFileName()));
        List<EgressRecord> rs = records();
        assertThat(rs.get(3).kind()).isEqualTo(EgressRecord.KIND_RECOVERED);
        assertThat(rs.get(3).sha256()).isEqualTo(sha256(torn));
        assertThat(rs.get(4).kind()).isEqualTo("fragment");
        assertThat(rs.get(4).seq()).isEqualTo(4);
    }

    @Test
    void aNewFileStartsEachDayAndOldDaysArePruned() throws IOException {
        EgressAuditLog.Options o = options().withRetention(2, 1L << 30);
        for (int day = 0; day < 6; day++) {
            try (EgressAuditLog log = EgressAuditLog.open(dir, o)) {
                for (int i = 0; i < 3; i++) {
                    log.record("p", PROTOCOL, "model-body", payload(day * 10 + i, 50), day);
                }
            }
            clock.plusDays(1);
        }
        // Day 5 (Dec 5) is today at the last write: days 3, 4 and 5 remain.
        assertThat(files())
                .extracting(p -> p.getFileName().toString())
                .containsExactly(
                        "egress-20261203-000000000009.jsonl",
                        "egress-20261204-000000000012.jsonl",
                        "egress-20261205-000000000015.jsonl");
        AuditVerification v = EgressAuditLog.verify(dir);
        assertThat(v.ok()).as(v.problem()).isTrue();
        assertThat(v.records()).isEqualTo(9);
        assertThat(v.firstSeq()).isEqualTo(9);
        assertThat(v.notices()).singleElement().satisfies(n -> assertThat(n).contains("the chain starts at seq 9"));
    }

    @Test
    void aRunningLogRotatesAtMidnightAndPrunesWhileIdle() throws Exception {
        EgressAuditLog.Options o = options().withRetention(1, 1L << 30);
        try (EgressAuditLog log = EgressAuditLog.open(dir, o)) {
            log.record("p", PROTOCOL, "model-body", payload(1, 50), 1);
            clock.plusDays(1);
            log.record("p", PROTOCOL, "model-body", payload(2, 50), 2);
            waitFor(() -> log.written() == 2);
            assertThat(files()).hasSize(2);
            clock.plusDays(1); // day 0 is now past retention; the idle writer notices the new day
            waitFor(() -> {
                try {
                    return files().size() == 1;
                } catch (IOException e) {
                    throw new IllegalStateException(e);
                }
            });
        }
        assertThat(EgressAuditLog.verify(dir).records()).isEqualTo(1);
    }

    @Test
    void theSizeCapPrunesTheOldestFilesWithAWarning() throws IOException {
        long cap = 64 * 1024;
        EgressAuditLog.Options o = options().withRetention(90, cap).withFileBytes(8 * 1024);
        try (EgressAuditLog log = EgressAuditLog.open(dir, o)) {
            for (int i = 0; i < 1000; i++) { // about 330 KB of records
                log.record("peer-" + i, PROTOCOL, "model-body", payload(i, 10), i);
            }
        }
        long total = 0;
        for (Path p : files()) {
            long size = Files.size(p);
            assertThat(size).isLessThanOrEqualTo(8 * 1024);
            total += size;
        }
        assertThat(total).isLessThanOrEqualTo(cap);
        assertThat(warnings).anySatisfy(w -> assertThat(w).contains("over its size cap of 65536 bytes: deleted"));
        AuditVerification v = EgressAuditLog.verify(dir);
        assertThat(v.ok()).as(v.problem()).isTrue();
        assertThat(v.lastSeq()).isEqualTo(999);
        assertThat(v.records()).isLessThan(1000).isGreaterThan(100);
    }

    @Test
    void manyThreadsProduceOneValidChain() throws Exception {
        int threads = 16, each = 500;
        Set<String> expected = ConcurrentSet.create();
        try (EgressAuditLog log = EgressAuditLog.open(dir, options().withQueue(64, Duration.ofSeconds(30)))) {
            List<Thread> ts = new ArrayList<>();
            CountDownLatch start = new CountDownLatch(1);
            for (int t = 0; t < threads; t++) {
                int id = t;
                ts.add(Thread.ofPlatform().start(() -> {
                    try {
                        start.await();
                    } catch (InterruptedException e) {
                        return;
                    }
                    for (int i = 0; i < each; i++) {
                        byte[] b = payload(id * 100_000L + i, 1 + i % 200);
                        expected.add("t" + id + " " + sha256(b));
                        log.record("t" + id, PROTOCOL, "fragment", b, i);
                    }
                }));
            }
            start.countDown();
            for (Thread t : ts) {
                t.join();
            }
            assertThat(log.dropped()).isZero();
        }
        AuditVerification v = EgressAuditLog.verify(dir);
        assertThat(v.ok()).as(v.problem()).isTrue();
        assertThat(v.records()).isEqualTo((long) threads * each);
        Set<String> seen = new HashSet<>();
        EgressAuditLog.read(dir, r -> seen.add(r.peer() + " " + r.sha256()));
        assertThat(seen).isEqualTo(expected);
    }

    @Test
    void aFullQueueBlocksTheSenderBrieflyThenCountsTheDropInTheChain() throws Exception {
        CountDownLatch gate = new CountDownLatch(1);
        EgressAuditLog log = EgressAuditLog.open(dir, options().withQueue(2, Duration.ofMillis(50)));
        try {
            log.record("p", PROTOCOL, "model-body", payload(1, 10), 1);
            waitFor(() -> log.written() == 1);
            clock.gate = gate;
            assertThat(clock.writerHeld.await(60, TimeUnit.SECONDS)).isTrue(); // the writer is stuck after record 1
            assertThat(log.queued()).isZero();
            log.record("p", PROTOCOL, "model-body", payload(2, 10), 2); // queued
            log.record("p", PROTOCOL, "model-body", payload(3, 10), 3); // queued
            long t0 = System.nanoTime();
            log.record("p", PROTOCOL, "model-body", payload(4, 20), 4); // full: waits 50 ms, then dropped
            log.record("p", PROTOCOL, "model-body", payload(5, 30), 5); // likewise
            assertThat(System.nanoTime() - t0).isGreaterThanOrEqualTo(TimeUnit.MILLISECONDS.toNanos(100));
            assertThat(log.dropped()).isEqualTo(2);
            assertThat(warnings).anySatisfy(w -> assertThat(w).contains("egress audit queue full"));
        } finally {
            clock.gate = null;
            gate.countDown();
            log.close();
        }
        AuditVerification v = EgressAuditLog.verify(dir);
        assertThat(v.ok()).as(v.problem()).isTrue();
        assertThat(v.records()).isEqualTo(4);
        assertThat(v.notices()).singleElement().satisfies(n -> assertThat(n)
                .contains("audit-dropped: 2 payload(s) of 50 bytes in all"));
    }

    @Test
    void aSecondWriterOnTheSameDirectoryIsRefused() {
        try (EgressAuditLog log = EgressAuditLog.open(dir, options())) {
            assertThatThrownBy(() -> EgressAuditLog.open(dir, options()))
                    .isInstanceOf(AuditLogException.class)
                    .hasMessageContaining("in use by another process");
        }
    }

    @Test
    void verifyingAMissingDirectoryFails() {
        assertThatThrownBy(() -> EgressAuditLog.verify(dir.resolve("nope")))
                .isInstanceOf(AuditLogException.class)
                .hasMessageContaining("no audit log directory at");
    }

    @Test
    void awkwardStringsRoundTrip() {
        try (EgressAuditLog log = EgressAuditLog.open(dir, options())) {
            log.record("pe\"er\\\n\u0001é", PROTOCOL, "model-body", new byte[0], 0);
        }
        assertThat(records()).singleElement().satisfies(r -> {
            assertThat(r.peer()).isEqualTo("pe\"er\\\n\u0001é");
            assertThat(r.bytes()).isZero();
        });
        assertThat(EgressAuditLog.verify(dir).ok()).isTrue();
    }

    private static void waitFor(java.util.function.BooleanSupplier c) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (!c.getAsBoolean()) {
            assertThat(System.nanoTime()).as("condition not met within 60 s").isLessThan(deadline);
            Thread.sleep(20);
        }
    }

    private static final class ConcurrentSet {
        static Set<String> create() {
            return java.util.concurrent.ConcurrentHashMap.newKeySet();
        }
    }
}
