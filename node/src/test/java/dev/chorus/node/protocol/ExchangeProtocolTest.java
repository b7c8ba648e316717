package dev.chorus.node.protocol;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.chorus.aggregation.ModelUpdate;
import dev.chorus.gossip.core.Stream;
import dev.chorus.gossip.host.Host;
import dev.chorus.gossip.host.HostConfig;
import dev.chorus.gossip.identity.PrivateKey;
import dev.chorus.gossip.multiaddr.Multiaddr;
import dev.chorus.node.averaging.SnapshotBuffer;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** {@code /chorus/model/1.0.0} between real hosts on loopback, including peers that send what they should not. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class ExchangeProtocolTest {

    private static final int DIM = 3000;
    private static final byte[] ARCH = ArchitectureHash.of("mlp", 10, 2, DIM);

    private final List<AutoCloseable> closing = new ArrayList<>();

    private record Node(Host host, ModelExchange exchange, SnapshotBuffer snapshots, List<ModelUpdate> inbox) {
        String id() {
            return host.peerId().toBase58();
        }
    }

    private Node node(byte[] arch, ExchangeLimits limits, Dtype dtype) {
        return node(arch, limits, dtype, Integer.MAX_VALUE);
    }

    /** A node whose inbound queue takes {@code capacity} updates in all, and refuses the rest (BUSY). */
    private Node node(byte[] arch, ExchangeLimits limits, Dtype dtype, int capacity) {
        return node(arch, DIM, limits, new ModelExchange.Config(limits, dtype, 512), capacity);
    }

    private Node node(byte[] arch, int dim, ExchangeLimits limits, ModelExchange.Config config, int capacity) {
        Host host = Host.start(HostConfig.defaults(PrivateKey.generate())
                        .withListenAddrs(List.of(Multiaddr.parse("/ip4/127.0.0.1/tcp/0")))
                        .withGracePeriod(Duration.ofMillis(100)))
                .join();
        closing.add(host);
        SnapshotBuffer snapshots = new SnapshotBuffer();
        snapshots.publish(vector(host.peerId().hashCode(), dim), 7, 100);
        ModelExchange ex = new ModelExchange(host, arch, dim, config, snapshots, new FragmentCatalog());
        List<ModelUpdate> inbox = new CopyOnWriteArrayList<>();
        ex.start(u -> inbox.size() < capacity && inbox.add(u));
        return new Node(host, ex, snapshots, inbox);
    }

    private Node node() {
        return node(ARCH, ExchangeLimits.defaults(), Dtype.F32);
    }

    private static void connect(Node a, Node b) {
        a.host().connect(b.host().listenAddrs().get(0)).join();
    }

    private static float[] vector(long seed, int n) {
        SplittableRandom r = new SplittableRandom(seed);
        float[] v = new float[n];
        for (int i = 0; i < n; i++) {
            v[i] = (float) r.nextGaussian();
        }
        return v;
    }

    @AfterEach
    void close() throws Exception {
        for (AutoCloseable c : closing) {
            c.close();
        }
    }

    @Test
    void pullPushAndPushPull() {
        Node a = node(ARCH, ExchangeLimits.defaults(), Dtype.BF16);
        Node b = node();
        connect(a, b);
        assertThat(a.exchange().peers()).containsExactly(b.id());

        ModelUpdate pulled = a.exchange().pull(b.id(), null).join();
        assertThat(pulled.sender()).isEqualTo(b.id());
        assertThat(pulled.version()).isEqualTo(7);
        try (SnapshotBuffer.Lease l = b.snapshots().acquire()) {
            for (int i = 0; i < DIM; i++) { // asked for bf16
                assertThat(pulled.values()[i]).isEqualTo(Quantization.roundTrip(Dtype.BF16, l.values()[i], 0));
            }
        }
        assertThat(b.inbox()).isEmpty();

        ModelUpdate offer = ModelUpdate.full(a.id(), 3, 50, vector(5, DIM));
        ModelUpdate reply = a.exchange().pull(b.id(), offer).join();
        assertThat(reply.sender()).isEqualTo(b.id());
        assertThat(b.inbox()).hasSize(1);
        assertThat(b.inbox().get(0).sender()).isEqualTo(a.id()); // the authenticated peer, not a claimed name
        assertThat(b.inbox().get(0).sampleCount()).isEqualTo(50);

        b.exchange()
                .push(a.id(), ModelUpdate.full(b.id(), 9, 1, vector(6, DIM)))
                .join();
        assertThat(a.inbox()).singleElement().satisfies(u -> assertThat(u.version())
                .isEqualTo(9));
        assertThat(a.exchange().bytesSent()).isGreaterThan(DIM * 2L); // bf16 offer
        assertThat(b.exchange().bytesReceived()).isGreaterThan(DIM * 2L);
    }

    /**
     * An int8 chunk has one scale, so a sender cuts int8 bodies into chunks of at most 4,096 values whatever its
     * chunk size, pushed or served to a pull: values of a small layer after a large one keep a step of their own.
     */
    @Test
    void int8BodiesTravelInChunksOfAtMost4096ValuesEachWithItsOwnScale() {
        int dim = 10_000;
        byte[] arch = ArchitectureHash.of("mlp", 10, 2, dim);
        ExchangeLimits limits = ExchangeLimits.defaults();
        assertThat(limits.maxChunkValues()).isGreaterThan(ModelExchange.Config.INT8_CHUNK_VALUES);
        ModelExchange.Config config = new ModelExchange.Config(limits, Dtype.INT8, limits.maxChunkValues());
        assertThat(config.chunkValuesFor(Dtype.F32)).isEqualTo(limits.maxChunkValues());
        Node a = node(arch, dim, limits, config, Integer.MAX_VALUE);
        Node b = node(arch, dim, limits, config, Integer.MAX_VALUE);
        connect(a, b);
        float[] sent = vector(6, dim);
        for (int i = 0; i < 4096; i++) {
            sent[i] *= 100; // a layer of large weights, then one of small
        }
        a.exchange().push(b.id(), ModelUpdate.full(a.id(), 9, 1, sent)).join();
        ModelUpdate pushed = b.inbox().getFirst();
        assertThat(pushed.rounding().chunk()).isEqualTo(4096);
        assertThat(pushed.rounding().halfSteps()).hasSize(3);
        float small = pushed.rounding().halfSteps()[1];
        assertThat(small).isLessThan(pushed.rounding().halfSteps()[0] / 20);
        for (int i = 4096; i < 8192; i++) {
            assertThat(Math.abs(pushed.values()[i] - sent[i])).isLessThanOrEqualTo(small * 1.0001f);
        }
        ModelUpdate pulled = a.exchange().pull(b.id(), null).join(); // b serves its model in int8, as a asks
        assertThat(pulled.rounding().chunk()).isEqualTo(4096);
        assertThat(pulled.rounding().halfSteps()).hasSize(3);
    }

    @Test
    void wrongArchitectureIsRefusedWithAnErrorFrame() {
        Node honest = node();
        Node other = node(ArchitectureHash.of("mlp", 10, 3, DIM), ExchangeLimits.defaults(), Dtype.F32);
        connect(other, honest);
        assertRemoteError(
                () -> other.exchange()
                        .push(honest.id(), ModelUpdate.full("x", 1, 1, vector(1, DIM)))
                        .join(),
                ErrorCode.WRONG_ARCHITECTURE);
        assertRemoteError(() -> other.exchange().pull(honest.id(), null).join(), ErrorCode.WRONG_ARCHITECTURE);
        assertThat(honest.inbox()).isEmpty();
        assertThat(honest.exchange().refusals(ErrorCode.WRONG_ARCHITECTURE)).isEqualTo(2);
    }

    /** Frames of a valid body of {@code values}, from an encoder with the honest architecture. */
    private static List<byte[]> body(float[] values) {
        ModelBodyEncoder e = new ModelBodyEncoder(ARCH, ModelUpdate.full("x", 1, 1, values), Dtype.F32, 512, null);
        List<byte[]> frames = new ArrayList<>();
        frames.add(e.headerFrame());
        while (e.hasNextChunk()) {
            frames.add(e.nextChunkFrame());
        }
        return frames;
    }

    /** Writes raw frames on a new stream, half-closes, and returns the reply frame's error code. */
    private static ErrorCode rawExchange(Node from, Node to, List<byte[]> frames) {
        List<String> replies = rawReplies(from, to, frames);
        assertThat(replies).isNotEmpty();
        assertThat(replies.getFirst()).startsWith("ERROR ");
        return ErrorCode.valueOf(replies.getFirst().substring("ERROR ".length()));
    }

    @Test
    void hostileBodiesAreRefusedAndNeverDelivered() {
        Node honest = node();
        // Two hostile peers, so that neither reaches the ban threshold in this test (see the next one).
        Node hostile = node();
        Node other = node();
        connect(hostile, honest);
        connect(other, honest);

        List<byte[]> nan = body(vector(2, DIM));
        ByteBuffer.wrap(nan.get(2)).order(ByteOrder.LITTLE_ENDIAN).putFloat(8 + 8 + 4 * 3, Float.NaN);
        assertThat(rawExchange(hostile, honest, nan)).isEqualTo(ErrorCode.INVALID_VALUES);

        List<byte[]> longer = new ArrayList<>(body(vector(3, DIM)));
        longer.add(longer.get(1));
        assertThat(rawExchange(hostile, honest, longer)).isEqualTo(ErrorCode.TOO_LARGE);

        List<byte[]> tampered = body(vector(4, DIM));
        tampered.get(3)[40] ^= 1;
        assertThat(rawExchange(other, honest, tampered)).isEqualTo(ErrorCode.DIGEST_MISMATCH);

        List<byte[]> truncated = body(vector(5, DIM));
        assertThat(rawExchange(other, honest, truncated.subList(0, 3))).isEqualTo(ErrorCode.MALFORMED);

        assertThat(rawExchange(other, honest, List.of("GET / HTTP/1.1\r\n\r\n".getBytes())))
                .isEqualTo(ErrorCode.MALFORMED);

        assertThat(honest.inbox()).isEmpty();
        assertThat(honest.exchange().standing().penalty(hostile.id())).isBetween(2.0, 3.0); // 2 + 1, decaying
        // the honest node still serves and accepts afterwards
        honest.exchange().pull(hostile.id(), null).join();
        hostile.exchange()
                .push(honest.id(), ModelUpdate.full("x", 1, 1, vector(6, DIM)))
                .join();
        assertThat(honest.inbox()).hasSize(1);
    }

    @Test
    void aPeerThatKeepsSendingBadBodiesIsBanned() {
        Node honest = node();
        Node hostile = node();
        Node bystander = node();
        connect(hostile, honest);
        connect(bystander, honest);
        List<byte[]> nan = body(vector(2, DIM));
        ByteBuffer.wrap(nan.get(2)).order(ByteOrder.LITTLE_ENDIAN).putFloat(8 + 8 + 4 * 3, Float.NaN);
        for (int i = 0; i < 3; i++) { // 2 points each; the third reaches the threshold of 5
            assertThat(rawExchange(hostile, honest, nan)).isEqualTo(ErrorCode.INVALID_VALUES);
        }
        assertThat(honest.exchange().standing().banned(hostile.id())).isTrue();
        assertThat(honest.exchange().peers()).containsExactly(bystander.id());
        // Now even a valid push is reset before it is read, and never delivered.
        assertThatThrownBy(() -> hostile.exchange()
                        .push(honest.id(), ModelUpdate.full("x", 1, 1, vector(6, DIM)))
                        .join())
                .isInstanceOf(CompletionException.class);
        assertThat(honest.exchange().bannedStreams()).isPositive();
        assertThat(honest.inbox()).isEmpty();
        // The others are served as before.
        bystander
                .exchange()
                .push(honest.id(), ModelUpdate.full("y", 1, 1, vector(7, DIM)))
                .join();
        assertThat(honest.inbox()).hasSize(1);
    }

    @Test
    void concurrentRequestsPerPeerAreBounded() {
        Node server = node(ARCH, ExchangeLimits.defaults().withMaxConcurrentPerPeer(2), Dtype.F32);
        Node client = node();
        connect(client, server);
        byte[] pull = ModelExchangeCodec.encodePull(new ModelExchangeCodec.Pull(ARCH, 0, Dtype.F32, false));
        List<Stream> held = new ArrayList<>();
        for (int i = 0; i < 2; i++) { // requests that never finish: no FIN after the PULL
            Stream s = client.host()
                    .newStream(server.host().peerId(), ModelExchange.PROTOCOL)
                    .join();
            s.write(pull).join();
            held.add(s);
        }
        assertRemoteError(() -> client.exchange().pull(server.id(), null).join(), ErrorCode.BUSY);
        held.forEach(Stream::reset);
        // once they are gone, requests are served again
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (true) {
            try {
                client.exchange().pull(server.id(), null).join();
                break;
            } catch (CompletionException e) {
                assertThat(System.nanoTime()).isLessThan(deadline);
            }
        }
    }

    /**
     * A peer that starts its next exchange the moment one ends is never refused for the one that ended: the server
     * frees its slot before it writes what ends the exchange (a push's ACK, a pull's FIN).
     */
    @Test
    void exchangesBackToBackAreNeverRefusedAsBusy() {
        Node server = node(ARCH, ExchangeLimits.defaults().withMaxConcurrentPerPeer(1), Dtype.F32);
        Node client = node();
        connect(client, server);
        ModelUpdate update = ModelUpdate.full(client.id(), 1, 10, vector(9, DIM));
        for (int i = 0; i < 300; i++) {
            client.exchange().push(server.id(), update).join();
            client.exchange().pull(server.id(), null).join();
            client.exchange().pull(server.id(), update).join();
        }
        assertThat(server.exchange().refusals(ErrorCode.BUSY)).isZero();
        assertThat(server.inbox()).hasSize(600);
    }

    @Test
    void aCancelledPullResetsItsStreamAndFreesItsSlot() throws Exception {
        Node server = node();
        // One exchange per peer at a time, and a timeout far beyond the test: only the cancellation can free it.
        Node client = node(
                ARCH,
                ExchangeLimits.defaults().withMaxConcurrentPerPeer(1).withExchangeTimeout(Duration.ofMinutes(5)),
                Dtype.F32);
        connect(client, server);
        // The server takes the request and never answers.
        LinkedBlockingQueue<Stream> held = new LinkedBlockingQueue<>();
        server.host().setHandler(ModelExchange.PROTOCOL, held::add, 4);
        var connection = client.host().connections().getFirst();
        int streamsBefore = connection.openStreams();

        CompletableFuture<ModelUpdate> pull =
                client.exchange().pull(server.id(), ModelUpdate.full(client.id(), 3, 50, vector(5, DIM)));
        Stream atServer = held.poll(10, TimeUnit.SECONDS);
        assertThat(atServer).as("the request reached the server").isNotNull();
        assertThat(client.exchange().outboundInProgress(server.id())).isEqualTo(1);
        assertThatThrownBy(() -> client.exchange().pull(server.id(), null).join())
                .as("refused locally: the one slot for the server is taken")
                .hasCauseInstanceOf(ExchangeException.class)
                .satisfies(e ->
                        assertThat(((ExchangeException) e.getCause()).code()).isEqualTo(ErrorCode.BUSY));

        assertThat(pull.cancel(false)).isTrue();
        assertThat(client.exchange().cancelledExchanges()).isEqualTo(1);
        // The server sees the reset; the client's stream is gone and its slot for the server is free again.
        atServer.closeFuture().get(10, TimeUnit.SECONDS);
        assertThatThrownBy(() -> atServer.read().join())
                .hasCauseInstanceOf(dev.chorus.gossip.core.StreamResetException.class);
        awaitTrue(() -> client.exchange().outboundInProgress(server.id()) == 0, "the client's slot freed");
        awaitTrue(() -> connection.openStreams() <= streamsBefore, "the client's stream closed");
        // A reply written after the reset goes nowhere: the server's write fails, the client reads nothing more.
        long received = client.exchange().bytesReceived();
        assertThatThrownBy(() -> atServer.write(body(vector(8, DIM)).getFirst()).join())
                .isInstanceOf(CompletionException.class);
        assertThat(client.exchange().bytesReceived()).isEqualTo(received);
        assertThat(server.exchange().refusals(ErrorCode.BUSY)).isZero();
        assertThat(client.exchange().standing().penalty(server.id()))
                .as("a cancelled exchange is not the peer's fault")
                .isZero();

        // Served again, the same connection carries the next pull at once.
        server.exchange().start(server.inbox()::add);
        ModelUpdate next = client.exchange().pull(server.id(), null).get(10, TimeUnit.SECONDS);
        assertThat(next.sender()).isEqualTo(server.id());
        assertThat(connection.isOpen()).isTrue();
    }

    @Test
    void aPullCancelledWhileItsStreamOpensIsResetOnceOpen() throws Exception {
        Node server = node();
        Node client = node(
                ARCH,
                ExchangeLimits.defaults().withMaxConcurrentPerPeer(1).withExchangeTimeout(Duration.ofMinutes(5)),
                Dtype.F32);
        connect(client, server);
        LinkedBlockingQueue<Stream> held = new LinkedBlockingQueue<>();
        server.host().setHandler(ModelExchange.PROTOCOL, held::add, 4);

        CompletableFuture<ModelUpdate> pull = client.exchange().pull(server.id(), null);
        pull.cancel(false); // most likely before the protocol negotiation has completed
        awaitTrue(() -> client.exchange().outboundInProgress(server.id()) == 0, "the client's slot freed");
        Stream atServer = held.poll(2, TimeUnit.SECONDS);
        if (atServer != null) {
            atServer.closeFuture().get(10, TimeUnit.SECONDS); // reset as soon as it opened
        }
        assertThat(pull).isCancelled();
    }

    private static List<ModelUpdate> updates(String sender, int n) {
        List<ModelUpdate> out = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            out.add(ModelUpdate.full(sender, 10 + i, 1 + i, vector(100 + i, DIM)));
        }
        return out;
    }

    /**
     * A batch goes on one stream: a responder that allows one exchange at a time with this peer takes all of it, in
     * order, each body with its own version and sample count.
     */
    @Test
    void aBatchDeliversEveryBodyInOrderOnOneStream() {
        Node server = node(ARCH, ExchangeLimits.defaults().withMaxConcurrentPerPeer(1), Dtype.F32);
        Node client = node(ARCH, ExchangeLimits.defaults().withMaxConcurrentPerPeer(1), Dtype.F32);
        connect(client, server);
        List<CompletableFuture<Void>> acks = client.exchange().pushAll(server.id(), updates(client.id(), 7));
        assertThat(acks).hasSize(7);
        CompletableFuture.allOf(acks.toArray(CompletableFuture[]::new)).join();
        assertThat(server.inbox()).extracting(ModelUpdate::version).containsExactly(10L, 11L, 12L, 13L, 14L, 15L, 16L);
        assertThat(server.inbox()).extracting(ModelUpdate::sampleCount).containsExactly(1L, 2L, 3L, 4L, 5L, 6L, 7L);
        assertThat(server.inbox()).allSatisfy(u -> assertThat(u.sender()).isEqualTo(client.id()));
        assertThat(server.inbox().get(3).values()).containsExactly(vector(103, DIM));

        // more than one batch holds: split, each part a batch or a push on a stream of its own, every one delivered
        int n = ModelExchange.MAX_BATCH + 1;
        Node roomy = node();
        connect(client, roomy);
        List<CompletableFuture<Void>> more = client.exchange().pushAll(roomy.id(), updates(client.id(), n));
        assertThat(more).hasSize(n);
        assertThat(more.getLast()).failsWithin(Duration.ofSeconds(10)); // beyond the client's one stream per peer
        for (CompletableFuture<Void> f : more.subList(0, n - 1)) {
            f.join();
        }
        assertThat(roomy.inbox()).hasSize(n - 1);
        Node wider = node();
        connect(wider, roomy);
        for (CompletableFuture<Void> f : wider.exchange().pushAll(roomy.id(), updates(wider.id(), n))) {
            f.join(); // two streams, each within the default of two per peer
        }
        assertThat(roomy.inbox()).hasSize(2 * n - 1);
    }

    /** The bodies queued before a refusal stay acknowledged; the refused one and those after it fail with it. */
    @Test
    void aBatchStopsAtTheFirstBodyTheResponderRefuses() {
        Node server = node(ARCH, ExchangeLimits.defaults(), Dtype.F32, 3);
        Node client = node();
        connect(client, server);
        List<CompletableFuture<Void>> acks = client.exchange().pushAll(server.id(), updates(client.id(), 6));
        for (int i = 0; i < 3; i++) {
            acks.get(i).join();
        }
        for (int i = 3; i < 6; i++) {
            int k = i;
            assertRemoteError(() -> acks.get(k).join(), ErrorCode.BUSY);
        }
        assertThat(server.inbox()).extracting(ModelUpdate::version).containsExactly(10L, 11L, 12L);
    }

    /** Writes raw frames on a new stream, half-closes, and returns the reply's frame types and error code, if any. */
    private static List<String> rawReplies(Node from, Node to, List<byte[]> frames) {
        Stream s = from.host()
                .newStream(to.host().peerId(), ModelExchange.PROTOCOL)
                .join();
        for (byte[] f : frames) {
            try {
                s.write(f).join();
            } catch (CompletionException e) {
                break; // the responder may stop reading once it has refused
            }
        }
        s.closeWrite().exceptionally(e -> null).join();
        byte[] reply = s.readToEnd(4096).join();
        s.reset();
        List<String> out = new ArrayList<>();
        for (int off = 0; off + 8 <= reply.length; ) {
            ModelExchangeCodec.FrameHeader h =
                    ModelExchangeCodec.parseHeader(Arrays.copyOfRange(reply, off, off + 8), ExchangeLimits.defaults());
            byte[] p = Arrays.copyOfRange(reply, off + 8, off + 8 + h.length());
            out.add(
                    h.type() == FrameType.ERROR
                            ? "ERROR " + ModelExchangeCodec.decodeError(p).code()
                            : h.type().name());
            off += 8 + h.length();
        }
        return out;
    }

    @Test
    void hostileBatchesAreRefusedAfterWhatCameBeforeThem() {
        Node honest = node();
        Node hostile = node();
        Node other = node();
        connect(hostile, honest);
        connect(other, honest);
        List<byte[]> two = new ArrayList<>();
        two.add(ModelExchangeCodec.encodeBatch(2));
        two.addAll(body(vector(1, DIM)));
        two.addAll(body(vector(2, DIM)));
        assertThat(rawReplies(hostile, honest, two)).containsExactly("ACK", "ACK");

        List<byte[]> shortOne = new ArrayList<>(two);
        shortOne.set(0, ModelExchangeCodec.encodeBatch(3)); // announces three, sends two, then FIN
        assertThat(rawReplies(hostile, honest, shortOne)).containsExactly("ACK", "ACK", "ERROR MALFORMED");

        List<byte[]> longer = new ArrayList<>(two);
        longer.addAll(body(vector(3, DIM))); // a third body after the two announced
        assertThat(rawReplies(other, honest, longer)).containsExactly("ACK", "ERROR TOO_LARGE");

        List<byte[]> tampered = new ArrayList<>(two);
        tampered.get(1 + body(vector(1, DIM)).size() + 2)[40] ^= 1; // the second body's second chunk
        assertThat(rawReplies(other, honest, tampered)).containsExactly("ACK", "ERROR DIGEST_MISMATCH");

        byte[] pull = ModelExchangeCodec.encodePull(new ModelExchangeCodec.Pull(ARCH, 0, Dtype.F32, false));
        assertThat(rawReplies(other, honest, List.of(ModelExchangeCodec.encodeBatch(2), pull)))
                .containsExactly("ERROR MALFORMED");
        byte[] tooMany = ModelExchangeCodec.frame(FrameType.BATCH, new byte[] {0, 65});
        assertThat(rawReplies(other, honest, List.of(tooMany))).containsExactly("ERROR TOO_LARGE");

        assertThat(honest.inbox()).hasSize(2 + 2 + 1 + 1);
    }

    /** Cancelling every future of a batch resets its stream; cancelling some leaves it running. */
    @Test
    void aBatchStopsOnlyWhenEveryOneOfItsPushesIsGivenUp() throws Exception {
        Node server = node();
        Node client = node();
        connect(client, server);
        List<CompletableFuture<Void>> some = client.exchange().pushAll(server.id(), updates(client.id(), 3));
        some.get(1).cancel(false);
        some.get(0).join();
        some.get(2).join();
        awaitTrue(() -> server.inbox().size() == 3, "all three delivered");

        List<CompletableFuture<Void>> all = client.exchange().pushAll(server.id(), updates(client.id(), 3));
        all.forEach(f -> f.cancel(false));
        awaitTrue(() -> client.exchange().cancelledExchanges() == 1, "the batch's stream cancelled once");
        // its slot is freed once the reset has ended it: a push goes through then
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (true) {
            try {
                client.exchange()
                        .push(server.id(), updates(client.id(), 1).getFirst())
                        .join();
                break;
            } catch (CompletionException e) {
                assertThat(System.nanoTime()).isLessThan(deadline);
                Thread.sleep(10);
            }
        }
    }

    private static void awaitTrue(java.util.function.BooleanSupplier condition, String what)
            throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (!condition.getAsBoolean()) {
            assertThat(System.nanoTime()).as(what).isLessThan(deadline);
            Thread.sleep(10);
        }
    }

    private static void assertRemoteError(Runnable r, ErrorCode code) {
        assertThatThrownBy(r::run).isInstanceOf(CompletionException.class).satisfies(e -> {
            assertThat(e.getCause()).isInstanceOf(ExchangeException.class);
            ExchangeException x = (ExchangeException) e.getCause();
            assertThat(x.code()).isEqualTo(code);
            assertThat(x.remote()).isTrue();
        });
    }
}
