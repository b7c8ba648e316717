package dev.chorus.gossip.yamux;

import static dev.chorus.gossip.yamux.YamuxFrame.*;

import dev.chorus.gossip.core.StreamResetException;
import dev.chorus.gossip.identity.PeerId;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.ByteToMessageDecoder;
import io.netty.util.concurrent.ScheduledFuture;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.function.LongSupplier;

/**
 * A yamux session on one secured connection, as the last handler of its pipeline. Everything runs on
 * the channel's event loop; public methods hop onto it.
 *
 * <p>Remote-controlled quantities and their bounds: Data beyond a stream's receive window closes the
 * session (protocol error) before any byte is buffered; frames for unknown streams are discarded as
 * they stream in; inbound streams beyond {@code maxInboundStreams} are refused with RST, and too many
 * refusals in a short time close the session; pings are answered only while the socket is writable.
 */
public final class YamuxSession extends ByteToMessageDecoder {
    private static final System.Logger LOG = System.getLogger(YamuxSession.class.getName());
    private static final int MAX_PENDING_PINGS = 16;

    private final YamuxConfig config;
    private final boolean client;
    private final PeerId remotePeer;
    private final Consumer<YamuxStream> onInboundStream;
    private final LongSupplier nanoClock;
    private final Map<Integer, YamuxStream> streams = new HashMap<>();
    private final LinkedHashSet<YamuxStream> waitingForWritability = new LinkedHashSet<>();
    private final Map<Integer, PendingPing> pings = new HashMap<>();
    private final CompletableFuture<Void> closeFuture = new CompletableFuture<>();
    private final ArrayDeque<Long> refusals = new ArrayDeque<>();

    private ChannelHandlerContext ctx;
    private int nextStreamId;
    private int nextPingId = 1;
    private int inboundStreams;
    private int outboundStreams;
    private long committedReceiveWindow;
    private long rttNanos;
    private long discardRemaining;
    private int synHandledFor;
    private boolean remoteGoAway;
    private boolean localGoAway;
    private boolean failed;
    private ScheduledFuture<?> keepAlive;
    private PendingPing keepAlivePing;
    /** Reads that brought bytes from the peer, and their count at the last keep-alive tick. */
    private long inboundReads;

    private long inboundReadsAtTick;

    private record PendingPing(long sentAt, CompletableFuture<Duration> result) {}

    /**
     * @param client true on the side that dialed the connection (odd stream IDs)
     * @param onInboundStream called on the event loop for each stream the remote opens
     */
    public YamuxSession(
            YamuxConfig config,
            boolean client,
            PeerId remotePeer,
            Consumer<YamuxStream> onInboundStream,
            LongSupplier nanoClock) {
        this.config = config;
        this.client = client;
        this.remotePeer = remotePeer;
        this.onInboundStream = onInboundStream;
        this.nanoClock = nanoClock;
        this.nextStreamId = client ? 1 : 2;
    }

    public YamuxSession(YamuxConfig config, boolean client, PeerId remotePeer, Consumer<YamuxStream> onInboundStream) {
        this(config, client, remotePeer, onInboundStream, System::nanoTime);
    }

    public PeerId remotePeer() {
        return remotePeer;
    }

    YamuxConfig config() {
        return config;
    }

    /** Completes when the session's connection is closed. */
    public CompletableFuture<Void> closeFuture() {
        return closeFuture;
    }

    /** Round-trip time from the latest ping, or zero if none was answered yet. */
    public Duration rtt() {
        return Duration.ofNanos(rttNanos);
    }

    public int openStreams() {
        return streams.size();
    }

    public boolean isOpen() {
        return ctx != null && ctx.channel().isActive() && !failed && !localGoAway;
    }

    @Override
    public void handlerAdded(ChannelHandlerContext ctx) {
        this.ctx = ctx;
        ctx.channel().closeFuture().addListener(f -> execute(this::onClosed));
        // A first ping measures the RTT that window tuning uses, as js and go do.
        execute(() -> {
            if (ctx.channel().isActive()) {
                sendPing();
            }
            Duration ka = config.keepAliveInterval();
            if (!ka.isZero()) {
                keepAlive = ctx.executor()
                        .scheduleAtFixedRate(this::keepAliveTick, ka.toMillis(), ka.toMillis(), TimeUnit.MILLISECONDS);
            }
        });
    }

