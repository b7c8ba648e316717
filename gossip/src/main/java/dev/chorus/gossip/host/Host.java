package dev.chorus.gossip.host;

import dev.chorus.gossip.core.Stream;
import dev.chorus.gossip.core.StreamHandler;
import dev.chorus.gossip.identity.PeerId;
import dev.chorus.gossip.libcrypto.LibCryptoUnavailableException;
import dev.chorus.gossip.multiaddr.Multiaddr;
import dev.chorus.gossip.multistream.MultistreamHandler;
import dev.chorus.gossip.multistream.MultistreamSelect;
import dev.chorus.gossip.noise.NoiseCiphers;
import dev.chorus.gossip.noise.NoiseHandshakeHandler;
import dev.chorus.gossip.noise.SecureSession;
import dev.chorus.gossip.pnet.PrivateNetworkHandler;
import dev.chorus.gossip.protocol.Identify;
import dev.chorus.gossip.protocol.IdentifyInfo;
import dev.chorus.gossip.protocol.Ping;
import dev.chorus.gossip.record.SignedEnvelope;
import dev.chorus.gossip.transport.TcpTransport;
import dev.chorus.gossip.yamux.YamuxSession;
import dev.chorus.gossip.yamux.YamuxStream;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.socket.SocketChannel;
import io.netty.handler.traffic.GlobalTrafficShapingHandler;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

/**
 * A libp2p host: listens and dials over TCP, upgrades every connection (the private network layer when
 * configured, multistream-select, Noise, yamux), serves identify and ping, dispatches inbound streams to registered protocol handlers, and
 * manages connections (limits, idle timeout, dial backoff, graceful close, events).
 *
 * <pre>
 * Host host = Host.start(HostConfig.defaults(key).withListenAddrs(List.of(Multiaddr.parse("/ip4/127.0.0.1/tcp/0")))).join();
 * host.setHandler(Echo.ID, Echo.handler());
 * Stream s = host.newStream(Multiaddr.parse("/ip4/127.0.0.1/tcp/4001/p2p/12D3KooW..."), Echo.ID).join();
 * </pre>
 */
public final class Host implements AutoCloseable {
    private static final System.Logger LOG = System.getLogger(Host.class.getName());
    public static final String NOISE = "/noise";
    public static final String YAMUX = "/yamux/1.0.0";
    /** Per-connection inbound streams of one protocol, as js-libp2p's default. */
    public static final int DEFAULT_MAX_INBOUND_STREAMS = 32;

    /** How often the bandwidth limit's counters are renewed: short, so that bursts stay small. */
    private static final long SHAPING_INTERVAL_MILLIS = 100;

    private record Registration(StreamHandler handler, int maxInboundPerConnection) {}

    /** Inbound streams of the gate's protocol at once per connection: one check each way, and a renewal. */
    private static final int GATE_STREAMS_PER_CONNECTION = 2;

    private final HostConfig config;
    private final PeerId peerId;
    private final TcpTransport transport;
    private final SecureRandom random = new SecureRandom();
    private final Map<String, Registration> handlers = new ConcurrentHashMap<>();
    private final Map<PeerId, List<Connection>> connections = new ConcurrentHashMap<>();
    private final Map<PeerId, CompletableFuture<Connection>> pendingDials = new ConcurrentHashMap<>();
    private final Map<InetAddress, AtomicInteger> inboundPerIp = new ConcurrentHashMap<>();
    private final AtomicInteger channels = new AtomicInteger();
    private final List<Channel> servers = new CopyOnWriteArrayList<>();
    /** Whether each listener was asked for an IPv6 address (a dual-stack socket may report "::"). */
    private final Map<Channel, Boolean> serverFamilyV6 = new ConcurrentHashMap<>();

    private final List<ConnectionListener> listeners = new CopyOnWriteArrayList<>();
    private final DialBackoff backoff;
    /** Admits connections before they carry application protocols; null when every connection is admitted. */
    private final ConnectionGate gate;
    /** Shared by all channels, so that the limit holds for the host as a whole; null when unlimited. */
    private final GlobalTrafficShapingHandler shaper;

