package dev.chorus.node.protocol;

import dev.chorus.aggregation.DeliveryFailure;
import dev.chorus.aggregation.ModelUpdate;
import dev.chorus.gossip.core.Stream;
import dev.chorus.gossip.core.Streams;
import dev.chorus.gossip.host.Connection;
import dev.chorus.gossip.host.Host;
import dev.chorus.gossip.identity.PeerId;
import dev.chorus.node.averaging.ExchangeTransport;
import dev.chorus.node.averaging.SnapshotBuffer;
import dev.chorus.node.logging.PeriodicSummary;
import dev.chorus.node.protocol.ModelExchangeCodec.BodyHeader;
import dev.chorus.node.protocol.ModelExchangeCodec.ErrorFrame;
import dev.chorus.node.protocol.ModelExchangeCodec.Frame;
import dev.chorus.node.protocol.ModelExchangeCodec.FrameHeader;
import dev.chorus.node.protocol.ModelExchangeCodec.Indexing;
import dev.chorus.node.protocol.ModelExchangeCodec.Pull;
import dev.chorus.privacy.audit.EgressRecorder;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Function;
import java.util.function.Supplier;
import java.util.function.UnaryOperator;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The {@code /chorus/model/1.0.0} protocol on a {@link Host}: the responder serves the latest published snapshot
 * to PULL requests and hands pushed bodies (and push-pull offers) to an {@link ExchangeTransport.InboundSink}; the
 * initiator side pulls and pushes. Every request ends with the initiator's FIN; every reply is one body, an ACK or
 * an ERROR frame, then the responder's FIN. Bytes after an announced body are refused as {@link ErrorCode#TOO_LARGE}.
 * A caller that cancels the future of its pull or push ends that exchange at once: its stream is reset.
 *
 * <p>Nothing here blocks: all work runs in future callbacks on the connection's I/O thread, except the digest pass
 * of an outbound body, which runs on the caller's thread (the engine's dispatcher, never the trainer).
 *
 * <p>Every payload written to a stream goes to the {@link EgressRecorder} as it is written, frame by frame (hashed
 * in place, not copied): a pull request, a model body or fragment (its header frame and all its chunks as one
 * payload, quantized as sent), an ack, an error frame. A body cut short by the peer's error is recorded with the
 * bytes written until then. The recorder may hold a frame's caller for a bounded time when its queue is full.
 */
public final class ModelExchange implements ExchangeTransport, AutoCloseable {

    public static final String PROTOCOL = "/chorus/model/1.0.0";

    /**
     * The architecture hash of a PULL that takes whatever model the peer has (a diagnostic's): all zero, which no
     * SHA-256 of a real architecture is.
     */
    public static final byte[] ANY_ARCHITECTURE = new byte[ArchitectureHash.BYTES];

    // The egress audit kinds of this protocol's payloads (docs/privacy.md).
    public static final String KIND_PULL = "pull-request";
    public static final String KIND_BODY = "model-body";
    public static final String KIND_FRAGMENT = "fragment";
    public static final String KIND_ACK = "ack";
    public static final String KIND_BATCH = "batch-request";
    public static final String KIND_ERROR = "error-frame";

    private static final Logger LOG = LoggerFactory.getLogger(ModelExchange.class);

    private final PeriodicSummary refusalLog = PeriodicSummary.perMinute(ModelExchange::logRefusals);

    /** How a refusing side lingers after its ERROR frame before resetting a stream the peer keeps open. */
    private static final long LINGER_MILLIS = 2000;

    /**
     * @param limits bounds on what peers control
     * @param dtype the encoding of pushed bodies, and the one asked for in pulls
     * @param chunkValues values per outbound chunk (at most {@link ExchangeLimits#maxChunkValues()}, so that peers
     *     with the same limits accept them); int8 bodies at most {@link #INT8_CHUNK_VALUES} ({@link
     *     #chunkValuesFor})
     * @param outboundTransform applied to every model this node sends, pushed or served to a pull: for the testnet's
     *     Byzantine members; a real node sends its model as it is ({@link UnaryOperator#identity()}). It must not
     *     modify the update's arrays, which are shared
     */
    public record Config(
            ExchangeLimits limits, Dtype dtype, int chunkValues, UnaryOperator<ModelUpdate> outboundTransform) {
        /** The most values in one outbound int8 chunk ({@link #chunkValuesFor}). */
        public static final int INT8_CHUNK_VALUES = 4096;

        public Config {
            Objects.requireNonNull(limits, "limits");
            Objects.requireNonNull(dtype, "dtype");
            Objects.requireNonNull(outboundTransform, "outboundTransform");
            if (chunkValues < 1 || chunkValues > limits.maxChunkValues()) {
                throw new IllegalArgumentException(
                        "chunkValues must lie in [1, " + limits.maxChunkValues() + "], got " + chunkValues);
            }
        }

        /** A node that sends its model as it is. */
        public Config(ExchangeLimits limits, Dtype dtype, int chunkValues) {
            this(limits, dtype, chunkValues, UnaryOperator.identity());
        }

        public static Config defaults() {
            ExchangeLimits limits = ExchangeLimits.defaults();
            return new Config(limits, Dtype.F32, limits.maxChunkValues());
        }

        /**
         * The values per outbound chunk of a body in {@code d}: {@link #chunkValues()}, and for int8 at most {@value
         * #INT8_CHUNK_VALUES}. An int8 chunk has one scale, {@code max|v| / 127}, so each value arrives up to half
         * of that from the sender's and a receiver's merges take that error in; a chunk that spans a layer's
         * largest weights and its smallest rounds the small ones to a step set by the large. Smaller chunks cost 4
         * bytes of scale and 8 of framing each (0.3% of the body at 4,096 values).
         */
        public int chunkValuesFor(Dtype d) {
            return d == Dtype.INT8 ? Math.min(chunkValues, INT8_CHUNK_VALUES) : chunkValues;
        }

        public Config withDtype(Dtype d) {
            return new Config(limits, d, chunkValues, outboundTransform);
        }

        public Config withChunkValues(int n) {
            return new Config(limits, dtype, n, outboundTransform);
        }

        public Config withLimits(ExchangeLimits l) {
            return new Config(l, dtype, Math.min(chunkValues, l.maxChunkValues()), outboundTransform);
        }

        /** For the testnet's Byzantine members; a real node sends its model as it is. */
        public Config withOutboundTransform(UnaryOperator<ModelUpdate> t) {
            return new Config(limits, dtype, chunkValues, t);
        }
    }

