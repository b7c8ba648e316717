package dev.chorus.gossip.host;

import dev.chorus.gossip.core.Stream;
import dev.chorus.gossip.identity.PeerId;
import dev.chorus.gossip.multiaddr.Multiaddr;
import dev.chorus.gossip.multistream.MultistreamSelect;
import dev.chorus.gossip.protocol.Identify;
import dev.chorus.gossip.protocol.IdentifyInfo;
import dev.chorus.gossip.protocol.Ping;
import dev.chorus.gossip.yamux.YamuxSession;
import dev.chorus.gossip.yamux.YamuxStream;
import io.netty.channel.Channel;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;

/** An upgraded connection to one peer: a Noise-secured yamux session over TCP. */
public final class Connection {
    public enum Direction {
        INBOUND,
        OUTBOUND
    }

    private final Channel channel;
    private final YamuxSession session;
    private final PeerId remotePeer;
    private final Multiaddr remoteAddress;
    private final Multiaddr localAddress;
    private final Direction direction;
    private final Instant openedAt = Instant.now();
    private final Duration negotiationTimeout;
    private final boolean lazyNegotiation;
    private final AtomicInteger streams = new AtomicInteger();
    private volatile long lastActiveNanos = System.nanoTime();
    final CompletableFuture<IdentifyInfo> identify = new CompletableFuture<>();
    private volatile IdentifyInfo identifyInfo;
    private volatile boolean closing;
    private final ConnectionGate gate;
    private volatile boolean admitted;

    Connection(
            Channel channel,
            YamuxSession session,
            PeerId remotePeer,
            Multiaddr remoteAddress,
            Multiaddr localAddress,
            Direction direction,
            HostConfig.Upgrade upgrade,
            ConnectionGate gate) {
        this.channel = channel;
        this.session = session;
        this.remotePeer = remotePeer;
        this.remoteAddress = remoteAddress;
        this.localAddress = localAddress;
        this.direction = direction;
        this.negotiationTimeout = upgrade.streamNegotiationTimeout();
        this.lazyNegotiation = upgrade.lazyNegotiation();
        this.gate = gate;
    }

    public PeerId remotePeer() {
        return remotePeer;
    }

    /** The remote's TCP address, without {@code /p2p/}. */
    public Multiaddr remoteAddress() {
        return remoteAddress;
    }

    public Multiaddr localAddress() {
        return localAddress;
    }

    public Direction direction() {
        return direction;
    }

    public Instant openedAt() {
        return openedAt;
    }

    public boolean isOpen() {
        return channel.isActive() && !closing;
    }

    /** Streams open on this connection (both directions). */
    public int openStreams() {
        return streams.get();
    }

    /** The identify record the remote sent (after a push, merged), once the identify exchange is done. */
    public CompletableFuture<IdentifyInfo> identify() {
        return identify;
    }

    /** The latest identify record, or null before the first one arrived. */
    public IdentifyInfo identifyInfo() {
        return identifyInfo;
    }

    void identified(IdentifyInfo info) {
        identifyInfo = identifyInfo == null ? info : identifyInfo.merge(info);
        identify.complete(identifyInfo);
    }

    /** Whether the host's {@link ConnectionGate} (if any) has admitted this connection. */
    public boolean admitted() {
        return admitted;
    }

    void admit() {
        admitted = true;
    }

    /**
     * Whether this connection may run {@code protocol} now: identify, ping and the gate's own protocol always;
     * any other once the gate has admitted the connection and permits it the protocol.
     */
    public boolean permits(String protocol) {
        if (gate == null
                || protocol.equals(Identify.ID)
                || protocol.equals(Identify.PUSH_ID)
                || protocol.equals(Ping.ID)
                || protocol.equals(gate.protocol())) {
            return true;
        }
        return admitted && gate.permits(this, protocol);
    }

    /** Round trip of a yamux Ping on this connection (no stream needed). */
    public CompletableFuture<Duration> muxerPing() {
        return session.ping();
    }