    /** The Noise transport's ChaCha20-Poly1305, chosen once at start. */
    private final NoiseCiphers.Selection cipher;

    private volatile boolean closed;
    private final PeerRecords records;

    private Host(HostConfig config, ConnectionGate gate, NoiseCiphers.Selection cipher) {
        this.config = config;
        this.cipher = cipher;
        this.gate = gate;
        this.peerId = config.identity().peerId();
        this.records = new PeerRecords(config.identity());
        HostConfig.Transport tcp = config.transport();
        this.transport = new TcpTransport(tcp.ioThreads(), tcp.dialTimeout(), tcp.preferEpoll());
        HostConfig.Connections connections = config.connections();
        this.backoff = new DialBackoff(connections.dialBackoffBase(), connections.dialBackoffMax(), System::nanoTime);
        this.shaper = tcp.bandwidthLimit() > 0
                ? new GlobalTrafficShapingHandler(
                        transport.group(), tcp.bandwidthLimit(), tcp.bandwidthLimit(), SHAPING_INTERVAL_MILLIS)
                : null;
        handlers.put(Ping.ID, new Registration(Ping.handler(), 2));
        handlers.put(Identify.PUSH_ID, new Registration(Identify.pushHandler(this::onIdentifyPush), 4));
    }

    /** Creates a host and listens on the configured addresses; every connection is admitted. */
    public static CompletableFuture<Host> start(HostConfig config) {
        return start(config, null);
    }

    /**
     * Creates a host whose connections carry application protocols only once {@code gate} admits them (null: all
     * are admitted), and listens on the configured addresses. The gate is in place before the first connection.
     * Fails with {@link LibCryptoUnavailableException} when the configuration requires libcrypto and it is
     * unusable.
     */
    public static CompletableFuture<Host> start(HostConfig config, ConnectionGate gate) {
        NoiseCiphers.Selection cipher;
        try {
            cipher = NoiseCiphers.select(config.upgrade().crypto());
        } catch (LibCryptoUnavailableException e) {
            return CompletableFuture.failedFuture(e);
        }
        Host host = new Host(config, gate, cipher);
        List<CompletableFuture<Channel>> binds = new ArrayList<>();
        for (Multiaddr addr : config.listenAddrs()) {
            InetSocketAddress sa;
            try {
                sa = addr.withoutPeerId().toTcpSocketAddress();
            } catch (RuntimeException e) {
                host.close();
                return CompletableFuture.failedFuture(e);
            }
            boolean v6 = sa.getAddress() instanceof java.net.Inet6Address;
            binds.add(host.transport.listen(sa, host::accepted).thenApply(ch -> {
                host.servers.add(ch);
                host.serverFamilyV6.put(ch, v6);
                return ch;
            }));
        }
        host.scheduleIdleSweep();
        // A failed bind completes on an event loop thread, which must not wait for its own group to stop.
        return CompletableFuture.allOf(binds.toArray(CompletableFuture[]::new))
                .handle((v, err) -> err)
                .thenCompose(err -> err == null
                        ? CompletableFuture.completedFuture(host)
                        : host.closeAsync().thenApply(x -> {
                            throw new java.util.concurrent.CompletionException(err);
                        }));
    }

    public PeerId peerId() {
        return peerId;
    }

    public HostConfig config() {
        return config;
    }

    /** The Noise transport's ChaCha20-Poly1305 implementation and why it was chosen. */
    public NoiseCiphers.Selection cipher() {
        return cipher;
    }