    void execute(Runnable r) {
        if (ctx.executor().inEventLoop()) {
            r.run();
        } else {
            ctx.executor().execute(r);
        }
    }

    // ---------------------------------------------------------------- outbound API

    /** Opens a stream; the future fails when the session is closing or a limit is reached. */
    public CompletableFuture<YamuxStream> openStream() {
        CompletableFuture<YamuxStream> f = new CompletableFuture<>();
        execute(() -> {
            if (!isOpen() || remoteGoAway) {
                f.completeExceptionally(new IOException("yamux session to " + remotePeer + " is closing"));
                return;
            }
            if (outboundStreams >= config.streams().maxOutboundStreams()) {
                f.completeExceptionally(new IOException("too many outbound streams (" + outboundStreams + ")"));
                return;
            }
            long unacked = streams.values().stream()
                    .filter(s -> s.isInitiator() && !s.acked())
                    .count();
            if (unacked >= config.streams().maxAckBacklog()) {
                f.completeExceptionally(new IOException("too many streams awaiting ACK (" + unacked + ")"));
                return;
            }
            int id = nextStreamId;
            nextStreamId += 2;
            int window = reserveInitialWindow();
            YamuxStream s = new YamuxStream(this, id, true, window);
            streams.put(id, s);
            outboundStreams++;
            writeFrame(TYPE_WINDOW_UPDATE, FLAG_SYN, id, window - YamuxConfig.SPEC_INITIAL_WINDOW);
            ctx.flush();
            f.complete(s);
        });
        return f;
    }

    /** Measures the round trip with a Ping. */
    public CompletableFuture<Duration> ping() {
        CompletableFuture<Duration> f = new CompletableFuture<>();
        execute(() -> {
            PendingPing p = sendPing();
            if (p == null) {
                f.completeExceptionally(new IOException("cannot ping " + remotePeer + " now"));
            } else {
                p.result.whenComplete((d, e) -> {
                    if (e != null) {
                        f.completeExceptionally(e);
                    } else {
                        f.complete(d);
                    }
                });
            }
        });
        return f;
    }

    /** Sends GoAway (normal) and closes the connection once written. */
    public CompletableFuture<Void> close() {
        execute(() -> goAway(GO_AWAY_NORMAL, "local close"));
        return closeFuture;
    }

    /** Sends GoAway (normal) so the remote opens no new streams, keeping existing ones. */
    public void goAway() {
        execute(() -> {
            if (!localGoAway && ctx.channel().isActive()) {
                localGoAway = true;
                writeFrame(TYPE_GO_AWAY, 0, 0, GO_AWAY_NORMAL);
                ctx.flush();
            }
        });
    }

    private PendingPing sendPing() {
        if (!ctx.channel().isActive() || pings.size() >= MAX_PENDING_PINGS) {
            return null;
        }
        int id = nextPingId++;
        PendingPing p = new PendingPing(nanoClock.getAsLong(), new CompletableFuture<>());
        pings.put(id, p);
        writeFrame(TYPE_PING, FLAG_SYN, 0, id & 0xFFFFFFFFL);
        ctx.flush();
        return p;
    }

    private void keepAliveTick() {
        boolean heard = inboundReads != inboundReadsAtTick;
        inboundReadsAtTick = inboundReads;
        if (keepAlivePing != null && !keepAlivePing.result.isDone()) {
            if (heard) {
                // The peer is alive: its answer waits behind the data it is sending on a busy or slow link.
                return;
            }
            protocolError(
                    GO_AWAY_NORMAL,
                    "keep-alive ping unanswered and nothing received for " + config.keepAliveInterval());
            return;
        }
        keepAlivePing = sendPing();
    }

    // ---------------------------------------------------------------- inbound frames

