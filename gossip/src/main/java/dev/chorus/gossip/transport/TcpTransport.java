package dev.chorus.gossip.transport;

import io.netty.bootstrap.Bootstrap;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.AdaptiveRecvByteBufAllocator;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.IoHandlerFactory;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.ServerChannel;
import io.netty.channel.WriteBufferWaterMark;
import io.netty.channel.epoll.Epoll;
import io.netty.channel.epoll.EpollIoHandler;
import io.netty.channel.epoll.EpollServerSocketChannel;
import io.netty.channel.epoll.EpollSocketChannel;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.channel.socket.nio.NioSocketChannel;
import io.netty.handler.flush.FlushConsolidationHandler;
import io.netty.util.internal.logging.InternalLoggerFactory;
import io.netty.util.internal.logging.JdkLoggerFactory;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/** Dials and accepts TCP connections on one event loop group. */
public final class TcpTransport implements AutoCloseable {
    static {
        // The module logs through System.Logger (java.util.logging by default); Netty's own messages go
        // the same way instead of probing for an SLF4J binding, which warns when none is configured.
        InternalLoggerFactory.setDefaultFactory(JdkLoggerFactory.INSTANCE);
    }

    private static final System.Logger LOG = System.getLogger(TcpTransport.class.getName());
    /** Low and high outbound water marks: yamux stops writing above the high one. */
    static final WriteBufferWaterMark WATER_MARK = new WriteBufferWaterMark(256 * 1024, 1024 * 1024);

    /**
     * Socket reads of up to 256 KiB (Netty's default stops at 64 KiB): fewer read calls per byte, and
     * most 65537-byte Noise frames arrive whole instead of straddling two reads. The buffer shrinks
     * back for connections that only see small messages, and is released after each read.
     */
    static final int MAX_READ_BYTES = 256 * 1024;

    /** Flushes coalesced per event loop pass, so a writer's burst of frames leaves in one system call. */
    static final int FLUSHES_BEFORE_EXPLICIT_FLUSH = 256;

    private final EventLoopGroup group;
    private final Class<? extends SocketChannel> channelClass;
    private final Class<? extends ServerChannel> serverChannelClass;
    private final Duration connectTimeout;
    private final boolean epoll;

    public TcpTransport(int ioThreads, Duration connectTimeout, boolean preferEpoll) {
        this.epoll = preferEpoll && Epoll.isAvailable();
        IoHandlerFactory factory = epoll ? EpollIoHandler.newFactory() : NioIoHandler.newFactory();
        this.group = new MultiThreadIoEventLoopGroup(ioThreads, factory);
        this.channelClass = epoll ? EpollSocketChannel.class : NioSocketChannel.class;
        this.serverChannelClass = epoll ? EpollServerSocketChannel.class : NioServerSocketChannel.class;
        this.connectTimeout = connectTimeout;
        LOG.log(
                System.Logger.Level.DEBUG,
                "TCP transport on {0} with {1} I/O threads",
                epoll ? "epoll" : "NIO",
                ioThreads);
    }

    public boolean usesEpoll() {
        return epoll;
    }

    public EventLoopGroup group() {
        return group;
    }

    /** Listens; {@code onAccepted} configures each accepted channel's pipeline. */
    public CompletableFuture<Channel> listen(InetSocketAddress address, Consumer<SocketChannel> onAccepted) {
        ServerBootstrap b = new ServerBootstrap()
                .group(group)
                .channel(serverChannelClass)
                .option(ChannelOption.SO_BACKLOG, 128)
                .childOption(ChannelOption.TCP_NODELAY, true)
                .childOption(ChannelOption.SO_KEEPALIVE, true)
                .childOption(ChannelOption.WRITE_BUFFER_WATER_MARK, WATER_MARK)
                .childOption(ChannelOption.RCVBUF_ALLOCATOR, readAllocator())
                .childHandler(new ChannelInitializer<SocketChannel>() {
                    @Override
                    protected void initChannel(SocketChannel ch) {
                        ch.pipeline().addLast(FLUSH_CONSOLIDATION, flushConsolidation());
                        onAccepted.accept(ch);
                    }
                });
        return toFuture(b.bind(address), "listen on " + address);
    }