    /**
     * The addresses this host listens on, each ending in {@code /p2p/<peer id>}. A wildcard listen
     * address (0.0.0.0 or ::) is expanded to the addresses of the network interfaces that are up.
     */
    public List<Multiaddr> listenAddrs() {
        List<Multiaddr> out = new ArrayList<>();
        for (Channel ch : servers) {
            InetSocketAddress bound = (InetSocketAddress) ch.localAddress();
            if (bound == null) {
                continue;
            }
            boolean v6 = serverFamilyV6.getOrDefault(ch, bound.getAddress() instanceof java.net.Inet6Address);
            if (!bound.getAddress().isAnyLocalAddress()) {
                out.add(Multiaddr.fromSocketAddress(bound).withPeerId(peerId));
                continue;
            }
            try {
                for (var ni : java.util.Collections.list(java.net.NetworkInterface.getNetworkInterfaces())) {
                    if (!ni.isUp()) {
                        continue;
                    }
                    for (InetAddress ia : java.util.Collections.list(ni.getInetAddresses())) {
                        if ((ia instanceof java.net.Inet6Address) == v6 && !ia.isLinkLocalAddress()) {
                            InetAddress plain = InetAddress.getByAddress(ia.getAddress()); // drops an IPv6 scope
                            out.add(Multiaddr.fromSocketAddress(new InetSocketAddress(plain, bound.getPort()))
                                    .withPeerId(peerId));
                        }
                    }
                }
            } catch (IOException e) {
                LOG.log(System.Logger.Level.WARNING, "cannot list network interfaces: " + e);
                out.add(Multiaddr.fromSocketAddress(bound).withPeerId(peerId));
            }
        }
        return out;
    }

    /** True when the native epoll transport is in use. */
    public boolean usesEpoll() {
        return transport.usesEpoll();
    }

    // ---------------------------------------------------------------- protocol registry

    /** Serves {@code protocol} on inbound streams; at most 32 at once per connection. */
    public void setHandler(String protocol, StreamHandler handler) {
        setHandler(protocol, handler, DEFAULT_MAX_INBOUND_STREAMS);
    }

    public void setHandler(String protocol, StreamHandler handler, int maxInboundPerConnection) {
        if (protocol.equals(Identify.ID) || (gate != null && protocol.equals(gate.protocol()))) {
            throw new IllegalArgumentException(protocol + " is served by the host itself");
        }
        MultistreamSelect.encode(protocol); // validates the length
        boolean changed = handlers.put(protocol, new Registration(handler, maxInboundPerConnection)) == null;
        if (changed) {
            pushIdentify();
        }
    }

    public void removeHandler(String protocol) {
        if (handlers.remove(protocol) != null) {
            pushIdentify();
        }
    }

    /** The protocols this host serves, as listed in identify. */
    public List<String> protocols() {
        List<String> out = new ArrayList<>(handlers.keySet());
        out.add(Identify.ID);
        if (gate != null) {
            out.add(gate.protocol());
        }
        out.sort(null);
        return out;
    }

    public void addConnectionListener(ConnectionListener l) {
        listeners.add(l);
    }

    public void removeConnectionListener(ConnectionListener l) {
        listeners.remove(l);
    }

    // ---------------------------------------------------------------- dialing