    @Override
    protected void decode(ChannelHandlerContext ctx, ByteBuf in, List<Object> out) {
        if (in.isReadable()) {
            inboundReads++;
        }
        while (!failed) {
            if (discardRemaining > 0) {
                int n = (int) Math.min(in.readableBytes(), discardRemaining);
                in.skipBytes(n);
                discardRemaining -= n;
                if (discardRemaining > 0) {
                    return;
                }
            }
            if (in.readableBytes() < HEADER_LENGTH) {
                break;
            }
            int base = in.readerIndex();
            int version = in.getUnsignedByte(base);
            int type = in.getUnsignedByte(base + 1);
            int flags = in.getUnsignedShort(base + 2);
            int id = in.getInt(base + 4);
            long length = in.getUnsignedInt(base + 8);
            if (version != VERSION) {
                protocolError(GO_AWAY_PROTOCOL_ERROR, "unsupported yamux version " + version);
                break;
            }
            if (type == TYPE_DATA) {
                if (!onDataHeader(in, flags, id, length)) {
                    break;
                }
            } else if (type == TYPE_WINDOW_UPDATE) {
                in.skipBytes(HEADER_LENGTH);
                onWindowUpdate(flags, id, length);
            } else if (type == TYPE_PING) {
                in.skipBytes(HEADER_LENGTH);
                onPing(flags, id, length);
            } else if (type == TYPE_GO_AWAY) {
                in.skipBytes(HEADER_LENGTH);
                remoteGoAway = true;
                LOG.log(System.Logger.Level.DEBUG, "{0} sent GoAway code {1}", remotePeer, length);
            } else {
                protocolError(GO_AWAY_PROTOCOL_ERROR, "unknown frame type " + type);
                break;
            }
        }
        if (failed) {
            in.skipBytes(in.readableBytes());
        }
        flushIfNeeded();
    }

    /** @return false when the frame is incomplete (wait for more bytes) or the session failed */
    private boolean onDataHeader(ByteBuf in, int flags, int id, long length) {
        YamuxStream s = streamFor(flags, id);
        if (failed) {
            return false;
        }
        if (s == null) {
            // Unknown or refused stream: drop its payload as it arrives, buffering none of it.
            in.skipBytes(HEADER_LENGTH);
            discardRemaining = length;
            return true;
        }
        if (length > s.receiveWindow()) {
            protocolError(
                    GO_AWAY_PROTOCOL_ERROR,
                    "stream " + id + " sent " + length + " bytes with a receive window of " + s.receiveWindow());
            return false;
        }
        if (in.readableBytes() < HEADER_LENGTH + length) {
            // Leave the header for the next pass; its SYN, if any, is handled and must not count twice.
            synHandledFor = (flags & FLAG_SYN) != 0 ? id : 0;
            return false;
        }
        synHandledFor = 0;
        in.skipBytes(HEADER_LENGTH);
        s.onData(readPayload(in, (int) length));
        applyCloseFlags(s, flags);
        return true;
    }

    /**
     * The payload as its own array. From a heap buffer (what the Noise decoder passes on) by
     * {@code Arrays.copyOfRange}, which the JIT allocates without first zeroing the array it fills.
     */
    private static byte[] readPayload(ByteBuf in, int length) {
        byte[] data;
        if (in.hasArray()) {
            int from = in.arrayOffset() + in.readerIndex();
            data = Arrays.copyOfRange(in.array(), from, from + length);
            in.skipBytes(length);
        } else {
            data = new byte[length];
            in.readBytes(data);
        }
        return data;
    }

    private void onWindowUpdate(int flags, int id, long delta) {
        YamuxStream s = streamFor(flags, id);
        if (s == null) {
            return;
        }
        if ((flags & FLAG_ACK) != 0) {
            s.onAck();
        }
        if (delta > 0) {
            s.onWindowUpdate(delta);
        }
        applyCloseFlags(s, flags);
    }

    private void applyCloseFlags(YamuxStream s, int flags) {
        if ((flags & FLAG_RST) != 0) {
            s.onRemoteReset();
        } else if ((flags & FLAG_FIN) != 0) {
            s.onRemoteFin();
        }
    }

