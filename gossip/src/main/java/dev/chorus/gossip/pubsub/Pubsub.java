package dev.chorus.gossip.pubsub;

import dev.chorus.gossip.core.Stream;
import dev.chorus.gossip.core.Streams;
import dev.chorus.gossip.encoding.LengthPrefixed;
import dev.chorus.gossip.host.Connection;
import dev.chorus.gossip.host.ConnectionListener;
import dev.chorus.gossip.host.Host;
import dev.chorus.gossip.identity.PeerId;
import dev.chorus.gossip.protocol.IdentifyInfo;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.handler.codec.CorruptedFrameException;
import io.netty.handler.codec.TooLongFrameException;
import java.net.InetAddress;
import java.security.SecureRandom;
import java.time.InstantSource;
import java.util.ArrayDeque;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * Pubsub on a {@link Host}: the network glue around a {@link GossipsubRouter}. Each peer that speaks a
 * pubsub protocol gets one long-lived outbound stream ({@code /meshsub/1.2.0}, {@code 1.1.0},
 * {@code 1.0.0} or {@code /floodsub/1.0.0}, as negotiated) that only this side writes, with a bounded
 * queue; streams the peer opens are read as length-prefixed RPCs, one at a time, so a slow router stalls
 * the sender through yamux flow control instead of growing memory. The router runs on one thread of its
 * own, where handlers and validators are called.
 *
 * <pre>
 * Pubsub pubsub = Pubsub.start(host, PubsubConfig.defaults());
 * pubsub.subscribe("chorus/consortium-1", (msg, id, from) -&gt; System.out.println(msg.toJsonEvent()));
 * pubsub.publish("chorus/consortium-1", bytes).join();
 * </pre>
 */
public final class Pubsub implements AutoCloseable {
    private static final System.Logger LOG = System.getLogger(Pubsub.class.getName());
    /** Inbound pubsub streams per connection: js opens one, and may reopen it after a reset. */
    static final int MAX_INBOUND_STREAMS = 4;

    private final Host host;
    private final PubsubConfig config;
    private final ScheduledExecutorService loop;
    private final GossipsubRouter router;
    private final Map<PeerId, Outbound> outbound = new ConcurrentHashMap<>();
    private final Map<String, List<MessageListener>> handlers = new ConcurrentHashMap<>();
    private final ConnectionListener connectionListener;
    private final ScheduledFuture<?> heartbeat;
    private volatile boolean closed;
    /** Draws the sequence numbers of this node's messages, on any thread. */
    private final SecureRandom seqnoRandom = new SecureRandom();

    private Pubsub(Host host, PubsubConfig config, InstantSource clock) {
        this.host = host;
        this.config = config;
        this.loop = Executors.newSingleThreadScheduledExecutor(r -> Thread.ofPlatform()
                .daemon()
                .name("pubsub-" + host.peerId().toBase58().substring(0, 16))
                .unstarted(r));
        this.router = new GossipsubRouter(
                host.config().identity(), config, clock, seqnoRandom, loop, this::send, this::deliver);
        router.setPeerExchange(new GossipsubRouter.PeerExchange() {
            @Override
            public java.util.Optional<byte[]> recordOf(PeerId peer) {
                return host.peerRecord(peer).map(dev.chorus.gossip.record.SignedEnvelope::encode);
            }

            @Override
            public void learned(PeerId peer, List<dev.chorus.gossip.multiaddr.Multiaddr> addrs) {
                peerExchangeListener.accept(peer, addrs);
            }
        });
        this.connectionListener = new ConnectionListener() {
            @Override
            public void connected(Connection c) {
                onConnected(c);
            }

            @Override
            public void disconnected(Connection c) {
                onDisconnected(c);
            }
        };
        long interval = config.params().timing().heartbeatInterval().toMillis();
        // Like go and js, the first heartbeat comes soon after start.
        this.heartbeat = loop.scheduleAtFixedRate(this::safeHeartbeat, 100, interval, TimeUnit.MILLISECONDS);
    }