    /**
     * Connects to {@code addr} (a TCP multiaddr, optionally ending in {@code /p2p/<id>}, which is then
     * verified in the handshake). Reuses an open connection to that peer and joins a dial in flight.
     */
    public CompletableFuture<Connection> connect(Multiaddr addr) {
        if (closed) {
            return CompletableFuture.failedFuture(new IOException("host is closed"));
        }
        PeerId expected = addr.peerId().orElse(null);
        if (expected != null) {
            if (expected.equals(peerId)) {
                return CompletableFuture.failedFuture(new IOException("refusing to dial self"));
            }
            Connection existing = connection(expected);
            if (existing != null) {
                return CompletableFuture.completedFuture(existing);
            }
            CompletableFuture<Connection> inFlight = pendingDials.get(expected);
            if (inFlight != null) {
                return inFlight;
            }
        }
        String target = expected != null ? expected.toBase58() : addr.toString();
        Duration wait = backoff.remaining(target);
        if (!wait.isZero()) {
            return CompletableFuture.failedFuture(new DialBackoffException(
                    "dial to " + target + " backing off for another " + wait.toMillis() + " ms"));
        }
        InetSocketAddress sa;
        try {
            sa = addr.withoutPeerId().toTcpSocketAddress();
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(e);
        }
        if (channels.get() >= config.connections().maxConnections()) {
            return CompletableFuture.failedFuture(
                    new IOException("connection limit " + config.connections().maxConnections() + " reached"));
        }
        CompletableFuture<Connection> result = new CompletableFuture<>();
        if (expected != null) {
            CompletableFuture<Connection> raced = pendingDials.putIfAbsent(expected, result);
            if (raced != null) {
                return raced;
            }
        }
        transport
                .dial(sa, ch -> upgrade(ch, Connection.Direction.OUTBOUND, expected, result))
                .whenComplete((ch, err) -> {
                    if (err != null) {
                        result.completeExceptionally(err);
                    }
                });
        result.whenComplete((c, err) -> {
            if (expected != null) {
                pendingDials.remove(expected, result);
            }
            if (err != null) {
                backoff.failed(target);
            } else {
                backoff.succeeded(target);
            }
        });
        return result;
    }

    /**
     * How much longer a dial to {@code peer} is refused for failed dials or a refused connection (zero when a dial may
     * go ahead), so that a caller with a schedule of its own can wait rather than fail.
     */
    public Duration dialBackoff(PeerId peer) {
        return backoff.remaining(peer.toBase58());
    }

    /** An open connection to {@code peer}, or null. */
    public Connection connection(PeerId peer) {
        List<Connection> list = connections.get(peer);
        if (list == null) {
            return null;
        }
        for (Connection c : list) {
            if (c.isOpen() && c.admitted()) {
                return c;
            }
        }
        return null;
    }

    /** The admitted connections (with a {@link ConnectionGate}, those it has not admitted yet are left out). */
    public List<Connection> connections() {
        List<Connection> out = new ArrayList<>();
        for (List<Connection> l : connections.values()) {
            for (Connection c : l) {
                if (c.admitted()) {
                    out.add(c);
                }
            }
        }
        return out;
    }

    /** TCP channels open now: connected, upgrading or closing. */
    int openChannels() {
        return channels.get();
    }

    /** Every registered connection, admitted or not. */
    List<Connection> allConnections() {
        List<Connection> out = new ArrayList<>();
        connections.values().forEach(out::addAll);
        return out;
    }

    /** Opens a stream on an existing connection to {@code peer}. */
    public CompletableFuture<Stream> newStream(PeerId peer, String... protocols) {
        Connection c = connection(peer);
        if (c == null) {
            return CompletableFuture.failedFuture(new IOException("not connected to " + peer));
        }
        return c.newStream(protocols);
    }

    /** Connects to {@code addr} if needed and opens a stream. */
    public CompletableFuture<Stream> newStream(Multiaddr addr, String... protocols) {
        return connect(addr).thenCompose(c -> c.newStream(protocols));
    }

    /** Round-trip times of {@code count} pings over {@code /ipfs/ping/1.0.0}. */
    public CompletableFuture<List<Duration>> ping(PeerId peer, int count) {
        return newStream(peer, Ping.ID).thenCompose(s -> Ping.ping(s, count));
    }

    /**
     * {@code peer}'s signed peer record as it sent it in identify, once verified (its addresses signed by its own
     * key); empty when it sent none or none that verified.
     */
    public Optional<SignedEnvelope> peerRecord(PeerId peer) {
        return records.of(peer);
    }

    /** The identify record of a connected peer. */
    public CompletableFuture<IdentifyInfo> identify(PeerId peer) {
        Connection c = connection(peer);
        if (c == null) {
            return CompletableFuture.failedFuture(new IOException("not connected to " + peer));
        }
        return c.identify();
    }

    // ---------------------------------------------------------------- upgrade