    /** Dials; {@code onConnected} configures the channel's pipeline once connected. */
    public CompletableFuture<Channel> dial(InetSocketAddress address, Consumer<SocketChannel> onConnected) {
        Bootstrap b = new Bootstrap()
                .group(group)
                .channel(channelClass)
                .option(ChannelOption.TCP_NODELAY, true)
                .option(ChannelOption.SO_KEEPALIVE, true)
                .option(ChannelOption.CONNECT_TIMEOUT_MILLIS, (int) connectTimeout.toMillis())
                .option(ChannelOption.WRITE_BUFFER_WATER_MARK, WATER_MARK)
                .option(ChannelOption.RCVBUF_ALLOCATOR, readAllocator())
                .handler(new ChannelInitializer<SocketChannel>() {
                    @Override
                    protected void initChannel(SocketChannel ch) {
                        ch.pipeline().addLast(FLUSH_CONSOLIDATION, flushConsolidation());
                        onConnected.accept(ch);
                    }
                });
        return toFuture(b.connect(address), "dial " + address);
    }

    /** Name of the first handler of every connection's pipeline. */
    public static final String FLUSH_CONSOLIDATION = "flush-consolidation";

    private static FlushConsolidationHandler flushConsolidation() {
        // Also outside reads: a stream writing many frames in one event loop task flushes once.
        return new FlushConsolidationHandler(FLUSHES_BEFORE_EXPLICIT_FLUSH, true);
    }

    private static AdaptiveRecvByteBufAllocator readAllocator() {
        return new AdaptiveRecvByteBufAllocator(64, 2048, MAX_READ_BYTES);
    }

    /**
     * Why a socket operation failed, in the operating system's words and in lower case ("address already in use",
     * "connection refused"): the innermost cause's message without the native call that reported it ({@code
     * bind(..) failed with error(-98): }) and without Java class names.
     */
    public static String reason(Throwable failure) {
        Throwable root = failure;
        boolean connecting = failure instanceof java.net.ConnectException;
        while (root.getCause() != null && root.getCause() != root) {
            root = root.getCause();
            connecting |= root instanceof java.net.ConnectException;
        }
        String text = root.getMessage();
        if (text == null || text.isBlank()) {
            return switch (root) {
                case java.nio.channels.UnresolvedAddressException u -> "unknown host";
                case java.net.SocketTimeoutException t -> "timed out";
                // The JDK's HTTP client reports a refused connection as a ConnectException without a message.
                default -> connecting ? "connection refused" : "socket error";
            };
        }
        text = NATIVE_CALL.matcher(text).replaceFirst("");
        return text.substring(0, 1).toLowerCase(java.util.Locale.ROOT) + text.substring(1);
    }

    /** The prefix of Netty's native transport errors: {@code bind(..) failed with error(-98): }. */
    private static final java.util.regex.Pattern NATIVE_CALL =
            java.util.regex.Pattern.compile("^\\w+\\(\\.\\.\\) failed(?: with error\\(-?\\d+\\))?: ");

    private static CompletableFuture<Channel> toFuture(ChannelFuture cf, String what) {
        CompletableFuture<Channel> f = new CompletableFuture<>();
        cf.addListener(x -> {
            if (x.isSuccess()) {
                f.complete(cf.channel());
            } else {
                f.completeExceptionally(new IOException("cannot " + what + ": " + reason(x.cause()), x.cause()));
            }
        });
        return f;
    }

    @Override
    public void close() {
        group.shutdownGracefully(0, 2, TimeUnit.SECONDS).syncUninterruptibly();
    }
}