    private final Host host;
    private final byte[] architecture;
    private final int dimension;
    private final Config config;
    private final ExchangeLimits limits;
    private final SnapshotBuffer snapshots;
    private final FragmentCatalog catalog;
    private final String localId;
    private final EgressRecorder egress;
    private final Map<String, AtomicInteger> inbound = new ConcurrentHashMap<>();
    private final Map<String, AtomicInteger> outbound = new ConcurrentHashMap<>();
    private final AtomicLong bytesSent = new AtomicLong();
    private final AtomicLong bytesReceived = new AtomicLong();
    private final Map<ErrorCode, AtomicLong> refusals = new EnumMap<>(ErrorCode.class);
    private final PeerStanding standing =
            new PeerStanding(PeerStanding.Config.defaults(), java.time.InstantSource.system());
    private final AtomicLong bannedStreams = new AtomicLong();
    private final AtomicLong cancelledExchanges = new AtomicLong();
    private volatile InboundSink sink;

    /**
     * @param host the libp2p host
     * @param architecture the local model's {@link ArchitectureHash}
     * @param dimension the local parameter count
     * @param config encoding and limits
     * @param snapshots what PULL requests are answered with
     * @param catalog the fragmentations named on the wire; may be empty
     */
    public ModelExchange(
            Host host,
            byte[] architecture,
            int dimension,
            Config config,
            SnapshotBuffer snapshots,
            FragmentCatalog catalog) {
        this(host, architecture, dimension, config, snapshots, catalog, EgressRecorder.NONE);
    }

    /**
     * @param egress where every outbound payload is recorded (the daemon's egress audit log)
     * @see #ModelExchange(Host, byte[], int, Config, SnapshotBuffer, FragmentCatalog)
     */
    public ModelExchange(
            Host host,
            byte[] architecture,
            int dimension,
            Config config,
            SnapshotBuffer snapshots,
            FragmentCatalog catalog,
            EgressRecorder egress) {
        this.egress = Objects.requireNonNull(egress, "egress");
        this.host = Objects.requireNonNull(host, "host");
        if (architecture == null || architecture.length != ArchitectureHash.BYTES) {
            throw new IllegalArgumentException("architecture hash must be 32 bytes");
        }
        this.architecture = architecture.clone();
        if (dimension < 1 || dimension > config.limits().maxParameters()) {
            throw new IllegalArgumentException("dimension " + dimension + " outside [1, maxParameters]");
        }
        this.dimension = dimension;
        this.config = config;
        this.limits = config.limits();
        this.snapshots = Objects.requireNonNull(snapshots, "snapshots");
        this.catalog = catalog == null ? new FragmentCatalog() : catalog;
        this.localId = host.peerId().toBase58();
        for (ErrorCode c : ErrorCode.values()) {
            refusals.put(c, new AtomicLong());
        }
    }

    /** Serves the protocol, handing received bodies to {@code sink}. */
    public void start(InboundSink sink) {
        this.sink = Objects.requireNonNull(sink, "sink");
        host.setHandler(PROTOCOL, this::serve, limits.maxInboundStreamsPerConnection());
    }

    @Override
    public void close() {
        host.removeHandler(PROTOCOL);
        refusalLog.flush();
    }

    /**
     * The refusals of the minute as one line: a node under load refuses the same way many times a second (a full
     * inbound queue), and a line each would bury everything else. Each refusal is logged at DEBUG.
     */
    private static void logRefusals(PeriodicSummary.Summary s) {
        long n = s.events();
        LOG.info(
                "refused {} model exchange{}{}: {}",
                n,
                n == 1 ? "" : "s",
                s.period().isZero() ? "" : " in the last " + s.period().toSeconds() + " s",
                s.describe("peer"));
    }