    /** The stream a frame is for, opening it on SYN; null for unknown or refused streams. */
    private YamuxStream streamFor(int flags, int id) {
        if (id == 0) {
            protocolError(GO_AWAY_PROTOCOL_ERROR, "stream frame on stream 0");
            return null;
        }
        YamuxStream s = streams.get(id);
        if ((flags & FLAG_SYN) == 0 || (id == synHandledFor && s != null)) {
            return s;
        }
        if (s != null) {
            protocolError(GO_AWAY_PROTOCOL_ERROR, "SYN for already open stream " + id);
            return null;
        }
        boolean remoteParity = (id & 1) == (client ? 0 : 1);
        if (!remoteParity) {
            protocolError(GO_AWAY_PROTOCOL_ERROR, "remote opened stream " + id + " with this side's parity");
            return null;
        }
        int maxInbound = config.streams().maxInboundStreams();
        if (localGoAway || inboundStreams >= maxInbound) {
            refuse(id, localGoAway ? "session is going away" : "inbound stream limit " + maxInbound);
            return null;
        }
        int window = reserveInitialWindow();
        s = new YamuxStream(this, id, false, window);
        streams.put(id, s);
        inboundStreams++;
        writeFrame(TYPE_WINDOW_UPDATE, FLAG_ACK, id, window - YamuxConfig.SPEC_INITIAL_WINDOW);
        s.onAck();
        YamuxStream opened = s;
        try {
            onInboundStream.accept(opened);
        } catch (RuntimeException e) {
            LOG.log(System.Logger.Level.WARNING, "inbound stream handler failed", e);
            opened.reset();
        }
        return streams.get(id);
    }

    private void refuse(int id, String reason) {
        long now = nanoClock.getAsLong();
        refusals.addLast(now);
        YamuxConfig.Streams limits = config.streams();
        long horizon = now - limits.refusalWindow().toNanos();
        while (!refusals.isEmpty() && refusals.peekFirst() < horizon) {
            refusals.removeFirst();
        }
        if (refusals.size() > limits.maxRefusedStreams()) {
            protocolError(
                    GO_AWAY_PROTOCOL_ERROR,
                    "stream flood: more than " + limits.maxRefusedStreams() + " refused streams in "
                            + limits.refusalWindow());
            return;
        }
        LOG.log(System.Logger.Level.DEBUG, "refusing stream {0} from {1}: {2}", id, remotePeer, reason);
        writeFrame(TYPE_WINDOW_UPDATE, FLAG_RST, id, 0);
    }

    private void onPing(int flags, int id, long value) {
        if (id != 0) {
            protocolError(GO_AWAY_PROTOCOL_ERROR, "ping on stream " + id);
            return;
        }
        if ((flags & FLAG_SYN) != 0) {
            if (ctx.channel().isWritable()) {
                writeFrame(TYPE_PING, FLAG_ACK, 0, value);
            }
        } else if ((flags & FLAG_ACK) != 0) {
            PendingPing p = pings.remove((int) value);
            if (p != null) {
                long rtt = nanoClock.getAsLong() - p.sentAt;
                rttNanos = rtt;
                p.result.complete(Duration.ofNanos(rtt));
            }
        }
    }

    // ---------------------------------------------------------------- called by streams

    long rttNanos() {
        return rttNanos;
    }

    long nanoTime() {
        return nanoClock.getAsLong();
    }

    /** The configured initial receive window while the session budget allows, else the spec's 256 KiB. */
    private int reserveInitialWindow() {
        YamuxConfig.Windows w = config.windows();
        int window = committedReceiveWindow + w.initialWindow() <= w.maxSessionReceiveWindow()
                ? w.initialWindow()
                : YamuxConfig.SPEC_INITIAL_WINDOW;
        committedReceiveWindow += window;
        return window;
    }