    /** Starts pubsub on {@code host}: registers the protocols and attaches to current and future connections. */
    public static Pubsub start(Host host, PubsubConfig config) {
        return start(host, config, InstantSource.system());
    }

    static Pubsub start(Host host, PubsubConfig config, InstantSource clock) {
        Pubsub ps = new Pubsub(host, config, clock);
        host.addConnectionListener(ps.connectionListener);
        for (PubsubProtocol p : config.protocols()) {
            PubsubProtocol proto = p;
            host.setHandler(p.id(), s -> ps.onInboundStream(s, proto), MAX_INBOUND_STREAMS);
        }
        for (Connection c : host.connections()) {
            ps.onConnected(c);
        }
        return ps;
    }

    private volatile java.util.function.BiConsumer<PeerId, List<dev.chorus.gossip.multiaddr.Multiaddr>>
            peerExchangeListener = (peer, addrs) -> {};

    /**
     * Where the peers learnt from gossipsub's peer exchange go (a peer that prunes this node from a mesh may name
     * others, each with its signed peer record): e.g. a dialer that remembers and dials them. Called on the pubsub
     * thread; it must be quick.
     */
    public void onPeerExchange(java.util.function.BiConsumer<PeerId, List<dev.chorus.gossip.multiaddr.Multiaddr>> l) {
        this.peerExchangeListener = l;
    }

    public PubsubConfig config() {
        return config;
    }

    public PeerId peerId() {
        return host.peerId();
    }

    // ---------------------------------------------------------------- API

    /**
     * Subscribes to {@code topic}; {@code handler} gets every validated message of it (not our own), on
     * the router thread, and must not block. Closing the returned handle removes the handler, and
     * unsubscribes when it was the topic's last.
     */
    public AutoCloseable subscribe(String topic, MessageListener handler) {
        handlers.computeIfAbsent(topic, k -> new CopyOnWriteArrayList<>()).add(handler);
        onLoopRun(() -> router.subscribe(topic)).join();
        return () -> {
            List<MessageListener> list = handlers.get(topic);
            if (list != null && list.remove(handler) && list.isEmpty()) {
                handlers.remove(topic, list);
                onLoopRun(() -> router.unsubscribe(topic)).join();
            }
        };
    }

    /** Publishes {@code data} on {@code topic}; completes with the message id and how many peers it went to. */
    public CompletableFuture<GossipsubRouter.PublishResult> publish(String topic, byte[] data) {
        // Authored, i.e. signed, on the caller's thread: the signature hashes the whole message twice, and the router's
        // thread, which all of this node's pubsub traffic goes through, should only send it.
        PubsubMessage msg;
        try {
            msg = config.signaturePolicy().author(host.config().identity(), topic, data.clone(), seqnoRandom);
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(e);
        }
        return onLoop(() -> router.publish(msg));
    }

    /** Sets the application validator of {@code topic} (null removes it). */
    public void setValidator(String topic, MessageValidator validator) {
        onLoopRun(() -> router.setValidator(topic, validator)).join();
    }

    public CompletableFuture<Set<PeerId>> meshPeers(String topic) {
        return onLoop(() -> router.meshPeers(topic));
    }

    public CompletableFuture<Set<PeerId>> topicPeers(String topic) {
        return onLoop(() -> router.topicPeers(topic));
    }

    public CompletableFuture<Double> score(PeerId peer) {
        return onLoop(() -> router.score(peer));
    }

    public CompletableFuture<GossipsubRouter.Stats> stats() {
        return onLoop(router::stats);
    }

    /** Runs {@code f} on the router thread, with the router, for diagnostics and tests. */
    public <T> CompletableFuture<T> inspect(java.util.function.Function<GossipsubRouter, T> f) {
        return onLoop(() -> f.apply(router));
    }