    @Override
    public long bytesSent() {
        return bytesSent.get();
    }

    @Override
    public long bytesReceived() {
        return bytesReceived.get();
    }

    @Override
    public DeliveryFailure.Kind failureKind(Throwable cause) {
        return failureKindOf(cause);
    }

    /**
     * How a failed exchange counts for the strategy: a timeout (the JDK's or the protocol's {@link ErrorCode#TIMEOUT})
     * is {@code TIMED_OUT}; an ERROR frame from the peer, or a refusal here before anything was sent ({@link
     * ErrorCode#BUSY}: every exchange slot with the peer taken), is {@code REFUSED}; anything else is {@code
     * UNREACHABLE}.
     */
    public static DeliveryFailure.Kind failureKindOf(Throwable cause) {
        if (cause instanceof TimeoutException
                || (cause instanceof ExchangeException x && x.code() == ErrorCode.TIMEOUT)) {
            return DeliveryFailure.Kind.TIMED_OUT;
        }
        if (cause instanceof ExchangeException x && (x.remote() || x.code() == ErrorCode.BUSY)) {
            return DeliveryFailure.Kind.REFUSED;
        }
        return DeliveryFailure.Kind.UNREACHABLE;
    }

    /** Requests and bodies this node refused with {@code code}. */
    public long refusals(ErrorCode code) {
        return refusals.get(code).get();
    }

    /** The misbehaviour record of the peers: refusals for their faults ban them for a while. */
    public PeerStanding standing() {
        return standing;
    }

    /** Pulls and pushes of this node cancelled by their caller (their streams reset). */
    public long cancelledExchanges() {
        return cancelledExchanges.get();
    }

    /** Exchanges this node has started with {@code peer} and not yet ended (at most maxConcurrentPerPeer). */
    int outboundInProgress(String peer) {
        AtomicInteger n = outbound.get(peer);
        return n == null ? 0 : n.get();
    }

    /** Inbound streams reset unread because their peer was banned. */
    public long bannedStreams() {
        return bannedStreams.get();
    }

    /** Connected peers, except banned ones and those whose identify shows they do not speak the protocol. */
    @Override
    public List<String> peers() {
        Set<String> out = new LinkedHashSet<>();
        for (Connection c : host.connections()) {
            if (!c.isOpen()
                    || !c.permits(PROTOCOL)
                    || standing.banned(c.remotePeer().toBase58())) {
                continue; // permits: an observer of the consortium does not exchange models
            }
            var info = c.identifyInfo();
            if (info != null && !info.protocols().contains(PROTOCOL)) {
                continue;
            }
            out.add(c.remotePeer().toBase58());
        }
        return new ArrayList<>(out);
    }

    // ------------------------------------------------------------------ responder

    private void serve(Stream s) {
        String peer = s.remotePeer().toBase58();
        if (standing.banned(peer)) {
            bannedStreams.incrementAndGet();
            s.reset();
            return;
        }
        if (!enter(inbound, peer)) {
            refuse(s, peer, new ExchangeException(ErrorCode.BUSY, "too many concurrent exchanges"));
            return;
        }
        // The slot is freed before the last thing the peer waits for (the ACK of a push, the FIN after a pulled
        // body) is written, so that a peer that starts its next exchange as soon as one ends never finds its own
        // finished exchange still holding a slot; again at the end, for exchanges that fail before that point.
        AtomicBoolean held = new AtomicBoolean(true);
        Runnable release = () -> {
            if (held.getAndSet(false)) {
                leave(inbound, peer);
            }
        };
        CompletableFuture<Void> done;
        try {
            done = readControlFrame(s).thenCompose(f -> switch (f.type()) {
                case PULL -> servePull(s, peer, ModelExchangeCodec.decodePull(f.payload()), release);
                case PARAMS, FRAGMENT ->
                    readBody(s, peer, ModelExchangeCodec.decodeBodyHeader(f.type(), f.payload(), limits))
                            .thenCompose(u -> expectEof(s).thenApply(v -> u))
                            .thenCompose(u -> {
                                deliver(u);
                                release.run();
                                return writeSingle(s, peer, KIND_ACK, ModelExchangeCodec.encodeAck());
                            })
                            .thenCompose(v -> s.closeWrite());
                case BATCH -> serveBatch(s, peer, ModelExchangeCodec.decodeBatch(f.payload()), release);
                default -> throw new ExchangeException(ErrorCode.MALFORMED, "a request cannot start with " + f.type());
            });
        } catch (RuntimeException e) {
            done = CompletableFuture.failedFuture(e);
        }
        ExchangeTimeouts.orTimeout(done, limits.exchangeTimeout()).whenComplete((v, err) -> {
            release.run();
            if (err != null) {
                refuse(s, peer, err);
            }
        });
    }