    /**
     * Opens a stream and negotiates the first of {@code protocols} the remote supports. When the remote's identify
     * listed one of them and {@link HostConfig.Upgrade#lazyNegotiation()} is on, that one is proposed alone and the
     * stream is handed over at once ({@link #isPipelined}): what the caller writes follows the proposal, and its reads
     * wait for the answer.
     */
    public CompletableFuture<Stream> newStream(String... protocols) {
        if (closing) {
            return CompletableFuture.failedFuture(
                    new java.io.IOException("connection to " + remotePeer + " is closing"));
        }
        List<String> offered = List.of(protocols).stream().filter(this::permits).toList();
        if (offered.isEmpty()) {
            return CompletableFuture.failedFuture(new ConnectionRefusedException(
                    "not-admitted", "connection to " + remotePeer + " is not admitted for " + List.of(protocols)));
        }
        String listed = lazyNegotiation ? listedByRemote(offered) : null;
        List<String> proposed = listed != null ? List.of(listed) : offered;
        return session.openStream().thenCompose(s -> {
            tracked(s);
            CompletableFuture<String> agreed = withTimeout(
                    StreamNegotiation.run(s, new MultistreamSelect.Dialer(proposed)), s, "negotiating " + proposed);
            if (listed != null) {
                return CompletableFuture.completedFuture(new PipelinedStream(s, listed, agreed));
            }
            return agreed.thenApply(p -> (Stream) s);
        });
    }

    /**
     * Runs {@code task} on the event loop thread that carries this connection: its socket reads and writes, Noise,
     * yamux and the stream callbacks completed there. A benchmark uses it to find the thread whose CPU time an
     * exchange costs.
     */
    public void executeOnIoThread(Runnable task) {
        channel.eventLoop().execute(task);
    }

    /** Whether {@code stream} was handed over before its protocol was agreed (lazy negotiation). */
    public static boolean isPipelined(Stream stream) {
        return stream instanceof PipelinedStream;
    }

    /** The first of {@code offered} that the remote's identify listed; null before identify or when none. */
    private String listedByRemote(List<String> offered) {
        IdentifyInfo info = identifyInfo;
        if (info == null) {
            return null;
        }
        for (String p : offered) {
            if (info.protocols().contains(p)) {
                return p;
            }
        }
        return null;
    }

    /** Counts a stream in {@link #openStreams()} until it closes. */
    void tracked(YamuxStream s) {
        streams.incrementAndGet();
        lastActiveNanos = System.nanoTime();
        s.closeFuture().whenComplete((v, e) -> {
            streams.decrementAndGet();
            lastActiveNanos = System.nanoTime();
        });
    }

    <T> CompletableFuture<T> withTimeout(CompletableFuture<T> f, YamuxStream s, String what) {
        var timer = channel.eventLoop()
                .schedule(
                        () -> {
                            if (f.completeExceptionally(
                                    new TimeoutException(what + " with " + remotePeer + " timed out"))) {
                                s.reset();
                            }
                        },
                        negotiationTimeout.toMillis(),
                        TimeUnit.MILLISECONDS);
        f.whenComplete((v, e) -> {
            timer.cancel(false);
            if (e != null) {
                s.reset();
            }
        });
        return f;
    }

    long idleNanos() {
        return streams.get() > 0 ? 0 : System.nanoTime() - lastActiveNanos;
    }

    YamuxSession session() {
        return session;
    }

    Channel channel() {
        return channel;
    }

    /**
     * Closes gracefully: GoAway so no new streams start, then waits up to {@code grace} for open
     * streams to finish before closing the socket.
     */
    public CompletableFuture<Void> close(Duration grace) {
        if (!closing) {
            closing = true;
            session.goAway();
            long deadline = System.nanoTime() + grace.toNanos();
            awaitStreams(deadline);
        }
        return closeFuture();
    }

    private void awaitStreams(long deadline) {
        if (!channel.isActive()) {
            return;
        }
        if (streams.get() == 0 || System.nanoTime() >= deadline) {
            session.close();
            return;
        }
        channel.eventLoop().schedule(() -> awaitStreams(deadline), 20, TimeUnit.MILLISECONDS);
    }

    public CompletableFuture<Void> closeFuture() {
        return session.closeFuture();
    }

    @Override
    public String toString() {
        return "Connection(" + direction + " " + remotePeer + " at " + remoteAddress + ")";
    }
}