    /** Reserves {@code extra} bytes of receive window for a stream's growth if the session budget allows. */
    boolean reserveWindow(long extra) {
        if (committedReceiveWindow + extra > config.windows().maxSessionReceiveWindow()) {
            return false;
        }
        committedReceiveWindow += extra;
        return true;
    }

    /** Flushes writes made by a stream operation outside frame decoding. */
    void flush() {
        flushIfNeeded();
    }

    boolean isWritable() {
        return ctx.channel().isWritable();
    }

    void waitForWritability(YamuxStream s) {
        waitingForWritability.add(s);
    }

    void writeFrame(int type, int flags, int id, long length) {
        ByteBuf b = ctx.alloc().ioBuffer(HEADER_LENGTH);
        writeHeader(b, type, flags, id, length);
        ctx.write(b, ctx.voidPromise());
        needsFlush = true;
    }

    /**
     * Writes one Data frame as one message (one Noise frame, one write): the header in a small heap
     * buffer and the payload wrapped, not copied. The Noise encoder reads both parts straight from their
     * arrays while it encrypts, within this call, so the caller's array is free again when it returns.
     */
    void writeData(int flags, int id, byte[] data, int offset, int length) {
        ByteBuf header = ctx.alloc().heapBuffer(HEADER_LENGTH);
        writeHeader(header, TYPE_DATA, flags, id, length);
        ctx.write(Unpooled.wrappedBuffer(header, Unpooled.wrappedBuffer(data, offset, length)), ctx.voidPromise());
        needsFlush = true;
    }

    private boolean needsFlush;

    void flushIfNeeded() {
        if (needsFlush && ctx != null) {
            needsFlush = false;
            ctx.flush();
        }
    }

    void removeStream(YamuxStream s) {
        if (streams.remove(s.id()) == s) {
            if (s.isInitiator()) {
                outboundStreams--;
            } else {
                inboundStreams--;
            }
            committedReceiveWindow -= s.receiveWindowMax();
            waitingForWritability.remove(s);
        }
    }

    // ---------------------------------------------------------------- lifecycle

    @Override
    public void channelWritabilityChanged(ChannelHandlerContext ctx) throws Exception {
        if (ctx.channel().isWritable() && !waitingForWritability.isEmpty()) {
            List<YamuxStream> ready = new ArrayList<>(waitingForWritability);
            waitingForWritability.clear();
            for (YamuxStream s : ready) {
                s.drain();
                if (!ctx.channel().isWritable()) {
                    break;
                }
            }
            flushIfNeeded();
        }
        super.channelWritabilityChanged(ctx);
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        // A peer resetting its socket is routine; anything else is worth a warning.
        System.Logger.Level level =
                cause instanceof IOException ? System.Logger.Level.DEBUG : System.Logger.Level.WARNING;
        LOG.log(level, "closing connection to " + remotePeer + ": " + cause);
        ctx.close();
    }

    private void goAway(int code, String reason) {
        if (ctx.channel().isActive()) {
            if (!localGoAway) {
                localGoAway = true;
                writeFrame(TYPE_GO_AWAY, 0, 0, code);
            }
            ctx.writeAndFlush(io.netty.buffer.Unpooled.EMPTY_BUFFER).addListener(ChannelFutureListener.CLOSE);
        } else {
            ctx.close();
        }
    }

    private void protocolError(int code, String reason) {
        if (failed) {
            return;
        }
        failed = true;
        LOG.log(System.Logger.Level.WARNING, "closing yamux session with {0}: {1}", remotePeer, reason);
        goAway(code, reason);
    }

    private void onClosed() {
        if (closeFuture.isDone()) {
            return;
        }
        if (keepAlive != null) {
            keepAlive.cancel(false);
        }
        for (YamuxStream s : new ArrayList<>(streams.values())) {
            s.onSessionClosed(new StreamResetException("connection to " + remotePeer + " closed"));
        }
        streams.clear();
        for (PendingPing p : pings.values()) {
            p.result.completeExceptionally(new IOException("connection to " + remotePeer + " closed"));
        }
        pings.clear();
        closeFuture.complete(null);
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) throws Exception {
        onClosed();
        super.channelInactive(ctx);
    }
}