    /**
     * Takes the {@code count} bodies of a batched push one after another, each checked and queued as a push's body
     * is, and acknowledged as soon as it is queued; the FIN must follow the last. A body refused ends the stream with
     * an ERROR: those acknowledged before it stay queued. {@code release} frees the exchange's slot before the last
     * ACK.
     */
    private CompletableFuture<Void> serveBatch(Stream s, String peer, int count, Runnable release) {
        int[] taken = {0};
        return Streams.loop(() -> readControlFrame(s)
                        .thenCompose(f -> {
                            if (f.type() != FrameType.PARAMS && f.type() != FrameType.FRAGMENT) {
                                throw new ExchangeException(
                                        ErrorCode.MALFORMED, "a batch holds bodies, not " + f.type());
                            }
                            return readBody(
                                    s, peer, ModelExchangeCodec.decodeBodyHeader(f.type(), f.payload(), limits));
                        })
                        .thenCompose(u -> {
                            boolean last = ++taken[0] == count;
                            CompletableFuture<Void> end = last ? expectEof(s) : CompletableFuture.completedFuture(null);
                            return end.thenCompose(v -> {
                                        deliver(u);
                                        if (last) {
                                            release.run();
                                        }
                                        return writeSingle(s, peer, KIND_ACK, ModelExchangeCodec.encodeAck());
                                    })
                                    .thenApply(v -> !last);
                        }))
                .thenCompose(v -> s.closeWrite());
    }

    /** Answers a PULL (and takes the offer that may follow it); {@code release} frees the exchange's slot. */
    private CompletableFuture<Void> servePull(Stream s, String peer, Pull pull, Runnable release) {
        if (!MessageDigest.isEqual(pull.architecture(), ANY_ARCHITECTURE)
                && !MessageDigest.isEqual(pull.architecture(), architecture)) {
            throw new ExchangeException(
                    ErrorCode.WRONG_ARCHITECTURE, "architecture hash differs from the local model's");
        }
        CompletableFuture<ModelUpdate> offer = pull.offerFollows()
                ? readControlFrame(s)
                        .thenCompose(f ->
                                readBody(s, peer, ModelExchangeCodec.decodeBodyHeader(f.type(), f.payload(), limits)))
                : CompletableFuture.completedFuture(null);
        return offer.thenCompose(u -> expectEof(s).thenApply(v -> u)).thenCompose(u -> {
            if (u != null) {
                deliver(u);
            }
            SnapshotBuffer.Lease lease = snapshots.acquire();
            if (lease == null) {
                throw new ExchangeException(ErrorCode.UNAVAILABLE, "no model published yet");
            }
            // Encoded on a codec thread: the digest over the whole model is no work for the I/O thread.
            CompletableFuture<Void> sent = CompletableFuture.supplyAsync(
                            () -> {
                                try {
                                    ModelUpdate mine = config.outboundTransform()
                                            .apply(ModelUpdate.full(
                                                    localId, lease.version(), lease.sampleCount(), lease.values()));
                                    return new ModelBodyEncoder(
                                            architecture,
                                            mine,
                                            pull.replyDtype(),
                                            config.chunkValuesFor(pull.replyDtype()),
                                            catalog);
                                } catch (RuntimeException e) {
                                    throw new ExchangeException(
                                            ErrorCode.INTERNAL, "cannot encode the local model: " + e.getMessage());
                                }
                            },
                            ModelCodecThreads.executor())
                    .thenCompose(encoder -> writeBody(s, peer, encoder, () -> false))
                    .thenCompose(v -> {
                        release.run();
                        return s.closeWrite();
                    });
            return sent.whenComplete((v, err) -> lease.close());
        });
    }

    private void deliver(ModelUpdate u) {
        InboundSink target = sink;
        if (target == null || !target.offer(u)) {
            throw new ExchangeException(ErrorCode.BUSY, "inbound queue full");
        }
    }

    /** Sends an ERROR frame for a local refusal, then FIN; resets the stream for anything else. */
    private void refuse(Stream s, String peer, Throwable err) {
        Throwable cause = unwrap(err);
        ExchangeException ex = cause instanceof ExchangeException e
                ? e
                : cause instanceof TimeoutException
                        ? new ExchangeException(
                                ErrorCode.TIMEOUT, "exchange took longer than " + limits.exchangeTimeout())
                        : cause instanceof java.io.EOFException
                                ? new ExchangeException(ErrorCode.MALFORMED, "stream ended inside a frame or body")
                                : null;
        if (ex == null || ex.remote()) {
            LOG.debug("model exchange with {} failed: {}", peer, String.valueOf(cause));
            s.reset();
            return;
        }
        refusals.get(ex.code()).incrementAndGet();
        LOG.debug("refused model exchange from {}: {}", peer, ex.getMessage());
        refusalLog.record(ex.getMessage(), peer);
        penalize(peer, ex.code());
        writeSingle(s, peer, KIND_ERROR, ModelExchangeCodec.encodeError(ex.code(), ex.getMessage()))
                .thenCompose(v -> s.closeWrite())
                .whenComplete((v, e) -> {
                    if (e != null) {
                        s.reset();
                    } else {
                        CompletableFuture.delayedExecutor(LINGER_MILLIS, TimeUnit.MILLISECONDS)
                                .execute(() -> resetQuietly(s));
                    }
                });
    }