    private <T> CompletableFuture<T> onLoop(java.util.function.Supplier<T> f) {
        CompletableFuture<T> out = new CompletableFuture<>();
        try {
            loop.execute(() -> {
                try {
                    out.complete(f.get());
                } catch (RuntimeException e) {
                    out.completeExceptionally(e);
                }
            });
        } catch (java.util.concurrent.RejectedExecutionException e) {
            out.completeExceptionally(new IllegalStateException("pubsub is closed"));
        }
        return out;
    }

    private CompletableFuture<Void> onLoopRun(Runnable r) {
        return onLoop(() -> {
            r.run();
            return null;
        });
    }

    private void safeHeartbeat() {
        try {
            router.heartbeat();
        } catch (RuntimeException e) {
            LOG.log(System.Logger.Level.ERROR, "pubsub heartbeat failed", e);
        }
    }

    private void deliver(PubsubMessage msg, MessageId id, PeerId from) {
        List<MessageListener> list = handlers.get(msg.topic());
        if (list == null) {
            return;
        }
        for (MessageListener l : list) {
            try {
                l.onMessage(msg, id, from);
            } catch (RuntimeException e) {
                LOG.log(System.Logger.Level.WARNING, "pubsub handler of " + msg.topic() + " failed", e);
            }
        }
    }

    // ---------------------------------------------------------------- connections

    private void onConnected(Connection c) {
        c.identify().thenAccept(info -> {
            if (speaksPubsub(info)) {
                ensureOutbound(c);
            }
        });
    }

    private boolean speaksPubsub(IdentifyInfo info) {
        for (PubsubProtocol p : config.protocols()) {
            if (info.protocols().contains(p.id())) {
                return true;
            }
        }
        return false;
    }

    private void onDisconnected(Connection c) {
        PeerId peer = c.remotePeer();
        if (host.connection(peer) != null) {
            return; // another connection to the peer remains
        }
        Outbound o = outbound.remove(peer);
        if (o != null) {
            o.close();
        }
        onLoopRun(() -> router.removePeer(peer));
    }

    private static InetAddress ipOf(Connection c) {
        try {
            return c.remoteAddress().toTcpSocketAddress().getAddress();
        } catch (RuntimeException e) {
            return null;
        }
    }

    private void ensureOutbound(Connection c) {
        PeerId peer = c.remotePeer();
        Outbound o = new Outbound(peer);
        if (closed || outbound.putIfAbsent(peer, o) != null) {
            return;
        }
        String[] ids = config.protocols().stream().map(PubsubProtocol::id).toArray(String[]::new);
        c.newStream(ids).whenComplete((s, err) -> {
            if (err != null) {
                LOG.log(System.Logger.Level.DEBUG, "no pubsub stream to {0}: {1}", peer, err.toString());
                outbound.remove(peer, o);
                return;
            }
            PubsubProtocol proto = PubsubProtocol.of(s.protocol());
            boolean dialer = c.direction() == Connection.Direction.OUTBOUND;
            InetAddress ip = ipOf(c);
            // The peer never writes on this stream; its end (or a reset) means the peer went away.
            s.closeFuture().whenComplete((v, e) -> {
                if (outbound.remove(peer, o)) {
                    o.close();
                    onLoopRun(() -> router.removePeer(peer));
                }
            });
            onLoopRun(() -> router.addPeer(peer, proto, dialer, ip)).thenRun(() -> o.attach(s));
        });
    }

    // ---------------------------------------------------------------- inbound