    private void accepted(SocketChannel ch) {
        InetSocketAddress remote = ch.remoteAddress();
        if (closed || channels.get() >= config.connections().maxConnections()) {
            LOG.log(
                    System.Logger.Level.WARNING,
                    "refusing connection from {0}: connection limit {1}",
                    remote,
                    config.connections().maxConnections());
            ch.close();
            return;
        }
        InetAddress ip = remote.getAddress();
        AtomicInteger perIp = inboundPerIp.computeIfAbsent(ip, k -> new AtomicInteger());
        if (perIp.incrementAndGet() > config.connections().maxConnectionsPerIp()) {
            perIp.decrementAndGet();
            LOG.log(
                    System.Logger.Level.WARNING,
                    "refusing connection from {0}: {1} connections from that IP",
                    remote,
                    config.connections().maxConnectionsPerIp());
            ch.close();
            return;
        }
        ch.closeFuture().addListener(f -> {
            if (perIp.decrementAndGet() == 0) {
                inboundPerIp.remove(ip, perIp);
            }
        });
        upgrade(ch, Connection.Direction.INBOUND, null, new CompletableFuture<>());
    }

    private void upgrade(
            SocketChannel ch, Connection.Direction dir, PeerId expected, CompletableFuture<Connection> result) {
        channels.incrementAndGet();
        // An outbound channel that never became active failed to connect: the dial's own future
        // reports why (connection refused, timeout), so its close must not race to report first.
        java.util.concurrent.atomic.AtomicBoolean wasActive =
                new java.util.concurrent.atomic.AtomicBoolean(ch.isActive());
        ch.pipeline().addFirst("active-marker", new io.netty.channel.ChannelInboundHandlerAdapter() {
            @Override
            public void channelActive(ChannelHandlerContext ctx) throws Exception {
                wasActive.set(true);
                ctx.pipeline().remove(this);
                super.channelActive(ctx);
            }
        });
        ch.closeFuture().addListener(f -> {
            channels.decrementAndGet();
            if (!wasActive.get()) {
                return;
            }
            // Later in the loop, so that a failed dial reports its own cause (e.g. connection refused).
            Runnable fail = () -> result.completeExceptionally(new IOException("connection closed during upgrade"));
            try {
                ch.eventLoop().execute(fail);
            } catch (java.util.concurrent.RejectedExecutionException e) {
                fail.run();
            }
        });
        boolean initiator = dir == Connection.Direction.OUTBOUND;
        var timer = ch.eventLoop()
                .schedule(
                        () -> {
                            if (result.completeExceptionally(new TimeoutException("upgrade did not finish within "
                                    + config.upgrade().upgradeTimeout().toMillis() + " ms"))) {
                                LOG.log(System.Logger.Level.DEBUG, "upgrade of {0} timed out", ch);
                                ch.close();
                            }
                        },
                        config.upgrade().upgradeTimeout().toMillis(),
                        TimeUnit.MILLISECONDS);
        result.whenComplete((c, e) -> timer.cancel(false));
        List<String> security = List.of(NOISE);
        MultistreamHandler mss = initiator
                ? MultistreamHandler.dialer(security, (ctx, p) -> secure(ctx, initiator, expected, dir, result))
                : MultistreamHandler.listener(security, (ctx, p) -> secure(ctx, initiator, expected, dir, result));
        propagateFailure(mss.result(), result);
        // Nearest the socket: the shaper, which counts wire bytes (the private network's nonce included), then the
        // private network layer, which must see every byte that multistream-select and Noise write or read.
        if (config.privateNetwork() != null) {
            ch.pipeline().addFirst("private-network", new PrivateNetworkHandler(config.privateNetwork(), random));
        }
        if (shaper != null) {
            ch.pipeline().addFirst("traffic-shaping", shaper);
        }
        Duration delay = config.transport().inboundDelay();
        if (delay.isPositive()) {
            ch.pipeline().addFirst("inbound-delay", new InboundDelay(delay));
        }
        ch.pipeline().addLast("mss-security", mss);
    }

