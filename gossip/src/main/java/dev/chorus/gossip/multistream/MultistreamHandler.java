package dev.chorus.gossip.multistream;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.ByteToMessageDecoder;
import java.io.ByteArrayOutputStream;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.BiConsumer;

/**
 * Runs one multistream-select negotiation on a channel. When a protocol is agreed, it calls {@code
 * onSelected} (which installs the next handlers after this one), completes {@link #result()} and
 * removes itself; bytes that arrived after the agreement are passed on to the next handler. A
 * protocol violation fails the result and closes the channel.
 */
public final class MultistreamHandler extends ByteToMessageDecoder {
    private static final System.Logger LOG = System.getLogger(MultistreamHandler.class.getName());
    private final MultistreamSelect.Negotiator negotiator;
    private final BiConsumer<ChannelHandlerContext, String> onSelected;
    private final CompletableFuture<String> result = new CompletableFuture<>();
    private boolean started;

    public MultistreamHandler(
            MultistreamSelect.Negotiator negotiator, BiConsumer<ChannelHandlerContext, String> onSelected) {
        this.negotiator = negotiator;
        this.onSelected = onSelected;
    }

    public static MultistreamHandler dialer(
            List<String> protocols, BiConsumer<ChannelHandlerContext, String> onSelected) {
        return new MultistreamHandler(new MultistreamSelect.Dialer(protocols), onSelected);
    }

    public static MultistreamHandler listener(
            List<String> protocols, BiConsumer<ChannelHandlerContext, String> onSelected) {
        return new MultistreamHandler(new MultistreamSelect.Listener(protocols), onSelected);
    }

    /** The agreed protocol, or the reason negotiation failed. */
    public CompletableFuture<String> result() {
        return result;
    }

    @Override
    public void handlerAdded(ChannelHandlerContext ctx) {
        if (ctx.channel().isActive()) {
            start(ctx);
        }
    }

    @Override
    public void channelActive(ChannelHandlerContext ctx) throws Exception {
        start(ctx);
        super.channelActive(ctx);
    }

    private void start(ChannelHandlerContext ctx) {
        if (!started) {
            started = true;
            ctx.writeAndFlush(Unpooled.wrappedBuffer(negotiator.start()));
        }
    }

    @Override
    protected void decode(ChannelHandlerContext ctx, ByteBuf in, List<Object> out) {
        if (result.isDone()) {
            return;
        }
        ByteArrayOutputStream replies = new ByteArrayOutputStream();
        String selected;
        try {
            selected = negotiator.onInput(in, replies);
        } catch (NegotiationException e) {
            in.skipBytes(in.readableBytes());
            fail(ctx, e);
            return;
        }
        if (replies.size() > 0) {
            ctx.writeAndFlush(Unpooled.wrappedBuffer(replies.toByteArray()));
        }
        if (selected != null) {
            try {
                onSelected.accept(ctx, selected);
            } catch (RuntimeException e) {
                fail(ctx, e);
                return;
            }
            result.complete(selected);
            ctx.pipeline().remove(this);
        }
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) throws Exception {
        result.completeExceptionally(new NegotiationException("connection closed during negotiation"));
        super.channelInactive(ctx);
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        fail(ctx, cause);
    }

    private void fail(ChannelHandlerContext ctx, Throwable cause) {
        if (result.completeExceptionally(cause)) {
            LOG.log(
                    System.Logger.Level.DEBUG,
                    "multistream-select failed on {0}: {1}",
                    ctx.channel(),
                    cause.toString());
        }
        ctx.close();
    }
}