    // ------------------------------------------------------------------ initiator

    /** What {@link #probe} saw: the peer's model version and parameter count, and the bytes of its reply. */
    public record Probe(long version, int parameters, long bytes) {}

    /**
     * A diagnostic pull ({@code chorus model pull}): asks {@code peer} for its model whatever its architecture (a
     * PULL with the all-zero {@link #ANY_ARCHITECTURE} hash), reads the body's header and counts the reply's bytes
     * without decoding the values. Fails with an {@link ExchangeException} carrying the peer's ERROR frame when it
     * refuses.
     */
    public CompletableFuture<Probe> probe(String peer) {
        byte[] request = ModelExchangeCodec.encodePull(new Pull(ANY_ARCHITECTURE, 0, config.dtype(), false));
        long limit = (long) limits.maxParameters() * 4 + (1 << 20);
        return ExchangeTimeouts.orTimeout(
                host.newStream(PeerId.parse(peer), PROTOCOL).thenCompose(s -> s.write(request)
                        .thenCompose(v -> s.closeWrite())
                        .thenCompose(v -> readHeader(s))
                        .thenCompose(h -> readPayload(s, h.length()).thenCompose(p -> {
                            if (h.type() == FrameType.ERROR) {
                                ErrorFrame e = ModelExchangeCodec.decodeError(p);
                                throw new ExchangeException(e.code(), e.reason(), true);
                            }
                            BodyHeader header = ModelExchangeCodec.decodeBodyHeader(h.type(), p, limits);
                            long headerBytes = ModelExchangeCodec.HEADER_BYTES + p.length;
                            return s.readToEnd((int) Math.min(Integer.MAX_VALUE - 8, limit))
                                    .thenApply(rest -> new Probe(
                                            header.model().version(),
                                            header.model().dimension(),
                                            headerBytes + rest.length));
                        }))
                        .whenComplete((v, e) -> {
                            if (e != null) {
                                s.reset();
                            }
                        })),
                limits.exchangeTimeout());
    }

    @Override
    public CompletableFuture<ModelUpdate> pull(String peer, ModelUpdate offer) {
        long version = offer == null ? 0 : offer.version();
        byte[] request = ModelExchangeCodec.encodePull(new Pull(architecture, version, config.dtype(), offer != null));
        Supplier<List<ModelBodyEncoder>> encoder = offer == null ? List::of : () -> List.of(encoder(offer));
        return exchange(peer, KIND_PULL, request, encoder, (s, first) -> switch (first.type()) {
            case PARAMS, FRAGMENT ->
                readBody(s, peer, ModelExchangeCodec.decodeBodyHeader(first.type(), first.payload(), limits))
                        .thenCompose(u -> expectEof(s).thenApply(v -> u));
            default -> throw new ExchangeException(ErrorCode.MALFORMED, "unexpected reply " + first.type());
        });
    }

    @Override
    public CompletableFuture<Void> push(String peer, ModelUpdate update) {
        return exchange(peer, null, null, () -> List.of(encoder(update)), (s, first) -> {
            if (first.type() != FrameType.ACK) {
                throw new ExchangeException(ErrorCode.MALFORMED, "unexpected reply " + first.type());
            }
            return CompletableFuture.<Void>completedFuture(null);
        });
    }

    /**
     * The most bodies this node puts in one batch: a round's fragments for one peer fit (ten by default), and the
     * responder's queue (16 by default) can take a whole batch while it holds a few other updates.
     */
    static final int MAX_BATCH = 12;

    /**
     * Sends {@code updates} to {@code peer} on as few streams as it takes: up to {@link #MAX_BATCH} on one (a BATCH
     * frame, then each body), one alone as a push. Each future completes when the peer acknowledged its update, or
     * fails as the push would; when the peer refuses one body, that one and the rest of its batch fail with the
     * refusal. Cancelling a future stops its batch's stream once every future of the batch is cancelled.
     */
    @Override
    public int maxBatch() {
        return MAX_BATCH;
    }

    @Override
    public List<CompletableFuture<Void>> pushAll(String peer, List<ModelUpdate> updates) {
        List<CompletableFuture<Void>> out = new ArrayList<>(updates.size());
        for (int from = 0; from < updates.size(); from += MAX_BATCH) {
            List<ModelUpdate> part = updates.subList(from, Math.min(updates.size(), from + MAX_BATCH));
            if (part.size() == 1) {
                out.add(push(peer, part.getFirst()));
            } else {
                out.addAll(batch(peer, List.copyOf(part)));
            }
        }
        return out;
    }