    private void onInboundStream(Stream s, PubsubProtocol proto) {
        PeerId peer = s.remotePeer();
        Connection c = host.connection(peer);
        if (c == null) {
            s.reset();
            return;
        }
        boolean dialer = c.direction() == Connection.Direction.OUTBOUND;
        InetAddress ip = ipOf(c);
        onLoopRun(() -> router.addPeer(peer, proto, dialer, ip));
        ensureOutbound(c);
        ByteBuf buf = Unpooled.buffer();
        int max = config.limits().maxRpcBytes();
        RpcCodec codec = new RpcCodec(config.limits());
        Streams.forEachChunk(s, chunk -> {
                    buf.writeBytes(chunk);
                    CompletableFuture<Void> last = CompletableFuture.completedFuture(null);
                    while (true) {
                        byte[] frame;
                        try {
                            frame = LengthPrefixed.tryRead(buf, max);
                        } catch (TooLongFrameException | CorruptedFrameException e) {
                            onLoopRun(() -> router.onInvalidRpc(peer, e.getMessage()));
                            throw new InvalidRpcException("unreadable RPC frame from " + peer + ": " + e.getMessage());
                        }
                        if (frame == null) {
                            break;
                        }
                        buf.discardReadBytes();
                        Rpc rpc;
                        try {
                            rpc = codec.decode(frame);
                        } catch (InvalidRpcException e) {
                            last = onLoopRun(() -> router.onInvalidRpc(peer, e.getMessage()));
                            continue; // the framing is intact: go on with the next RPC
                        }
                        last = onLoopRun(() -> router.onRpc(peer, rpc));
                    }
                    return last;
                })
                .whenComplete((n, err) -> {
                    buf.release();
                    if (err != null) {
                        LOG.log(System.Logger.Level.DEBUG, "pubsub stream from {0} ended: {1}", peer, err.toString());
                        s.reset();
                    } else {
                        s.closeWrite();
                    }
                });
    }

    // ---------------------------------------------------------------- outbound

    private void send(PeerId peer, Rpc rpc) {
        Outbound o = outbound.get(peer);
        if (o == null) {
            return;
        }
        o.enqueue(RpcCodec.encodeFramed(rpc));
    }

    /** The one stream we write to a peer, with a bounded queue of encoded frames. */
    private final class Outbound {
        private final PeerId peer;
        private final ArrayDeque<byte[]> queue = new ArrayDeque<>();
        private Stream stream;
        private long queuedBytes;
        private boolean writing;
        private boolean dead;
        private long dropped;

        Outbound(PeerId peer) {
            this.peer = peer;
        }

        void enqueue(byte[] frame) {
            synchronized (this) {
                if (dead) {
                    return;
                }
                if (queuedBytes + frame.length > config.maxOutboundQueueBytes()) {
                    if (dropped++ % 100 == 0) {
                        LOG.log(System.Logger.Level.WARNING, "pubsub queue to {0} is full; dropping RPCs", peer);
                    }
                    return;
                }
                queue.add(frame);
                queuedBytes += frame.length;
                if (stream == null || writing) {
                    return;
                }
                writing = true;
            }
            drain();
        }

        void attach(Stream s) {
            synchronized (this) {
                if (dead) {
                    s.reset();
                    return;
                }
                stream = s;
                if (writing || queue.isEmpty()) {
                    return;
                }
                writing = true;
            }
            drain();
        }

        private void drain() {
            Streams.loop(() -> {
                        byte[] frame;
                        Stream s;
                        synchronized (this) {
                            frame = dead ? null : queue.poll();
                            if (frame == null) {
                                writing = false;
                                return CompletableFuture.completedFuture(false);
                            }
                            queuedBytes -= frame.length;
                            s = stream;
                        }
                        return s.write(frame).thenApply(v -> true);
                    })
                    .whenComplete((v, err) -> {
                        if (err != null) {
                            LOG.log(
                                    System.Logger.Level.DEBUG,
                                    "pubsub stream to {0} failed: {1}",
                                    peer,
                                    err.toString());
                            close();
                        }
                    });
        }

        void close() {
            Stream s;
            synchronized (this) {
                dead = true;
                queue.clear();
                queuedBytes = 0;
                s = stream;
            }
            if (s != null) {
                s.reset();
            }
        }
    }

    /** Stops the heartbeat, unregisters the protocols and resets the streams; the host stays up. */
    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        heartbeat.cancel(false);
        host.removeConnectionListener(connectionListener);
        for (PubsubProtocol p : config.protocols()) {
            host.removeHandler(p.id());
        }
        outbound.values().forEach(Outbound::close);
        outbound.clear();
        loop.shutdown();
        try {
            loop.awaitTermination(5, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
