package dev.chorus.gossip.host;

import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.util.ReferenceCountUtil;
import io.netty.util.concurrent.ScheduledFuture;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.concurrent.TimeUnit;

/**
 * Holds every read of a connection for a fixed time before passing it on, in order, as a long link would: nearest the
 * socket, so that the handshakes, the muxer's window updates and every reply are late by as much. For experiments on
 * machines where the kernel cannot delay packets ({@code tc netem}). What waits here is bounded by what the peer may
 * send unacknowledged: its flow control (yamux's windows) sees this host's acknowledgements late too. When the
 * connection closes, what is still held is passed on at once, before the close.
 */
final class InboundDelay extends ChannelInboundHandlerAdapter {

    /** A read, or the end of a batch of reads ({@link #READ_COMPLETE}), and when it may pass. */
    private record Held(Object message, long dueNanos) {}

    private static final Object READ_COMPLETE = new Object();

    private final long delayNanos;
    private final ArrayDeque<Held> held = new ArrayDeque<>();
    private ScheduledFuture<?> drain;

    InboundDelay(Duration delay) {
        this.delayNanos = delay.toNanos();
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        hold(ctx, msg);
    }

    @Override
    public void channelReadComplete(ChannelHandlerContext ctx) {
        hold(ctx, READ_COMPLETE);
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) throws Exception {
        passAll(ctx);
        super.channelInactive(ctx);
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) throws Exception {
        passAll(ctx);
        super.exceptionCaught(ctx, cause);
    }

    @Override
    public void handlerRemoved(ChannelHandlerContext ctx) {
        if (drain != null) {
            drain.cancel(false);
            drain = null;
        }
        Held h;
        while ((h = held.pollFirst()) != null) {
            ReferenceCountUtil.release(h.message());
        }
    }

    private void hold(ChannelHandlerContext ctx, Object msg) {
        held.addLast(new Held(msg, System.nanoTime() + delayNanos));
        if (drain == null) {
            schedule(ctx);
        }
    }

    private void schedule(ChannelHandlerContext ctx) {
        long wait = Math.max(0, held.peekFirst().dueNanos() - System.nanoTime());
        drain = ctx.executor()
                .schedule(
                        () -> {
                            drain = null;
                            passDue(ctx, System.nanoTime());
                            if (!held.isEmpty()) {
                                schedule(ctx);
                            }
                        },
                        wait,
                        TimeUnit.NANOSECONDS);
    }

    /** Passes on, in order, what was due by {@code now}. */
    private void passDue(ChannelHandlerContext ctx, long now) {
        while (!held.isEmpty() && held.peekFirst().dueNanos() - now <= 0) {
            pass(ctx, held.pollFirst().message());
        }
    }

    /** Passes on everything held, in order: the connection is closing. */
    private void passAll(ChannelHandlerContext ctx) {
        while (!held.isEmpty()) {
            pass(ctx, held.pollFirst().message());
        }
    }

    private static void pass(ChannelHandlerContext ctx, Object m) {
        if (m == READ_COMPLETE) {
            ctx.fireChannelReadComplete();
        } else {
            ctx.fireChannelRead(m);
        }
    }
}
