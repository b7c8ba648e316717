package dev.chorus.node.protocol;

import static org.assertj.core.api.Assertions.assertThat;

import dev.chorus.aggregation.ModelUpdate;
import dev.chorus.gossip.core.Stream;
import dev.chorus.gossip.host.Host;
import dev.chorus.gossip.host.HostConfig;
import dev.chorus.gossip.identity.PrivateKey;
import dev.chorus.gossip.multiaddr.Multiaddr;
import dev.chorus.node.averaging.SnapshotBuffer;
import dev.chorus.privacy.audit.AuditVerification;
import dev.chorus.privacy.audit.EgressAuditLog;
import dev.chorus.privacy.audit.EgressRecord;
import dev.chorus.privacy.audit.EgressRecorder;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Every payload a {@link ModelExchange} writes reaches the egress audit log with the byte count and SHA-256 of what
 * the peer received: real hosts on loopback, a peer that captures the raw bytes of each stream, and two exchanges
 * whose byte counters must agree with each other's records.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class ExchangeAuditTest {

    private static final int DIM = 3000;
    private static final byte[] ARCH = ArchitectureHash.of("mlp", 10, 2, DIM);

    @TempDir
    Path tmp;

    private final List<AutoCloseable> closing = new ArrayList<>();

    @AfterEach
    void close() throws Exception {
        for (int i = closing.size() - 1; i >= 0; i--) {
            closing.get(i).close();
        }
    }

    private Host host() {
        Host h = Host.start(HostConfig.defaults(PrivateKey.generate())
                        .withListenAddrs(List.of(Multiaddr.parse("/ip4/127.0.0.1/tcp/0")))
                        .withGracePeriod(Duration.ofMillis(100)))
                .join();
        closing.add(h);
        return h;
    }

    private ModelExchange exchange(Host h, Dtype dtype, EgressRecorder egress) {
        SnapshotBuffer snapshots = new SnapshotBuffer();
        snapshots.publish(vector(h.peerId().hashCode(), DIM), 7, 100);
        ModelExchange x = new ModelExchange(
                h, ARCH, DIM, new ModelExchange.Config(ExchangeLimits.defaults(), dtype, 512), snapshots, null, egress);
        x.start(u -> true);
        return x;
    }

    private static float[] vector(long seed, int n) {
        SplittableRandom r = new SplittableRandom(seed);
        float[] v = new float[n];
        for (int i = 0; i < n; i++) {
            v[i] = (float) r.nextGaussian();
        }
        return v;
    }

    private static String sha256(byte[] b) throws Exception {
        return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(b));
    }

    private static List<EgressRecord> records(Path dir) {
        AuditVerification v = EgressAuditLog.verify(dir);
        assertThat(v.ok()).as(v.problem()).isTrue();
        List<EgressRecord> out = new ArrayList<>();
        EgressAuditLog.read(dir, out::add);
        return out;
    }

    @Test
    void pushedBodiesAndFragmentsAreRecordedAsTheReceiverGotThem() throws Exception {
        Path dir = tmp.resolve("a");
        EgressAuditLog log = EgressAuditLog.open(dir, EgressAuditLog.Options.defaults());
        Host a = host();
        ModelExchange x = exchange(a, Dtype.INT8, log); // quantized on the wire: the hash is of the int8 bytes
        Host b = host();
        List<byte[]> received = new CopyOnWriteArrayList<>();
        b.setHandler(ModelExchange.PROTOCOL, (Stream s) -> s.readToEnd(64 << 20)
                .thenCompose(bytes -> {
                    received.add(bytes);
                    return s.write(ModelExchangeCodec.encodeAck());
                })
                .thenCompose(v -> s.closeWrite()));
        a.connect(b.listenAddrs().get(0)).join();
        String bId = b.peerId().toBase58();

        x.push(bId, ModelUpdate.full("a", 11, 5, vector(1, DIM))).join();
        int[] idx = {3, 17, 2999, 40, 41};
        x.push(bId, ModelUpdate.fragment("a", 12, 5, DIM, idx, new float[] {1, 2, 3, 4, 5}))
                .join();
        log.close();

        List<EgressRecord> rs = records(dir);
        assertThat(rs).hasSize(2);
        assertThat(received).hasSize(2);
        assertThat(rs)
                .extracting(EgressRecord::kind)
                .containsExactly(ModelExchange.KIND_BODY, ModelExchange.KIND_FRAGMENT);
        assertThat(rs).extracting(EgressRecord::version).containsExactly(11L, 12L);
        for (int i = 0; i < 2; i++) {
            EgressRecord r = rs.get(i);
            assertThat(r.peer()).isEqualTo(bId);
            assertThat(r.protocol()).isEqualTo(ModelExchange.PROTOCOL);
            assertThat(r.bytes()).isEqualTo(received.get(i).length);
            assertThat(r.sha256()).isEqualTo(sha256(received.get(i)));
        }
        assertThat(rs.get(0).bytes()).isBetween((long) DIM, 2L * DIM); // one byte a value, plus framing
        assertThat(rs.get(0).bytes() + rs.get(1).bytes()).isEqualTo(x.bytesSent());
    }

    @Test
    void servedPullsAndErrorFramesAreRecordedAsTheReceiverGotThem() throws Exception {
        Path dir = tmp.resolve("a");
        EgressAuditLog log = EgressAuditLog.open(dir, EgressAuditLog.Options.defaults());
        Host a = host();
        ModelExchange x = exchange(a, Dtype.F32, log);
        Host b = host();
        b.connect(a.listenAddrs().get(0)).join();
        String bId = b.peerId().toBase58();

        List<byte[]> received = new ArrayList<>();
        byte[] pull = ModelExchangeCodec.encodePull(new ModelExchangeCodec.Pull(ARCH, 0, Dtype.BF16, false));
        byte[] wrongArch = ModelExchangeCodec.encodePull(
                new ModelExchangeCodec.Pull(ArchitectureHash.of("mlp", 10, 3, DIM), 0, Dtype.F32, false));
        for (byte[] request : List.of(pull, wrongArch)) {
            Stream s = b.newStream(a.peerId(), ModelExchange.PROTOCOL).join();
            s.write(request).join();
            s.closeWrite().join();
            received.add(s.readToEnd(64 << 20).join());
            s.reset();
        }
        waitFor(() -> log.written() == 2);
        log.close();

        List<EgressRecord> rs = records(dir);
        assertThat(rs)
                .extracting(EgressRecord::kind)
                .containsExactly(ModelExchange.KIND_BODY, ModelExchange.KIND_ERROR);
        assertThat(rs.get(0).version()).isEqualTo(7);
        assertThat(rs.get(1).version()).isEqualTo(EgressRecorder.NO_VERSION);
        for (int i = 0; i < 2; i++) {
            assertThat(rs.get(i).peer()).isEqualTo(bId);
            assertThat(rs.get(i).bytes()).isEqualTo(received.get(i).length);
            assertThat(rs.get(i).sha256()).isEqualTo(sha256(received.get(i)));
        }
        assertThat(rs.get(0).bytes()).isBetween(2L * DIM, 3L * DIM); // bf16, as asked
        assertThat(x.refusals(ErrorCode.WRONG_ARCHITECTURE)).isEqualTo(1);
    }

    @Test
    void twoExchangesRecordEveryByteTheOtherReceived() throws Exception {
        Path dirA = tmp.resolve("a"), dirC = tmp.resolve("c");
        EgressAuditLog logA = EgressAuditLog.open(dirA, EgressAuditLog.Options.defaults());
        EgressAuditLog logC = EgressAuditLog.open(dirC, EgressAuditLog.Options.defaults());
        Host a = host();
        Host c = host();
        ModelExchange xa = exchange(a, Dtype.BF16, logA);
        ModelExchange xc = exchange(c, Dtype.F32, logC);
        a.connect(c.listenAddrs().get(0)).join();
        String aId = a.peerId().toBase58(), cId = c.peerId().toBase58();

        xa.pull(cId, ModelUpdate.full(aId, 3, 50, vector(5, DIM))).join(); // push-pull
        xa.pull(cId, null).join();
        xc.push(aId, ModelUpdate.full(cId, 9, 1, vector(6, DIM))).join();
        waitFor(() -> xa.bytesSent() == xc.bytesReceived() && xc.bytesSent() == xa.bytesReceived());
        logA.close();
        logC.close();

        List<EgressRecord> fromA = records(dirA);
        List<EgressRecord> fromC = records(dirC);
        assertThat(fromA)
                .extracting(EgressRecord::kind)
                .containsExactly(
                        ModelExchange.KIND_PULL,
                        ModelExchange.KIND_BODY,
                        ModelExchange.KIND_PULL,
                        ModelExchange.KIND_ACK);
        assertThat(fromC)
                .extracting(EgressRecord::kind)
                .containsExactly(ModelExchange.KIND_BODY, ModelExchange.KIND_BODY, ModelExchange.KIND_BODY);
        assertThat(fromA).allSatisfy(r -> assertThat(r.peer()).isEqualTo(cId));
        assertThat(fromC).allSatisfy(r -> assertThat(r.peer()).isEqualTo(aId));
        assertThat(fromA.stream().mapToLong(EgressRecord::bytes).sum()).isEqualTo(xc.bytesReceived());
        assertThat(fromC.stream().mapToLong(EgressRecord::bytes).sum()).isEqualTo(xa.bytesReceived());
        assertThat(xc.bytesReceived()).isPositive();
    }

    private static void waitFor(BooleanSupplier c) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (!c.getAsBoolean()) {
            assertThat(System.nanoTime()).as("condition not met within 60 s").isLessThan(deadline);
            Thread.sleep(20);
        }
    }
}