    private void secure(
            ChannelHandlerContext ctx,
            boolean initiator,
            PeerId expected,
            Connection.Direction dir,
            CompletableFuture<Connection> result) {
        NoiseHandshakeHandler noise = NoiseHandshakeHandler.create(
                initiator,
                config.identity(),
                config.upgrade().inlineMuxers() ? List.of(YAMUX) : List.of(),
                expected,
                random,
                cipher.provider(),
                (nctx, session) -> muxer(nctx, session, initiator, dir, result));
        propagateFailure(noise.result(), result);
        ctx.pipeline().addAfter(ctx.name(), "noise", noise);
    }

    private void muxer(
            ChannelHandlerContext ctx,
            SecureSession secure,
            boolean initiator,
            Connection.Direction dir,
            CompletableFuture<Connection> result) {
        if (secure.inlinedMuxer() != null) {
            if (!secure.inlinedMuxer().equals(YAMUX)) {
                throw new IllegalStateException("unsupported inlined muxer " + secure.inlinedMuxer());
            }
            installYamux(ctx, secure, initiator, dir, result);
            return;
        }
        List<String> muxers = List.of(YAMUX);
        MultistreamHandler mss = initiator
                ? MultistreamHandler.dialer(muxers, (mctx, p) -> installYamux(mctx, secure, initiator, dir, result))
                : MultistreamHandler.listener(muxers, (mctx, p) -> installYamux(mctx, secure, initiator, dir, result));
        propagateFailure(mss.result(), result);
        ctx.pipeline().addAfter(ctx.name(), "mss-muxer", mss);
    }

    private void installYamux(
            ChannelHandlerContext ctx,
            SecureSession secure,
            boolean initiator,
            Connection.Direction dir,
            CompletableFuture<Connection> result) {
        Channel ch = ctx.channel();
        AtomicReference<Connection> ref = new AtomicReference<>();
        YamuxSession session = new YamuxSession(
                config.upgrade().yamux(), initiator, secure.remotePeer(), stream -> onInboundStream(ref.get(), stream));
        Connection conn = new Connection(
                ch,
                session,
                secure.remotePeer(),
                Multiaddr.fromSocketAddress((InetSocketAddress) ch.remoteAddress()),
                Multiaddr.fromSocketAddress((InetSocketAddress) ch.localAddress()),
                dir,
                config.upgrade(),
                gate);
        ref.set(conn);
        ctx.pipeline().addAfter(ctx.name(), "yamux", session);
        register(conn, result);
    }

    private void register(Connection conn, CompletableFuture<Connection> result) {
        List<Connection> list = connections.computeIfAbsent(conn.remotePeer(), k -> new CopyOnWriteArrayList<>());
        list.removeIf(c -> !c.channel().isActive());
        if (closed || list.size() >= config.connections().maxConnectionsPerPeer()) {
            LOG.log(
                    System.Logger.Level.WARNING,
                    "closing {0}: {1} connections to that peer already",
                    conn,
                    config.connections().maxConnectionsPerPeer());
            result.completeExceptionally(new IOException("too many connections to " + conn.remotePeer()));
            conn.session().close();
            return;
        }
        list.add(conn);
        conn.closeFuture().whenComplete((v, e) -> {
            list.remove(conn);
            connections.computeIfPresent(conn.remotePeer(), (k, l) -> l.isEmpty() ? null : l);
            conn.identify.completeExceptionally(new IOException("connection closed before identify finished"));
            result.completeExceptionally(new IOException("connection closed before it was admitted"));
            if (!conn.admitted()) {
                return; // listeners never heard of it
            }
            for (ConnectionListener l : listeners) {
                try {
                    l.disconnected(conn);
                } catch (RuntimeException ex) {
                    LOG.log(System.Logger.Level.WARNING, "connection listener failed", ex);
                }
            }
        });
        // Like js, identify every new connection at once (identify is open before admission).
        conn.newStream(Identify.ID).thenCompose(Identify::receive).whenComplete((info, err) -> {
            if (err != null) {
                LOG.log(System.Logger.Level.DEBUG, "identify of {0} failed: {1}", conn.remotePeer(), err.toString());
                conn.identify.completeExceptionally(err);
            } else {
                records.learn(conn.remotePeer(), info.signedPeerRecord());
                conn.identified(info);
            }
        });
        if (gate == null) {
            admitted(conn, result);
        } else {
            admit(conn, result);
        }
    }