    private List<CompletableFuture<Void>> batch(String peer, List<ModelUpdate> updates) {
        int n = updates.size();
        List<CompletableFuture<Void>> acks = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            acks.add(new CompletableFuture<>());
        }
        CompletableFuture<Void> stream = exchange(
                peer,
                KIND_BATCH,
                ModelExchangeCodec.encodeBatch(n),
                () -> updates.stream().map(this::encoder).toList(),
                (s, first) -> readAcks(s, first, acks));
        stream.whenComplete((v, err) -> {
            if (err != null) {
                acks.forEach(a -> a.completeExceptionally(err)); // the acknowledged ones stay done
            }
        });
        AtomicInteger cancelled = new AtomicInteger();
        for (CompletableFuture<Void> a : acks) {
            a.whenComplete((v, err) -> {
                if (a.isCancelled() && cancelled.incrementAndGet() == n) {
                    stream.cancel(false);
                }
            });
        }
        return acks;
    }

    /** A batch's replies, from the {@code first}: an ACK per body in order, each completing its future. */
    private CompletableFuture<Void> readAcks(Stream s, Frame first, List<CompletableFuture<Void>> acks) {
        int[] next = {0};
        Function<Frame, Boolean> take = f -> {
            if (f.type() == FrameType.ERROR) {
                ErrorFrame e = ModelExchangeCodec.decodeError(f.payload());
                throw new ExchangeException(e.code(), e.reason(), true);
            }
            if (f.type() != FrameType.ACK) {
                throw new ExchangeException(ErrorCode.MALFORMED, "unexpected reply " + f.type() + " in a batch");
            }
            acks.get(next[0]++).complete(null);
            return next[0] < acks.size();
        };
        if (!take.apply(first)) {
            return CompletableFuture.completedFuture(null);
        }
        return Streams.loop(() -> readControlFrame(s).thenApply(take));
    }

    private ModelBodyEncoder encoder(ModelUpdate update) {
        return new ModelBodyEncoder(
                architecture,
                config.outboundTransform().apply(update),
                config.dtype(),
                config.chunkValuesFor(config.dtype()),
                catalog);
    }

    private interface ReplyHandler<T> {
        CompletableFuture<T> handle(Stream s, Frame first);
    }

    /**
     * Opens a stream, writes {@code request} (a PULL or BATCH frame, of the egress kind {@code requestKind}, or null
     * for a push) then each body's header and chunks and FIN while reading the first reply frame concurrently, so an
     * early ERROR stops the upload at once.
     *
     * <p>Cancelling the returned future resets the stream (at once, or as soon as it opens): the upload stops, the
     * read in progress fails and drops what it had decoded, and what the peer still sends is discarded by the muxer
     * as frames of an unknown stream. The exchange's per-peer slot is freed once the reset has ended it.
     */
    private <T> CompletableFuture<T> exchange(
            String peer,
            String requestKind,
            byte[] request,
            Supplier<List<ModelBodyEncoder>> encoder,
            ReplyHandler<T> onReply) {
        if (!enter(outbound, peer)) {
            // Before the body is encoded: a strategy that sends more than the links carry (fragments every few
            // steps) meets this over and over, and neither the encoding nor a stack trace is needed.
            return CompletableFuture.failedFuture(
                    ExchangeException.refusedHere(ErrorCode.BUSY, "too many exchanges in flight with " + peer));
        }
        CompletableFuture<T> caller = new CompletableFuture<>();
        AtomicReference<Stream> opened = new AtomicReference<>();
        CompletableFuture<T> result;
        try {
            List<ModelBodyEncoder> bodies = encoder.get();
            PeerId id = PeerId.parse(peer);
            result = host.newStream(id, PROTOCOL).thenCompose(s -> {
                opened.set(s);
                if (caller.isCancelled()) {
                    s.reset();
                    throw new CancellationException("exchange with " + peer + " cancelled");
                }
                return converse(s, new RequestFrames(peer, requestKind, request, bodies), onReply);
            });
        } catch (RuntimeException e) {
            result = CompletableFuture.failedFuture(e);
        }
        ExchangeTimeouts.orTimeout(result, limits.exchangeTimeout()).whenComplete((v, err) -> {
            leave(outbound, peer);
            if (caller.isCancelled()) {
                return; // whatever ended it after the reset is no fault of the peer's
            }
            // A reply this node could not accept (not an ERROR frame the peer sent) is the peer's fault.
            if (err != null && unwrap(err) instanceof ExchangeException x && !x.remote()) {
                penalize(peer, x.code());
            }
            if (err == null) {
                caller.complete(v);
            } else {
                caller.completeExceptionally(err);
            }
        });
        caller.whenComplete((v, err) -> {
            if (caller.isCancelled()) {
                cancelledExchanges.incrementAndGet();
                Stream s = opened.get();
                if (s != null) {
                    s.reset(); // hops onto the connection's I/O thread: never blocks the canceller
                }
            }
        });
        return caller;
    }

    /**
     * On an open stream: writes the request's frames and FIN while the first reply frame is read; an ERROR reply fails
     * the exchange, anything else goes to {@code onReply}. The stream is reset when the upload or the reply fails.
     */
    private <T> CompletableFuture<T> converse(Stream s, RequestFrames frames, ReplyHandler<T> onReply) {
        CompletableFuture<Frame> reply = readControlFrame(s);
        // One body's upload stops at the first reply, which before the FIN can only be an early ERROR; a batch's goes
        // on past the ACKs of its first bodies and stops when the exchange fails.
        AtomicBoolean failed = new AtomicBoolean();
        boolean batch = frames.bodies.size() > 1;
        Supplier<Boolean> stop = batch ? failed::get : reply::isDone;
        writeAll(s, frames, stop, frames.out)
                .whenComplete((v, err) -> frames.out.finish())
                .thenCompose(v -> stop.get() ? CompletableFuture.completedFuture(null) : s.closeWrite())
                .whenComplete((v, err) -> {
                    if (err != null && (batch || !reply.isDone())) {
                        s.reset();
                    }
                });
        CompletableFuture<T> handled = reply.thenCompose(first -> {
            if (first.type() == FrameType.ERROR) {
                ErrorFrame e = ModelExchangeCodec.decodeError(first.payload());
                throw new ExchangeException(e.code(), e.reason(), true);
            }
            return onReply.handle(s, first);
        });
        return handled.whenComplete((v, err) -> {
            if (err != null) {
                failed.set(true);
                s.reset();
            }
        });
    }

    /**
     * The frames of one request, made as the stream takes them: the PULL or BATCH frame if there is one, then each
     * body's header and chunks; each a payload of its own for the egress recorder.
     */
    private final class RequestFrames implements Supplier<byte[]> {
        final OutboundPayloads out;
        final List<ModelBodyEncoder> bodies;
        private final String requestKind;
        private byte[] request;
        private int body;
        private boolean headerSent;

        RequestFrames(String peer, String requestKind, byte[] request, List<ModelBodyEncoder> bodies) {
            this.out = new OutboundPayloads(peer);
            this.requestKind = requestKind;
            this.request = request;
            this.bodies = bodies;
        }

        @Override
        public byte[] get() {
            if (request != null) {
                byte[] r = request;
                request = null;
                out.begin(requestKind, EgressRecorder.NO_VERSION);
                return r;
            }
            while (body < bodies.size()) {
                ModelBodyEncoder b = bodies.get(body);
                if (!headerSent) {
                    headerSent = true;
                    out.begin(bodyKind(b), b.header().model().version());
                    return b.headerFrame();
                }
                if (b.hasNextChunk()) {
                    return b.nextChunkFrame();
                }
                body++;
                headerSent = false;
            }
            return null;
        }
    }

    private void penalize(String peer, ErrorCode code) {
        if (standing.fault(peer, code)) {
            LOG.warn(
                    "peer {} banned from model exchange for {} after repeated faults (last: {})",
                    peer,
                    standing.config().banDuration(),
                    code);
        }
    }

    // ------------------------------------------------------------------ framing over a stream

    /**
     * The payloads written on one stream, in order, for the egress recorder: each frame belongs to the payload begun
     * last. Frames are written one after another (each awaited), so one payload is never fed by two threads at once.
     */
    private final class OutboundPayloads {
        private final String peer;
        private EgressRecorder.Payload current = EgressRecorder.Payload.NONE;

        OutboundPayloads(String peer) {
            this.peer = peer;
        }

        void begin(String kind, long version) {
            current.finish();
            current = egress.begin(peer, PROTOCOL, kind, version);
        }

        void sent(byte[] frame) {
            current.update(frame, 0, frame.length);
        }

        void finish() {
            current.finish();
            current = EgressRecorder.Payload.NONE;
        }
    }

    private static String bodyKind(ModelBodyEncoder body) {
        return body.header().coordinates().indexing() == Indexing.NONE ? KIND_BODY : KIND_FRAGMENT;
    }

    /** Writes a payload of one frame (an ack, an error frame). */
    private CompletableFuture<Void> writeSingle(Stream s, String peer, String kind, byte[] frame) {
        egress.record(peer, PROTOCOL, kind, frame, EgressRecorder.NO_VERSION);
        return s.write(frame).thenRun(() -> bytesSent.addAndGet(frame.length));
    }

    /**
     * The most frame bytes made in one go on a codec thread and then queued on the stream: about a stream window, so
     * that a body costs one trip to the codec thread per window rather than one per chunk, and a large model is
     * never encoded into memory at once.
     */
    private static final int BATCH_BYTES = 256 * 1024;

    /** Frames made on a codec thread, and whether the supplier ran out. */
    private record Batch(List<byte[]> frames, boolean ended) {}

    /**
     * Writes frames until none is left: a batch of up to {@link #BATCH_BYTES} is made and recorded on a codec thread
     * (a chunk's quantization, the egress hash), queued on the stream, and the next batch is made once the last frame
     * of this one has gone into the stream's window (its flow control). {@code stop} ends it early.
     */
    private CompletableFuture<Void> writeAll(
            Stream s, Supplier<byte[]> frames, Supplier<Boolean> stop, OutboundPayloads out) {
        return Streams.loop(() -> {
            if (stop.get()) {
                return CompletableFuture.completedFuture(false);
            }
            return CompletableFuture.supplyAsync(() -> nextBatch(frames, stop, out), ModelCodecThreads.executor())
                    .thenCompose(batch -> {
                        CompletableFuture<Void> last = CompletableFuture.completedFuture(null);
                        for (byte[] f : batch.frames()) {
                            last = s.write(f).thenRun(() -> bytesSent.addAndGet(f.length));
                        }
                        return last.thenApply(v -> !batch.ended());
                    });
        });
    }

    private static Batch nextBatch(Supplier<byte[]> frames, Supplier<Boolean> stop, OutboundPayloads out) {
        List<byte[]> batch = new ArrayList<>();
        int bytes = 0;
        while (bytes < BATCH_BYTES && !stop.get()) {
            byte[] f = frames.get();
            if (f == null) {
                return new Batch(batch, true);
            }
            out.sent(f);
            batch.add(f);
            bytes += f.length;
        }
        return new Batch(batch, stop.get());
    }

    private CompletableFuture<Void> writeBody(Stream s, String peer, ModelBodyEncoder encoder, Supplier<Boolean> stop) {
        RequestFrames frames = new RequestFrames(peer, null, null, List.of(encoder));
        return writeAll(s, frames, stop, frames.out).whenComplete((v, err) -> frames.out.finish());
    }

    private CompletableFuture<FrameHeader> readHeader(Stream s) {
        return s.readExactly(ModelExchangeCodec.HEADER_BYTES).thenApply(h -> {
            bytesReceived.addAndGet(h.length);
            return ModelExchangeCodec.parseHeader(h, limits);
        });
    }

    private CompletableFuture<byte[]> readPayload(Stream s, int length) {
        return s.readExactly(length).thenApply(p -> {
            bytesReceived.addAndGet(p.length);
            return p;
        });
    }

    /** A frame that is not a CHUNK (those are read only inside a body, against the decoder's expectations). */
    private CompletableFuture<Frame> readControlFrame(Stream s) {
        return readHeader(s).thenCompose(h -> {
            if (h.type() == FrameType.CHUNK) {
                throw new ExchangeException(ErrorCode.MALFORMED, "CHUNK outside a body");
            }
            return readPayload(s, h.length()).thenApply(p -> new Frame(h.type(), p));
        });
    }

    /**
     * Reads a body's CHUNK frames. The I/O thread only frames them (each length checked against the header's
     * promise before its payload is read); up to {@link #BATCH_BYTES} of payloads at a time, and the last, go to a
     * codec thread to be decoded, which finishes the body after the last.
     */
    private CompletableFuture<ModelUpdate> readBody(Stream s, String peer, BodyHeader header) {
        ModelBodyDecoder decoder = new ModelBodyDecoder(header, peer, architecture, dimension, catalog);
        List<byte[]> pending = new ArrayList<>();
        int[] pendingBytes = {0};
        return Streams.loop(() -> {
                    if (decoder.isFramed()) {
                        return CompletableFuture.completedFuture(false);
                    }
                    return readHeader(s).thenCompose(h -> {
                        if (h.type() == FrameType.ERROR) {
                            return readPayload(s, h.length()).thenApply(p -> {
                                ErrorFrame e = ModelExchangeCodec.decodeError(p);
                                throw new ExchangeException(e.code(), e.reason(), true);
                            });
                        }
                        if (h.type() != FrameType.CHUNK) {
                            throw new ExchangeException(ErrorCode.MALFORMED, h.type() + " inside a body");
                        }
                        decoder.frame(h.length());
                        return readPayload(s, h.length()).thenCompose(p -> {
                            pending.add(p);
                            pendingBytes[0] += p.length;
                            if (pendingBytes[0] < BATCH_BYTES && !decoder.isFramed()) {
                                return CompletableFuture.completedFuture(true);
                            }
                            List<byte[]> batch = List.copyOf(pending);
                            pending.clear();
                            pendingBytes[0] = 0;
                            return CompletableFuture.supplyAsync(
                                    () -> {
                                        batch.forEach(decoder::accept);
                                        return true;
                                    },
                                    ModelCodecThreads.executor());
                        });
                    });
                })
                .thenApply(v -> decoder.finish());
    }

    /** The peer must close its write side now: anything more is a body longer than announced. */
    private CompletableFuture<Void> expectEof(Stream s) {
        return s.read().thenAccept(chunk -> {
            if (chunk != Stream.EOF && chunk.length > 0) {
                bytesReceived.addAndGet(chunk.length);
                throw new ExchangeException(ErrorCode.TOO_LARGE, "bytes after the announced body");
            }
        });
    }

    // ------------------------------------------------------------------ limits

    private boolean enter(Map<String, AtomicInteger> counts, String peer) {
        boolean[] entered = {false};
        counts.compute(peer, (k, n) -> {
            AtomicInteger c = n == null ? new AtomicInteger() : n;
            if (c.get() < limits.maxConcurrentPerPeer()) {
                c.incrementAndGet();
                entered[0] = true;
            }
            return c;
        });
        return entered[0];
    }

    private static void leave(Map<String, AtomicInteger> counts, String peer) {
        counts.computeIfPresent(peer, (k, n) -> n.decrementAndGet() <= 0 ? null : n);
    }

    private static void resetQuietly(Stream s) {
        try {
            s.reset();
        } catch (RuntimeException closed) {
            // the connection or host is already gone
        }
    }

    private static Throwable unwrap(Throwable t) {
        return ExchangeTransport.cause(t);
    }
}