    /** Runs the gate's check on {@code conn}, bounded by its timeout; admits or closes the connection. */
    private void admit(Connection conn, CompletableFuture<Connection> result) {
        CompletableFuture<Void> check;
        try {
            check = gate.admit(conn);
        } catch (RuntimeException e) {
            check = CompletableFuture.failedFuture(e);
        }
        CompletableFuture<Void> bounded = check.toCompletableFuture();
        var timer = conn.channel()
                .eventLoop()
                .schedule(
                        () -> {
                            bounded.completeExceptionally(new ConnectionRefusedException(
                                    "timeout",
                                    "not admitted within " + gate.timeout().toMillis() + " ms"));
                        },
                        gate.timeout().toMillis(),
                        TimeUnit.MILLISECONDS);
        bounded.whenComplete((v, err) -> {
            timer.cancel(false);
            if (err == null) {
                admitted(conn, result);
                return;
            }
            Throwable cause = err instanceof java.util.concurrent.CompletionException && err.getCause() != null
                    ? err.getCause()
                    : err;
            LOG.log(
                    System.Logger.Level.WARNING,
                    "closing {0}: not admitted: {1}",
                    conn,
                    cause.getMessage() == null ? cause.toString() : cause.getMessage());
            if (conn.direction() == Connection.Direction.INBOUND) {
                backoff.failed(conn.remotePeer().toBase58()); // a dial of our own would be refused too
            }
            result.completeExceptionally(cause);
            // A short grace lets the gate's last message (e.g. the verdict) reach the remote.
            conn.close(Duration.ofSeconds(1));
        });
    }

    private void admitted(Connection conn, CompletableFuture<Connection> result) {
        conn.admit();
        if (!result.complete(conn)) {
            conn.session().close(); // timed out or closed meanwhile
            return;
        }
        for (ConnectionListener l : listeners) {
            try {
                l.connected(conn);
            } catch (RuntimeException ex) {
                LOG.log(System.Logger.Level.WARNING, "connection listener failed", ex);
            }
        }
    }

    private static void propagateFailure(CompletableFuture<?> stage, CompletableFuture<Connection> result) {
        stage.whenComplete((v, e) -> {
            if (e != null) {
                result.completeExceptionally(e);
            }
        });
    }

    // ---------------------------------------------------------------- inbound streams

    private void onInboundStream(Connection conn, YamuxStream stream) {
        conn.tracked(stream);
        MultistreamSelect.Listener listener = new MultistreamSelect.Listener(
                p -> (p.equals(Identify.ID) || handlers.containsKey(p) || (gate != null && p.equals(gate.protocol())))
                        && conn.permits(p),
                this::protocols);
        conn.withTimeout(StreamNegotiation.run(stream, listener), stream, "inbound negotiation")
                .whenComplete((protocol, err) -> {
                    if (err != null) {
                        LOG.log(
                                System.Logger.Level.DEBUG,
                                "inbound stream from {0} failed negotiation: {1}",
                                conn.remotePeer(),
                                err.toString());
                        return;
                    }
                    dispatch(conn, stream, protocol);
                });
    }

    private final Map<Connection, Map<String, AtomicInteger>> inboundCounts = new ConcurrentHashMap<>();

    private void dispatch(Connection conn, YamuxStream stream, String protocol) {
        if (protocol.equals(Identify.ID)) {
            Identify.send(stream, localIdentify(conn));
            return;
        }
        Registration reg = gate != null && protocol.equals(gate.protocol())
                ? new Registration(s -> gate.serve(conn, s), GATE_STREAMS_PER_CONNECTION)
                : handlers.get(protocol);
        if (reg == null || !conn.permits(protocol)) {
            stream.reset(); // removed during negotiation
            return;
        }
        Map<String, AtomicInteger> counts = inboundCounts.computeIfAbsent(conn, k -> {
            conn.closeFuture().whenComplete((v, e) -> inboundCounts.remove(conn));
            return new ConcurrentHashMap<>();
        });
        AtomicInteger n = counts.computeIfAbsent(protocol, k -> new AtomicInteger());
        if (n.incrementAndGet() > reg.maxInboundPerConnection()) {
            n.decrementAndGet();
            LOG.log(
                    System.Logger.Level.WARNING,
                    "resetting inbound {0} stream from {1}: limit of {2} per connection",
                    protocol,
                    conn.remotePeer(),
                    reg.maxInboundPerConnection());
            stream.reset();
            return;
        }
        stream.closeFuture().whenComplete((v, e) -> n.decrementAndGet());
        try {
            reg.handler().handle(stream);
        } catch (RuntimeException e) {
            LOG.log(System.Logger.Level.WARNING, "handler for " + protocol + " failed", e);
            stream.reset();
        }
    }

    private IdentifyInfo localIdentify(Connection conn) {
        List<Multiaddr> addrs =
                listenAddrs().stream().map(Multiaddr::withoutPeerId).toList();
        return new IdentifyInfo(
                Identify.PROTOCOL_VERSION,
                config.agentVersion(),
                config.identity().publicKey(),
                addrs,
                conn.remoteAddress(),
                protocols(),
                records.own(addrs));
    }

    private void onIdentifyPush(Stream stream, IdentifyInfo info) {
        Connection c = connection(stream.remotePeer());
        if (c != null) {
            records.learn(c.remotePeer(), info.signedPeerRecord());
            c.identified(info);
        }
    }

    /** Tells connected peers about a changed protocol list (identify push); peers without push say na. */
    private void pushIdentify() {
        for (Connection c : connections()) {
            if (c.isOpen()) {
                c.newStream(Identify.PUSH_ID)
                        .thenCompose(s -> Identify.send(s, localIdentify(c)))
                        .exceptionally(e -> null);
            }
        }
    }

    // ---------------------------------------------------------------- connection manager

    private void scheduleIdleSweep() {
        if (config.connections().idleTimeout().isZero()) {
            return;
        }
        long period =
                Math.max(100, Math.min(1000, config.connections().idleTimeout().toMillis() / 4));
        transport.group().next().scheduleAtFixedRate(this::sweepIdle, period, period, TimeUnit.MILLISECONDS);
    }

    private void sweepIdle() {
        long limit = config.connections().idleTimeout().toNanos();
        for (Connection c : allConnections()) {
            if (c.isOpen() && c.idleNanos() > limit) {
                LOG.log(System.Logger.Level.DEBUG, "closing idle {0}", c);
                c.close(config.connections().gracePeriod());
            }
        }
    }

    /** Closes every connection gracefully, stops listening and releases the I/O threads. */
    public CompletableFuture<Void> closeAsync() {
        closed = true;
        List<CompletableFuture<?>> all = new ArrayList<>();
        for (Channel s : servers) {
            CompletableFuture<Void> f = new CompletableFuture<>();
            s.close().addListener(x -> f.complete(null));
            all.add(f);
        }
        for (Connection c : allConnections()) {
            all.add(c.close(config.connections().gracePeriod()));
        }
        return CompletableFuture.allOf(all.toArray(CompletableFuture[]::new))
                .orTimeout(config.connections().gracePeriod().toMillis() + 2000, TimeUnit.MILLISECONDS)
                .handle((v, e) -> null)
                // Shutting the event loops down must not run on one of them.
                .thenRunAsync(
                        () -> {
                            if (shaper != null) {
                                shaper.release();
                            }
                            transport.close();
                        },
                        r -> Thread.ofPlatform().name("host-close").start(r));
    }

    @Override
    public void close() {
        closeAsync().join();
    }
}
